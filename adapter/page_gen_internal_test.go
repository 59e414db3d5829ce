package adapter

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/page"
)

// genText is a random string of n runes mixing ASCII, multi-byte runes,
// quotes, newlines and <mark> tags (JSON escapes make bytes exceed runes).
func genText(rng *rand.Rand, n int) string {
	alphabet := []string{"a", "b", "invoice ", "ü", "😀", "\"", "\n", "<mark>", "\\", "z"}
	var b strings.Builder
	for range n {
		b.WriteString(alphabet[rng.IntN(len(alphabet))])
	}
	return b.String()
}

// genID is a random id of n bytes from the characters ids carry.
func genID(rng *rand.Rand, n int) string {
	const chars = "abcdefghijklmnopqrstuvwxyz0123456789-_.:/"
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[rng.IntN(len(chars))]
	}
	return string(b)
}

// genPayload is a record payload of random members: long and short text,
// numbers, arrays, nested objects and nulls.
func genPayload(rng *rand.Rand) json.RawMessage {
	var fields []field
	for i := range rng.IntN(61) {
		var v any
		switch rng.IntN(5) {
		case 0:
			v = genText(rng, rng.IntN(2000))
		case 1:
			v = rng.IntN(1 << 40)
		case 2:
			v = []string{genText(rng, rng.IntN(30)), genText(rng, rng.IntN(30))}
		case 3:
			v = map[string]any{"nested": genText(rng, rng.IntN(1000)), "n": i}
		}
		fields = append(fields, field{fmt.Sprintf("f%d_%s", i, genID(rng, rng.IntN(20))), v})
	}
	return orderedJSON(fields)
}

// genRecordsRead is a random query_records read: 0–100 records, long ids,
// deletions, warnings and long RS cursors.
func genRecordsRead(rng *rand.Rand) page.RecordsRead {
	list := &page.RecordList{HasMore: rng.IntN(2) == 0}
	if list.HasMore {
		list.NextCursor = genID(rng, 20+rng.IntN(400))
	}
	if rng.IntN(4) == 0 {
		list.Meta.Warnings = append(list.Meta.Warnings, page.Warning{Code: "slow", Message: genText(rng, rng.IntN(2000))})
	}
	for range rng.IntN(101) {
		r := page.Record{ID: genID(rng, 1+rng.IntN(120)), ConnectionID: "cin_" + genID(rng, 24), Stream: "messages",
			EmittedAt: "2026-01-01T00:00:00Z", Data: genPayload(rng)}
		if rng.IntN(10) == 0 {
			r.Deleted, r.DeletedAt, r.Data = true, "2026-02-01T00:00:00Z", nil
		}
		list.Data = append(list.Data, r)
	}
	return page.RecordsRead{Stream: "messages", List: list}
}

// genSearchRead is a random search read: 0–100 hits from up to four
// connections, long titles and densely marked snippets.
func genSearchRead(rng *rand.Rand) page.SearchRead {
	r := page.SearchRead{HasMore: rng.IntN(2) == 0}
	if r.HasMore {
		r.NextCursor = genID(rng, 40+rng.IntN(700))
	}
	for range rng.IntN(101) {
		conn := fmt.Sprintf("cin_%024d", rng.IntN(4))
		var snippet strings.Builder
		for snippet.Len() < rng.IntN(400) {
			w := genText(rng, 1+rng.IntN(8))
			if rng.IntN(3) == 0 {
				w = "<mark>" + w + "</mark>"
			}
			snippet.WriteString(w + " ")
		}
		r.Hits = append(r.Hits, page.Hit{Ref: contentladder.RecordRef{ConnectionID: conn, Stream: "messages", RecordID: genID(rng, 1+rng.IntN(120))},
			ConnectionID: conn, ConnectorKey: "gmail", Display: genText(rng, rng.IntN(80)), ReadTitle: genText(rng, rng.IntN(300)),
			SnippetField: "body", Snippet: snippet.String(), EmittedAt: "2026-01-01T00:00:00Z"})
	}
	return r
}

// A page read without a ceiling is bounded as the adapter's default
// result is: the two constants name one size.
func TestPageDefaultCeilingIsTheAdapters(t *testing.T) {
	t.Parallel()
	if page.DefaultCeilingBytes != DefaultMaxResultBytes {
		t.Errorf("page.DefaultCeilingBytes = %d, adapter's DefaultMaxResultBytes = %d", page.DefaultCeilingBytes, DefaultMaxResultBytes)
	}
}
