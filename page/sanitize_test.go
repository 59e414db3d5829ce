package page

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/golden"
)

func TestSanitizeForPreviewGolden(t *testing.T) {
	t.Parallel()
	got := SanitizeForPreview(loadInput(t, "ladder_gmail.input.json"), 40)
	if !json.Valid(got) {
		t.Fatalf("invalid JSON: %s", got)
	}
	if strings.Contains(string(got), "AAECAwQF") || strings.Contains(string(got), "base64,") {
		t.Errorf("preview carries raw base64: %s", got)
	}
	golden.Check(t, filepath.Join("testdata", "sanitize_gmail.golden.json"), append(got, '\n'))
}

func TestSanitizeForPreview(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 100) + strings.Repeat("]", 100)
	tests := []struct {
		name, in string
		max      int
		want     string
	}{
		{"scalars kept", `{"b":true,"n":1.50,"z":null}`, 5, `{"b":true,"n":1.50,"z":null}`},
		{"order kept", `{"z":1,"a":2}`, 5, `{"z":1,"a":2}`},
		{"long string cut", `{"s":"abcdefgh"}`, 5, `{"s":"abcd…"}`},
		{"no cut when max 0", `{"s":"abcdefgh"}`, 0, `{"s":"abcdefgh"}`},
		{"marks stay readable", `["<mark>x</mark> & y"]`, 0, `["<mark>x</mark> & y"]`},
		{"base64 in array", `["` + b64(300) + `"]`, 0, `[{"binary":true,"size_bytes":300}]`},
		{"data url", `{"img":"data:image/png;base64,` + b64(300) + `"}`, 0, `{"img":{"binary":true,"mime_type":"image/png","size_bytes":300}}`},
		{"blob ref kept", `{"f":{"blob_id":"b","mime_type":"image/png"}}`, 0, `{"f":{"blob_id":"b","mime_type":"image/png"}}`},
		{"invalid", `{"a":`, 0, `null`},
		{"trailing", `{} {}`, 0, `null`},
		{"too deep", deep, 0, `null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := string(SanitizeForPreview(json.RawMessage(tt.in), tt.max)); got != tt.want {
				t.Errorf("SanitizeForPreview(%.60s, %d) = %s, want %s", tt.in, tt.max, got, tt.want)
			}
		})
	}
}

func FuzzSanitizeForPreview(f *testing.F) {
	f.Add(`{"a":"`+b64(200)+`","b":[1,"x"]}`, 5)
	f.Fuzz(func(t *testing.T, in string, maxString int) {
		got := SanitizeForPreview(json.RawMessage(in), maxString)
		if !json.Valid(got) {
			t.Fatalf("SanitizeForPreview(%q) = %q is not JSON", in, got)
		}
	})
}
