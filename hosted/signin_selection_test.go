package hosted_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/hosted"
)

// An operator's authorization_details file is checked at start-up; each
// refusal names what is wrong.
func TestParseAuthorizationDetails(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, doc string
		want      string // compacted output, or a word of the error
		ok        bool
	}{
		{"reference shape", "[\n {\"type\": \"t\", \"source\": {\"kind\": \"connector\", \"id\": \"gmail\"},\n  \"streams\": [{\"name\": \"*\", \"instance_ids\": [\"cin_a\", \"cin_b\"]}]}\n]\n",
			`[{"type":"t","source":{"kind":"connector","id":"gmail"},"streams":[{"name":"*","instance_ids":["cin_a","cin_b"]}]}]`, true},
		{"connector_id shape, unknown members kept", `[{"type":"t","connector_id":"slack","purpose_code":"p","streams":[{"name":"messages"}]}]`,
			`[{"type":"t","connector_id":"slack","purpose_code":"p","streams":[{"name":"messages"}]}]`, true},
		{"not an array", `{"type":"t"}`, "JSON array", false},
		{"empty array", `[]`, "1 to 8 entries", false},
		{"no type", `[{"connector_id":"slack","streams":[{"name":"*"}]}]`, "type is required", false},
		{"no connector", `[{"type":"t","streams":[{"name":"*"}]}]`, "connector", false},
		{"no streams", `[{"type":"t","connector_id":"slack"}]`, "streams", false},
		{"stream without name", `[{"type":"t","connector_id":"slack","streams":[{}]}]`, "name is required", false},
		{"blank instance id", `[{"type":"t","connector_id":"gmail","streams":[{"name":"*","instance_ids":[""]}]}]`, "instance_ids is required", false},
		{"space in connector", `[{"type":"t","connector_id":"gm ail","streams":[{"name":"*"}]}]`, "space", false},
		{"trailing data", `[{"type":"t","connector_id":"slack","streams":[{"name":"*"}]}] []`, "trailing", false},
		{"too long for a URL", `[{"type":"t","connector_id":"slack","x":"` + strings.Repeat("a", hosted.MaxAuthorizationDetailsBytes) + `","streams":[{"name":"*"}]}]`, "authorize URL", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := hosted.ParseAuthorizationDetails([]byte(tc.doc))
			switch {
			case tc.ok && (err != nil || got != tc.want):
				t.Errorf("got %q, %v; want %q", got, err, tc.want)
			case !tc.ok && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("err %v; want one mentioning %q", err, tc.want)
			}
		})
	}
}

// Start-up takes exactly one form of selection.
func TestSignInSelectionValidate(t *testing.T) {
	t.Parallel()
	details := `[{"type":"t","connector_id":"slack","streams":[{"name":"*"}]}]`
	cases := []struct {
		name string
		sel  hosted.SignInSelection
		ok   bool
	}{
		{"details", hosted.SignInSelection{AuthorizationDetails: details}, true},
		{"connector", hosted.SignInSelection{ConnectorID: "slack"}, true},
		{"both", hosted.SignInSelection{AuthorizationDetails: details, ConnectorID: "slack"}, false},
		{"neither", hosted.SignInSelection{}, false},
		{"bad connector", hosted.SignInSelection{ConnectorID: "a\nb"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if err := tc.sel.Validate(); (err == nil) != tc.ok {
				t.Errorf("Validate() = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

// Whatever the input, an accepted document is compact JSON within the
// URL budget, and accepting it again changes nothing.
func FuzzParseAuthorizationDetails(f *testing.F) {
	f.Add([]byte(`[{"type":"t","source":{"id":"gmail"},"streams":[{"name":"*","instance_ids":["a","b"]}]}]`))
	f.Add([]byte(`[{"type":"t","connector_id":"slack","streams":[{"name":"m"}]}]`))
	f.Add([]byte(`[{"type":"","streams":null}]`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		got, err := hosted.ParseAuthorizationDetails(doc)
		if err != nil {
			return
		}
		if !json.Valid([]byte(got)) || len(got) > hosted.MaxAuthorizationDetailsBytes {
			t.Fatalf("accepted %q as %q", doc, got)
		}
		again, err := hosted.ParseAuthorizationDetails([]byte(got))
		if err != nil || again != got {
			t.Fatalf("not idempotent: %q → %q, %v", got, again, err)
		}
	})
}
