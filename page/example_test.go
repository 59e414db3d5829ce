package page_test

import (
	"encoding/json"
	"fmt"

	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/page"
)

func ExampleBuildLadder() {
	ref := contentladder.RecordRef{ConnectionID: "cin_a", Stream: "messages", RecordID: "m1"}
	payload := json.RawMessage(`{"subject":"hi","text":"` + fmt.Sprintf("%0600d", 0) +
		`","file":{"blob_id":"b1","mime_type":"application/pdf","size_bytes":1024}}`)
	for _, e := range page.BuildLadder(ref, payload, page.LadderOptions{PreviewChars: 280, OmitRecordIdentity: true}) {
		b, _ := json.Marshal(e)
		fmt.Println(string(b))
	}
	// Output:
	// {"field_path":"text","type":"string","class":"text","size_chars":600,"status":"truncated","preview_chars":280,"continuation":{"tool":"read_record_field","args":{"field_path":"text","id":"cin_a/messages:m1","limit_chars":4096,"offset_chars":280},"resource_uri":"pdpp://field-window/ogVjaW5fYQhtZXNzYWdlcwJtMQR0ZXh0AJgCgCA"}}
	// {"field_path":"file","type":"object","class":"binary","mime_type":"application/pdf","size_bytes":1024,"status":"binary-only","blob_id":"b1","handle":"pdpp://record/oQVjaW5fYQhtZXNzYWdlcwJtMQ"}
}

func ExampleTruncateMarked() {
	s, cut := page.TruncateMarked("see <mark>integration</mark> testing", 9)
	fmt.Println(s, cut)
	// Output: see <mark>inte</mark>… true
}

func ExampleSanitizeForPreview() {
	fmt.Println(string(page.SanitizeForPreview(json.RawMessage(`{"note":"a long note","n":1}`), 6)))
	// Output: {"note":"a lon…","n":1}
}
