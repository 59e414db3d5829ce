package adapter

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

// encodingJSON is what encoding/json writes for v without HTML escaping.
func encodingJSON(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// TestRecordsPageJSONMatchesEncoding: the page's own JSON writer and
// encoding/json agree byte for byte, over every optional member.
func TestRecordsPageJSONMatchesEncoding(t *testing.T) {
	t.Parallel()
	seven := int64(7)
	full := recordsPageResult{
		Data: recordsPage{Object: "list", Stream: "messages <&>", HasMore: true, NextCursor: "c\u2028", NextChangesSince: "s",
			Meta: &recordsPageMeta{Count: &recordsCount{Kind: "exact", Value: &seven}, Warnings: []rsclient.Warning{{Code: "w", Message: "<m>"}}},
			Data: []recordEnvelope{
				{ID: "c/s:1", RecordID: "1", ConnectionID: "c", Stream: "s", DisplayName: "Ann \"A\"", EmittedAt: "2026", Data: json.RawMessage(`{"a":"<b>","n":1}`)},
				{ID: "s:2", RecordID: "2", Stream: "s", tombstone: &tombstone{Deleted: true, DeletedAt: "2026-01-01"}, Data: json.RawMessage(`null`)},
				{ID: "s:3", RecordID: "3", Stream: "s"},
			}},
		ContentLadder: []contentladder.LadderEntry{{ID: "c/s:1", FieldPath: "a", Type: "string", Class: contentladder.ClassText,
			Status: contentladder.StatusTruncated, Continuation: &contentladder.Continuation{Tool: "read_record_field", Args: map[string]any{"id": "c/s:1", "q": "<x>"}}}},
		Warnings: []warning{{Code: "source_unavailable", Message: "a & b", GrantID: "g"}},
	}
	for name, r := range map[string]recordsPageResult{
		"full":     full,
		"empty":    {Data: recordsPage{Object: "list", Stream: "s", Data: []recordEnvelope{}}},
		"nil data": {Data: recordsPage{Object: "list", Stream: "s"}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(encodingJSON(t, r), string(r.appendJSON(nil))); diff != "" {
				t.Errorf("(-encoding/json +appendJSON):\n%s", diff)
			}
		})
	}
}

// FuzzRecordsPageJSONMatchesEncoding: any strings, in any member.
func FuzzRecordsPageJSONMatchesEncoding(f *testing.F) {
	f.Add("messages", "c/s:1", "1", "c", "Ann", "2026", "cur", "", true, false)
	f.Add("s\xff\u2028", "\"", "\\", "", "<&>", "\x00", "", "since", false, true)
	f.Fuzz(func(t *testing.T, stream, id, recordID, conn, display, emitted, cursor, since string, more, deleted bool) {
		e := recordEnvelope{ID: id, RecordID: recordID, ConnectionID: conn, Stream: stream, DisplayName: display, EmittedAt: emitted,
			Data: json.RawMessage(`{"k":1}`)}
		if deleted {
			e.tombstone = &tombstone{Deleted: true, DeletedAt: emitted}
		}
		r := recordsPageResult{Data: recordsPage{Object: "list", Stream: stream, HasMore: more, NextCursor: cursor, NextChangesSince: since,
			Data: []recordEnvelope{e, e}}}
		if got, want := string(r.appendJSON(nil)), encodingJSON(t, r); got != want {
			t.Fatalf("appendJSON %s\nencoding/json %s", got, want)
		}
	})
}
