package hosted_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/hosted"
)

// gmailEntry is README's example entry with members replaced (or removed,
// nil), as JSON.
func gmailEntry(t *testing.T, edit map[string]any) string {
	t.Helper()
	var entries []map[string]any
	if err := json.Unmarshal([]byte(bothGmailDetails), &entries); err != nil || len(entries) != 1 {
		t.Fatalf("README's example: %v", err)
	}
	for k, v := range edit {
		if v == nil {
			delete(entries[0], k)
		} else {
			entries[0][k] = v
		}
	}
	b, _ := json.Marshal(entries)
	return string(b)
}

// An operator's authorization_details file is checked at start-up against
// the authorization server's rules; each refusal names the member and
// what the AS wants.
func TestParseAuthorizationDetails(t *testing.T) {
	t.Parallel()
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(bothGmailDetails)); err != nil {
		t.Fatalf("README's example: %v", err)
	}
	src := func(id string) map[string]any { return map[string]any{"kind": "connector", "id": id} }
	streams := func(st ...map[string]any) []map[string]any { return st }
	cases := []struct {
		name, doc string
		want      string // compacted output, or a part of the error
		ok        bool
	}{
		{"README's example", bothGmailDetails, compact.String(), true},
		{"a preset instead of streams", gmailEntry(t, map[string]any{"streams": nil, "selection_preset": "everything"}), "", true},
		{"not an array", `{"type":"t"}`, "JSON array", false},
		{"empty array", `[]`, "exactly 1 entry, got 0", false},
		{"two entries", "[" + strings.Trim(gmailEntry(t, nil), "[]") + "," + strings.Trim(gmailEntry(t, nil), "[]") + "]", "grant package", false},
		{"not an object", `[1]`, "JSON object", false},
		{"no type", gmailEntry(t, map[string]any{"type": nil}), `type is required and must be "https://pdpp.dev/data-access" (got nothing)`, false},
		{"the .org type", gmailEntry(t, map[string]any{"type": "https://pdpp.org/data-access"}), `(got "https://pdpp.org/data-access")`, false},
		{"no source", gmailEntry(t, map[string]any{"source": nil}), "source is required", false},
		{"a short source id", gmailEntry(t, map[string]any{"source": src("gmail")}), `source.id must be the connector's source URI`, false},
		{"a source member the AS does not take", gmailEntry(t, map[string]any{"source": map[string]any{"id": "https://x.example/c", "connector_id": "gmail"}}), "source.connector_id", false},
		{"an unknown source kind", gmailEntry(t, map[string]any{"source": map[string]any{"id": "https://x.example/c", "kind": "app"}}), "source.kind", false},
		{"no purpose", gmailEntry(t, map[string]any{"purpose_code": nil}), "purpose_code is required: an absolute URI", false},
		{"a purpose that is no URI", gmailEntry(t, map[string]any{"purpose_code": "assist"}), `purpose_code is required: an absolute URI, e.g. https://pdpp.dev/purpose/personal_ai_assistant (got "assist")`, false},
		{"no access mode", gmailEntry(t, map[string]any{"access_mode": nil}), `access_mode is required: "continuous" or "single_use" (got nothing)`, false},
		{"an unknown access mode", gmailEntry(t, map[string]any{"access_mode": "forever"}), `(got "forever")`, false},
		{"connector_id beside source", gmailEntry(t, map[string]any{"connector_id": "gmail"}), `member "connector_id" is not one the authorization server accepts`, false},
		{"no streams", gmailEntry(t, map[string]any{"streams": nil}), "streams is required", false},
		{"streams and a preset", gmailEntry(t, map[string]any{"selection_preset": "p"}), "not both", false},
		{"empty streams", gmailEntry(t, map[string]any{"streams": streams()}), "streams: want an array of 1 to 32", false},
		{"stream without name", gmailEntry(t, map[string]any{"streams": streams(map[string]any{"instance_ids": []string{"a"}})}), "streams[0].name is required", false},
		{"blank instance id", gmailEntry(t, map[string]any{"streams": streams(map[string]any{"name": "*", "instance_ids": []string{""}})}), "streams[0].instance_ids is required", false},
		{"empty instance ids", gmailEntry(t, map[string]any{"streams": streams(map[string]any{"name": "*", "instance_ids": []string{}})}), "streams[0].instance_ids: want an array of 1 to 16", false},
		{"an instance listed twice", gmailEntry(t, map[string]any{"streams": streams(map[string]any{"name": "*", "instance_ids": []string{"a", "a"}})}), "listed twice", false},
		{"a stream twice", gmailEntry(t, map[string]any{"streams": streams(map[string]any{"name": "m"}, map[string]any{"name": "m"})}), "selected twice", false},
		{"* beside a stream", gmailEntry(t, map[string]any{"streams": streams(map[string]any{"name": "*"}, map[string]any{"name": "m"})}), "must be the only stream selection", false},
		{"a stream member the AS does not take", gmailEntry(t, map[string]any{"streams": streams(map[string]any{"name": "m", "limit": 3})}), `streams[0]: member "limit"`, false},
		{"fields and view", gmailEntry(t, map[string]any{"streams": streams(map[string]any{"name": "m", "fields": []string{"a"}, "view": "v"})}), "fields or view", false},
		{"space in a stream name", gmailEntry(t, map[string]any{"streams": streams(map[string]any{"name": "m m"})}), "space", false},
		{"trailing data", bothGmailDetails + " []", "trailing", false},
		{"too long for a URL", gmailEntry(t, map[string]any{"purpose_description": strings.Repeat("a", hosted.MaxAuthorizationDetailsBytes)}), "authorize URL", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := hosted.ParseAuthorizationDetails([]byte(tc.doc))
			switch {
			case tc.ok && (err != nil || (tc.want != "" && got != tc.want)):
				t.Errorf("got %q, %v; want %q", got, err, tc.want)
			case !tc.ok && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("err %v; want one containing %q", err, tc.want)
			}
		})
	}
}

// Start-up takes exactly one form of selection.
func TestSignInSelectionValidate(t *testing.T) {
	t.Parallel()
	details := bothGmailDetails
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
	f.Add([]byte(bothGmailDetails))
	f.Add([]byte(`[{"type":"https://pdpp.dev/data-access","source":{"id":"https://x.example/c"},"purpose_code":"https://p.example/p","access_mode":"continuous","selection_preset":"p"}]`))
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
