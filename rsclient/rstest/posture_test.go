package rstest

import (
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDeclaredPosture pins the D1 posture (captures 0090, 0145-0147): the
// schema advertises nothing, yet sort, aggregate and search still work.
func TestDeclaredPosture(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, testDataset(), Options{Capabilities: CapabilitiesDeclared})
	compact := get(t, ts.URL, "/v1/schema?view=compact&stream=messages", gmailTok)
	st, _ := at(compact.body, "connectors", 0, "streams", 0).(map[string]any)
	if st == nil {
		t.Fatalf("%s", compact.raw)
	}
	if d := cmp.Diff([]any{}, st["primary_key"]); d != "" {
		t.Errorf("primary_key (-want +got):\n%s", d)
	}
	if _, ok := st["cursor_field"]; ok {
		t.Errorf("cursor_field advertised: %v", st["cursor_field"])
	}
	for f, v := range st["field_capabilities"].(map[string]any) {
		// bcc and reply_to are outside this grant's projection ("g=false").
		if v != "declared" && f != "bcc" && f != "reply_to" {
			t.Errorf("field %s: %v", f, v)
		}
	}
	if d := cmp.Diff([]any{}, st["expand_capabilities"]); d != "" {
		t.Errorf("expand_capabilities (-want +got):\n%s", d)
	}
	full := get(t, ts.URL, "/v1/schema?view=full&stream=messages", gmailTok)
	fs, _ := at(full.body, "connectors", 0, "streams", 0).(map[string]any)
	if d := cmp.Diff(map[string]any{}, fs["query"]); d != "" {
		t.Errorf("query (-want +got):\n%s", d)
	}
	wantCap := map[string]any{"declared": false, "usable": false}
	subj := at(fs, "field_capabilities", "subject").(map[string]any)
	for _, k := range []string{"lexical_search", "semantic_search"} {
		if d := cmp.Diff(wantCap, subj[k]); d != "" {
			t.Errorf("subject %s (-want +got):\n%s", k, d)
		}
	}
	if d := cmp.Diff(wantCap, at(fs, "field_capabilities", "size_bytes", "aggregation", "sum")); d != "" {
		t.Errorf("size_bytes sum (-want +got):\n%s", d)
	}
	owner := get(t, ts.URL, "/v1/schema?view=compact&stream=messages", ownerTok)
	if at(owner.body, "connectors", 0, "streams", 0, "cursor_field") != "received_at" {
		t.Errorf("owner schema must stay full (capture 0144): %s", owner.raw)
	}
	// Owners see the connector under its key, clients under the grant's
	// registry URI (captures 0144 vs 0090).
	if got := at(owner.body, "connectors", 0, "source", "id"); got != "gmail" {
		t.Errorf("owner source.id = %v", got)
	}
	if got := at(compact.body, "connectors", 0, "source", "id"); got != "https://registry.pdpp.dev/connectors/gmail" {
		t.Errorf("client source.id = %v", got)
	}
	a := "/v1/streams/messages/"
	for _, path := range []string{
		a + "records?connection_id=" + connA + "&sort=-received_at&limit=2",
		a + "aggregate?metric=count&group_by=is_seen",
		a + "aggregate?metric=sum&field=size_bytes",
		"/v1/search?q=" + url.QueryEscape("Project update") + "&streams=messages",
	} {
		if r := get(t, ts.URL, path, gmailTok); r.status != 200 {
			t.Errorf("%s under the declared posture: %s", path, r.raw)
		}
	}
}

func TestParseCapabilities(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want Capabilities
		ok   bool
	}{{"", CapabilitiesFull, true}, {"full", CapabilitiesFull, true}, {"declared", CapabilitiesDeclared, true}, {"rich", "", false}} {
		got, err := ParseCapabilities(tc.in)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("ParseCapabilities(%q) = %q, %v", tc.in, got, err)
		}
	}
	if _, err := New(testDataset(), Options{Capabilities: "rich"}); err == nil {
		t.Error("New accepted an unknown posture")
	}
}
