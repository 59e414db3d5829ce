package page

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
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

// recordsMirror is recordsPageResult as plain encoding/json types: the
// oracle appendJSON is compared against (recordOnPage's own MarshalJSON is
// appendJSON, so it cannot be its own oracle).
type recordsMirror struct {
	Stream           string   `json:"stream"`
	RecordsShown     int      `json:"records_shown"`
	HasMore          bool     `json:"has_more"`
	NextCursor       string   `json:"next_cursor,omitempty"`
	NextChangesSince string   `json:"next_changes_since,omitempty"`
	Count            string   `json:"count,omitempty"`
	ConnectionID     string   `json:"connection_id,omitempty"`
	Warnings         []string `json:"warnings,omitempty"`
	Legend           string   `json:"legend,omitempty"`
	Records          [][]any  `json:"records"`
	Cut              string   `json:"cut,omitempty"`
}

func mirrorOf(r recordsPageResult) recordsMirror {
	m := recordsMirror{Stream: r.Stream, RecordsShown: r.RecordsShown, HasMore: r.HasMore, NextCursor: r.NextCursor,
		NextChangesSince: r.NextChangesSince, Count: r.Count, ConnectionID: r.ConnectionID, Warnings: r.Warnings, Legend: r.Legend, Cut: r.Cut}
	if r.Records != nil {
		m.Records = make([][]any, len(r.Records))
		for i, e := range r.Records {
			data := json.RawMessage(e.Data)
			if len(e.Data) == 0 {
				data = json.RawMessage("null")
			}
			m.Records[i] = []any{e.ID, data}
			if e.DeletedAt != "" {
				m.Records[i] = append(m.Records[i], e.DeletedAt)
			}
		}
	}
	return m
}

// TestRecordsPageJSONMatchesEncoding: the page's own JSON writer and
// encoding/json agree byte for byte, over every optional member.
func TestRecordsPageJSONMatchesEncoding(t *testing.T) {
	t.Parallel()
	full := recordsPageResult{Stream: "messages <&>", RecordsShown: 3, HasMore: true, NextCursor: "c\u2028", NextChangesSince: "s",
		Count: "exact:7", ConnectionID: "cin_1", Warnings: []string{"warning w: <m>", "warning source_unavailable: a & b"},
		Records: []recordOnPage{
			{ID: "c/s:1", Data: `{"a":"<b>","n":1}`},
			{ID: "s:2", DeletedAt: "2026-01-01", Data: `null`},
			{ID: "s:3"},
		},
		Cut: `values ending in … are cut; read one whole with read_record_field {"id":"c/s:1"}`, Legend: recordRowLegend,
	}
	for name, r := range map[string]recordsPageResult{
		"full":        full,
		"empty":       {Stream: "s", Records: []recordOnPage{}},
		"nil records": {Stream: "s"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(encodingJSON(t, mirrorOf(r)), string(r.appendJSON(nil))); diff != "" {
				t.Errorf("(-encoding/json +appendJSON):\n%s", diff)
			}
			if diff := cmp.Diff(encodingJSON(t, mirrorOf(r)), encodingJSON(t, r)); diff != "" {
				t.Errorf("MarshalJSON path (-mirror +result):\n%s", diff)
			}
		})
	}
}

// FuzzRecordsPageJSONMatchesEncoding: any strings, in any member.
func FuzzRecordsPageJSONMatchesEncoding(f *testing.F) {
	f.Add("messages", "c/s:1", "exact:1", "c", "warn", "2026", "cur", "", true, false)
	f.Add("s\xff\u2028", "\"", "\\", "", "<&>", "\x00", "", "since", false, true)
	f.Fuzz(func(t *testing.T, stream, id, count, conn, warn, deletedAt, cursor, since string, more, deleted bool) {
		e := recordOnPage{ID: id, Data: `{"k":1}`}
		if deleted {
			e.DeletedAt = deletedAt
		}
		r := recordsPageResult{Stream: stream, HasMore: more, NextCursor: cursor, NextChangesSince: since, Count: count,
			ConnectionID: conn, Warnings: []string{warn}, Records: []recordOnPage{e, e}, Cut: warn}
		if got, want := string(r.appendJSON(nil)), encodingJSON(t, mirrorOf(r)); got != want {
			t.Fatalf("appendJSON %s\nencoding/json %s", got, want)
		}
	})
}
