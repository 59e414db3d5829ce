package page

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/internal/golden"
)

// testRef is a record with a real-length connection id, the size a ladder
// entry is measured at.
var testRef = contentladder.RecordRef{ConnectionID: "cin_3f9a1c0e5b7d2a4c6e8f0a1b", Stream: "message_bodies", RecordID: "19659a5b3c1d4e2f"}

func loadInput(t *testing.T, name string) json.RawMessage {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBuildLadderGolden(t *testing.T) {
	t.Parallel()
	ladder := BuildLadder(testRef, loadInput(t, "ladder_gmail.input.json"), LadderOptions{PreviewChars: 280})
	got, err := json.MarshalIndent(ladder, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "ladder_gmail.golden.json"), append(got, '\n'))
	// Spot checks that the golden file alone would not explain.
	for _, e := range ladder {
		if e.Class == ClassBinary && e.Continuation != nil {
			t.Errorf("binary field %q has a continuation into bytes", e.FieldPath)
		}
		if e.Status == StatusComplete {
			t.Errorf("complete field %q listed", e.FieldPath)
		}
	}
}

func TestBuildLadderEntries(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 100)
	ref := contentladder.RecordRef{ConnectionID: "cin_a", Stream: "messages", RecordID: "m1"}
	tests := []struct {
		name    string
		payload string
		opt     LadderOptions
		want    []string // "field_path:status"
	}{
		{"short fields omitted", `{"a":"short","n":3,"z":null,"o":{"k":1}}`, LadderOptions{PreviewChars: 10}, nil},
		{"order kept", `{"b":"` + long + `","a":"` + long + `"}`, LadderOptions{PreviewChars: 10}, []string{"b:truncated", "a:truncated"}},
		{"max entries", `{"a":"` + long + `","b":"` + long + `","c":"` + long + `"}`, LadderOptions{PreviewChars: 10, MaxEntries: 2}, []string{"a:truncated", "b:truncated"}},
		{"exactly preview is complete", `{"a":"` + long + `"}`, LadderOptions{PreviewChars: 100}, nil},
		{"json over preview", `{"a":[` + strings.Repeat(`1,`, 20) + `1]}`, LadderOptions{PreviewChars: 10}, []string{"a:truncated"}},
		{"binary always listed", `{"f":{"blob_id":"b","mime_type":"image/png"}}`, LadderOptions{PreviewChars: 10}, []string{"f:binary-only"}},
		{"bad path unavailable", `{"a/b":"` + long + `"}`, LadderOptions{PreviewChars: 10}, []string{"a/b:unavailable"}},
		{"duplicate keys once", `{"a":"` + long + `","a":"` + long + `"}`, LadderOptions{PreviewChars: 10}, []string{"a:truncated"}},
		{"not an object", `["` + long + `"]`, LadderOptions{PreviewChars: 10}, nil},
		{"invalid json", `{"a":"` + long, LadderOptions{PreviewChars: 10}, nil},
		{"default preview 512", `{"a":"` + strings.Repeat("y", 513) + `","b":"` + strings.Repeat("y", 512) + `"}`, LadderOptions{}, []string{"a:truncated"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, e := range BuildLadder(ref, json.RawMessage(tt.payload), tt.opt) {
				got = append(got, e.FieldPath+":"+string(e.Status))
				if e.ID != ref.ID() || e.ConnectionID != ref.ConnectionID || e.Stream != ref.Stream || e.RecordID != ref.RecordID {
					t.Errorf("entry identity %+v", e)
				}
				if e.Status == StatusUnavailable && e.Continuation != nil {
					t.Errorf("unavailable entry %q has a continuation", e.FieldPath)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestLadderContinuationArgs checks that a text continuation is exactly what
// read_record_field and the field-window resource accept, and starts where
// the preview stopped.
func TestLadderContinuationArgs(t *testing.T) {
	t.Parallel()
	ref := contentladder.RecordRef{ConnectionID: "cin_a", Stream: "messages", RecordID: "m1"}
	l := BuildLadder(ref, json.RawMessage(`{"text":"`+strings.Repeat("z", 50)+`"}`), LadderOptions{PreviewChars: 20, WindowChars: 99999})
	if len(l) != 1 || l[0].Continuation == nil {
		t.Fatalf("ladder %+v", l)
	}
	c := l[0].Continuation
	want := map[string]any{"id": "cin_a/messages:m1", "field_path": "text", "offset_chars": 20, "limit_chars": contentladder.MaxWindowChars}
	if diff := cmp.Diff(want, c.Args); diff != "" || c.Tool != ToolReadRecordField {
		t.Errorf("tool %q args (-want +got):\n%s", c.Tool, diff)
	}
	w, err := contentladder.ParseFieldWindowHandle(strings.TrimPrefix(c.ResourceURI, contentladder.FieldWindowURIPrefix))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(contentladder.WindowSpec{Ref: ref, FieldPath: "text", OffsetChars: 20, LimitChars: contentladder.MaxWindowChars}, w); diff != "" {
		t.Errorf("resource window (-want +got):\n%s", diff)
	}
}

// TestLadderEntryBytes is the byte budget. With identity stated once per
// record (OmitRecordIdentity) an entry stays under 400 bytes for a short id
// and under 460 for a realistic 61-char Gmail id; with identity repeated per
// entry, under 640. The golden file records the exact numbers.
func TestLadderEntryBytes(t *testing.T) {
	t.Parallel()
	payload := json.RawMessage(`{"body_text":"` + strings.Repeat("w", 5000) + `","blob_ref":{"blob_id":"blob_9a1c","mime_type":"application/pdf","size_bytes":245120,"sha256":"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"},"headers":[` + strings.Repeat(`"h",`, 300) + `"h"]}`)
	short := contentladder.RecordRef{ConnectionID: "cin_a", Stream: "messages", RecordID: "m1"}
	tests := []struct {
		ref    contentladder.RecordRef
		omit   bool
		budget int
	}{
		{short, true, 400},
		{testRef, true, 460},
		{short, false, 460},
		{testRef, false, 640},
	}
	var report strings.Builder
	for _, tt := range tests {
		for _, e := range BuildLadder(tt.ref, payload, LadderOptions{PreviewChars: 280, OmitRecordIdentity: tt.omit}) {
			b, _ := json.Marshal(e)
			if len(b) > tt.budget {
				t.Errorf("%s %s (omit identity %v) entry is %d bytes, budget %d: %s", tt.ref.ID(), e.FieldPath, tt.omit, len(b), tt.budget, b)
			}
			fmt.Fprintf(&report, "%s omit_identity=%v %s %s %d\n", tt.ref.ID(), tt.omit, e.FieldPath, e.Class, len(b))
		}
	}
	golden.Check(t, filepath.Join("testdata", "ladder_bytes.golden"), []byte(report.String()))
}
