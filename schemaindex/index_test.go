package schemaindex

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIndexSources(t *testing.T) {
	t.Parallel()
	ix := gmailSlack(t)
	want := []SourceEntry{
		{GrantKey: "gk1", GrantID: "grt_8c1d2e3f4a5b6c7d", ConnectorKey: "gmail", ConnectionID: "cin_3f9a1c0e5b7d2a4c6e8f0a1b", DisplayName: "Personal Gmail", Streams: []string{"messages", "message_bodies"}},
		{GrantKey: "gk1", GrantID: "grt_8c1d2e3f4a5b6c7d", ConnectorKey: "gmail", ConnectionID: "cin_7b2e4d6f8a0c1e3a5b7d9f0c", DisplayName: "Work Gmail", Streams: []string{"messages", "message_bodies"}},
		{GrantKey: "gk2", GrantID: "grt_1f2e3d4c5b6a7980", ConnectorKey: "slack", ConnectionID: "cin_5c0e1a2b3d4f5a6b7c8d9e0f", DisplayName: "Acme Slack", Streams: []string{"messages"}},
	}
	if diff := cmp.Diff(want, ix.Sources()); diff != "" {
		t.Errorf("Sources (-want +got):\n%s", diff)
	}
	tests := []struct {
		stream    string
		sources   []string // connection ids
		needsConn bool
	}{
		{"messages", []string{"cin_3f9a1c0e5b7d2a4c6e8f0a1b", "cin_7b2e4d6f8a0c1e3a5b7d9f0c", "cin_5c0e1a2b3d4f5a6b7c8d9e0f"}, true},
		{"message_bodies", []string{"cin_3f9a1c0e5b7d2a4c6e8f0a1b", "cin_7b2e4d6f8a0c1e3a5b7d9f0c"}, true},
		{"nope", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.stream, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, e := range ix.StreamSources(tt.stream) {
				got = append(got, e.ConnectionID)
			}
			if diff := cmp.Diff(tt.sources, got); diff != "" {
				t.Errorf("StreamSources (-want +got):\n%s", diff)
			}
			if got := ix.NeedsConnection(tt.stream); got != tt.needsConn {
				t.Errorf("NeedsConnection = %v, want %v", got, tt.needsConn)
			}
		})
	}
	if e, ok := ix.Connection("cin_5c0e1a2b3d4f5a6b7c8d9e0f"); !ok || e.GrantKey != "gk2" || e.ConnectorKey != "slack" {
		t.Errorf("Connection(slack) = %+v, %v", e, ok)
	}
	if _, ok := ix.Connection("cin_missing"); ok {
		t.Error("Connection(cin_missing) found")
	}
	if _, ok := ix.Connection(""); ok {
		t.Error(`Connection("") found`)
	}
	if diff := cmp.Diff([]string{"messages", "message_bodies"}, ix.GrantStreams("gk1")); diff != "" {
		t.Errorf("GrantStreams(gk1) (-want +got):\n%s", diff)
	}
	if got := ix.GrantStreams("unknown"); got != nil {
		t.Errorf("GrantStreams(unknown) = %v", got)
	}
}

// A stream whose own connection set differs from the connector's is only
// reachable through its connections.
func TestIndexStreamLevelConnections(t *testing.T) {
	t.Parallel()
	body := `{"connectors":[{"connector_key":"g","granted_connections":[{"connection_id":"c1"},{"connection_id":"c2"}],
		"streams":[{"name":"a"},{"name":"b","granted_connections":[{"connection_id":"c2"}]}]}]}`
	d, err := Parse([]byte(body), Source{GrantKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	ix := Merge(d, nil)
	got := map[string][]string{}
	for _, e := range ix.Sources() {
		got[e.ConnectionID] = e.Streams
	}
	if diff := cmp.Diff(map[string][]string{"c1": {"a"}, "c2": {"a", "b"}}, got); diff != "" {
		t.Errorf("streams per connection (-want +got):\n%s", diff)
	}
	if ix.NeedsConnection("b") {
		t.Error("b has one source")
	}
	if _, err := ix.Stream("b", "c1", nil); err == nil {
		t.Error("Stream(b, c1) succeeded; b is not served through c1")
	}
}

func TestCandidates(t *testing.T) {
	t.Parallel()
	var docs []*Doc
	for i := range 5 {
		var conns []Connection
		for j := range 4 {
			conns = append(conns, Connection{fmt.Sprintf("cin_%d_%d", i, j), fmt.Sprintf("Conn %d.%d", i, j)})
		}
		d, err := Parse(SyntheticSchemaBody(fmt.Sprintf("conn%d", i), 2, 3, conns, true), Source{GrantKey: fmt.Sprint(i)})
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	}
	ix := Merge(docs...)
	tests := []struct {
		name      string
		stream    string
		max       int
		items     int
		total     int
		truncated bool
	}{
		{"default cap", "messages", 0, 12, 20, true},
		{"explicit cap", "messages", 3, 3, 20, true},
		{"fits", "messages", 50, 20, 20, false},
		{"all sources", "", 0, 12, 20, true},
		{"unknown", "nope", 0, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := ix.Candidates(tt.stream, tt.max)
			if len(c.Items) != tt.items || c.Total != tt.total || c.Truncated != tt.truncated || c.Omitted != tt.total-tt.items {
				t.Errorf("Candidates = %d items, total %d, truncated %v, omitted %d; want %d, %d, %v",
					len(c.Items), c.Total, c.Truncated, c.Omitted, tt.items, tt.total, tt.truncated)
			}
		})
	}
	first := ix.Candidates("messages", 1).Items[0]
	want := Candidate{GrantID: "grt_conn0", ConnectorKey: "conn0", ConnectionID: "cin_0_0", DisplayName: "Conn 0.0"}
	if diff := cmp.Diff(want, first); diff != "" {
		t.Errorf("first candidate (-want +got):\n%s", diff)
	}
}

func TestGlobalScopedToOneConnection(t *testing.T) {
	t.Parallel()
	conns := []Connection{{ID: "cin_a", DisplayName: "A"}, {ID: "cin_b", DisplayName: "B"}}
	var docs []*Doc
	for i, key := range []string{"mail", "chat"} {
		d, err := Parse(SyntheticSchemaBody(key, 3, 2, conns[i:i+1], true), Source{GrantKey: key, GrantID: "grt_" + key})
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	}
	ix := Merge(docs...)
	src, ok := ix.Connection("cin_b")
	if !ok {
		t.Fatal("cin_b not indexed")
	}
	got := ix.Global().Scoped(src)
	if got.ConnectorCount != 1 || got.Connectors[0].ConnectorKey != "chat" ||
		len(got.Connectors[0].Connections) != 1 || got.Connectors[0].Connections[0].ID != "cin_b" ||
		got.StreamCount != len(src.Streams) {
		t.Errorf("scoped view = %+v", got)
	}
}

func TestTitleField(t *testing.T) {
	t.Parallel()
	body := []byte(`{"object":"schema","bearer":{"token_kind":"client"},"connectors":[{"connector_key":"mail","granted_connections":[{"connection_id":"cin_m"}],` +
		`"streams":[{"name":"messages","field_capabilities":{"id":"t=string","subject":"t=text,role=primary-title,lex","body":"t=string,lex"}},` +
		`{"name":"labels","field_capabilities":{"id":"t=string"}}]}]}`)
	d, err := Parse(body, Source{GrantKey: "g"})
	if err != nil {
		t.Fatal(err)
	}
	ix := Merge(d)
	for _, tc := range []struct{ stream, conn, want string }{
		{"messages", "cin_m", "subject"},
		{"labels", "cin_m", ""},
		{"messages", "cin_other", ""},
	} {
		if got := ix.TitleField(tc.stream, tc.conn); got != tc.want {
			t.Errorf("TitleField(%s, %s) = %q, want %q", tc.stream, tc.conn, got, tc.want)
		}
	}
}

func TestFieldNames(t *testing.T) {
	t.Parallel()
	body := []byte(`{"object":"schema","bearer":{"token_kind":"client"},"connectors":[{"connector_key":"mail","granted_connections":[{"connection_id":"cin_m"}],` +
		`"streams":[{"name":"messages","field_capabilities":{"id":"declared","subject":"declared","received_at":"declared"}}]}]}`)
	d, err := Parse(body, Source{GrantKey: "g"})
	if err != nil {
		t.Fatal(err)
	}
	ix := Merge(d)
	for _, tc := range []struct {
		stream, conn string
		want         []string
	}{
		{"messages", "cin_m", []string{"id", "subject", "received_at"}},
		{"messages", "", []string{"id", "subject", "received_at"}},
		{"messages", "cin_other", nil},
		{"labels", "cin_m", nil},
	} {
		if diff := cmp.Diff(tc.want, ix.FieldNames(tc.stream, tc.conn)); diff != "" {
			t.Errorf("FieldNames(%s, %s) (-want +got):\n%s", tc.stream, tc.conn, diff)
		}
	}
}
