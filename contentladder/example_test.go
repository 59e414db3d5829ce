package contentladder_test

import (
	"encoding/json"
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

func ExampleBuildLadder() {
	ref := contentladder.RecordRef{ConnectionID: "cin_a", Stream: "messages", RecordID: "m1"}
	payload := json.RawMessage(`{"subject":"hi","text":"` + fmt.Sprintf("%0600d", 0) +
		`","file":{"blob_id":"b1","mime_type":"application/pdf","size_bytes":1024}}`)
	for _, e := range contentladder.BuildLadder(ref, payload, contentladder.LadderOptions{PreviewChars: 280, OmitRecordIdentity: true}) {
		b, _ := json.Marshal(e)
		fmt.Println(string(b))
	}
	// Output:
	// {"field_path":"text","type":"string","class":"text","size_chars":600,"status":"truncated","preview_chars":280,"continuation":{"tool":"read_record_field","args":{"field_path":"text","id":"cin_a/messages:m1","limit_chars":4096,"offset_chars":280},"resource_uri":"pdpp://field-window/ogVjaW5fYQhtZXNzYWdlcwJtMQR0ZXh0AJgCgCA"}}
	// {"field_path":"file","type":"object","class":"binary","mime_type":"application/pdf","size_bytes":1024,"status":"binary-only","blob_id":"b1","handle":"pdpp://record/oQVjaW5fYQhtZXNzYWdlcwJtMQ"}
}

func ExampleTruncateMarked() {
	s, cut := contentladder.TruncateMarked("see <mark>integration</mark> testing", 9)
	fmt.Println(s, cut)
	// Output: see <mark>inte</mark>… true
}

func ExampleSanitizeForPreview() {
	fmt.Println(string(contentladder.SanitizeForPreview(json.RawMessage(`{"note":"a long note","n":1}`), 6)))
	// Output: {"note":"a lon…","n":1}
}
