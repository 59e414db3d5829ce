package rstest

import (
	"bytes"
	"encoding/json"
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
		// Only the grant's projection is listed (bcc and reply_to, outside
		// it, are not), each field "declared".
		if v != "declared" || f == "bcc" || f == "reply_to" {
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

// TestDeclaredPostureProjection: in the declared posture a client whose
// grant projects a stream sees that projection alone, in the grant's
// order, as the reference builds a client's stream schema from the grant's
// fields; a grant of the whole stream sees every field in lexical order.
func TestDeclaredPostureProjection(t *testing.T) {
	t.Parallel()
	ds := testDataset()
	var projected []string
	for _, g := range ds.Grants {
		for _, gs := range g.Streams {
			if g.Token == gmailTok && gs.Name == "messages" {
				projected = gs.Fields
			}
		}
	}
	if len(projected) == 0 {
		t.Fatal("the fixture's Gmail grant no longer projects messages")
	}
	_, ts := newTestServer(t, ds, Options{Capabilities: CapabilitiesDeclared})
	for _, c := range []struct {
		name, path string
		props      func(map[string]any) any
	}{
		{"full view", "/v1/schema?view=full&stream=messages", func(b map[string]any) any {
			return at(b, "connectors", 0, "streams", 0, "schema", "properties")
		}},
		{"stream metadata", "/v1/streams/messages", func(b map[string]any) any { return at(b, "schema", "properties") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := get(t, ts.URL, c.path, gmailTok)
			if _, ok := c.props(r.body).(map[string]any); !ok {
				t.Fatalf("no schema properties: %s", r.raw)
			}
			if got := propertyOrder(t, r.raw); !cmp.Equal(projected, got) {
				t.Errorf("properties (-grant's fields +listed):\n%s", cmp.Diff(projected, got))
			}
		})
	}
}

// propertyOrder is the keys, in document order, of the first "properties"
// object in raw (the only stream schema of the answers above).
func propertyOrder(t *testing.T, raw []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	for {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("no properties object: %v", err)
		}
		if tok != "properties" {
			continue
		}
		if open, err := dec.Token(); err != nil || open != json.Delim('{') {
			continue
		}
		var keys []string
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				t.Fatal(err)
			}
			keys = append(keys, k.(string))
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				t.Fatal(err)
			}
		}
		return keys
	}
}
