package contentladder_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/pdpp/pdpp-mcp/contentladder"
)

func ExampleParseID() {
	for _, id := range []string{
		"cin_a/messages:C01:1714032900.000002",
		"messages:m1",
		"pdpp://record/cin_a%2Fmessages%3Am1",
		"orders:../../etc/passwd",
	} {
		ref, form, err := contentladder.ParseID(id)
		if err != nil {
			var e *contentladder.Error
			errors.As(err, &e)
			fmt.Println(e.Code, e.Reason)
			continue
		}
		fmt.Printf("%s %q %q %q\n", form, ref.ConnectionID, ref.Stream, ref.RecordID)
	}
	// Output:
	// self-contained "cin_a" "messages" "C01:1714032900.000002"
	// legacy "" "messages" "m1"
	// uri "cin_a" "messages" "m1"
	// invalid_id invalid_characters
}

func ExampleRecordURI() {
	ref := contentladder.RecordRef{ConnectionID: "cin_a", Stream: "messages", RecordID: "m1"}
	uri := contentladder.RecordURI(ref)
	back, form, _ := contentladder.ParseID(uri)
	fmt.Println(uri)
	fmt.Println(form, back.ID())
	// Output:
	// pdpp://record/oQVjaW5fYQhtZXNzYWdlcwJtMQ
	// uri cin_a/messages:m1
}

func ExampleCursorKey() {
	key, _ := contentladder.NewCursorKey([]byte("0123456789abcdef0123456789abcdef")) // from config
	ref := contentladder.RecordRef{ConnectionID: "cin_x", Stream: "message_bodies", RecordID: "m1"}
	grant := "grt_8c1d2e3f4a5b6c7d" // the RS grant id of the caller's token
	now := time.Date(2026, 4, 24, 10, 0, 0, 0, time.UTC)

	next := key.Seal(contentladder.Cursor{Ref: ref, FieldPath: "body_text", OffsetChars: 4096, LimitChars: 4096,
		Grant: grant, Expires: now.Add(time.Hour)})

	c, err := key.Open(next, contentladder.Binding{Ref: ref, FieldPath: "body_text", Grant: grant, Now: now})
	fmt.Println(c.OffsetChars, c.LimitChars, err)

	_, err = key.Open(next, contentladder.Binding{Ref: ref, FieldPath: "body_text", Grant: grant, Now: now.Add(2 * time.Hour)})
	fmt.Println(err)
	// Output:
	// 4096 4096 <nil>
	// cursor for field "body_text" of record "cin_x/message_bodies:m1" has expired; restart with offset_chars (or omit the cursor)
}
