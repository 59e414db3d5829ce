package schemaindex

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseExampleA(t *testing.T) {
	t.Parallel()
	d := mustParseFile(t, "gmail_example_a.json", "gk")
	wantBearer := Bearer{TokenKind: "client", Scope: "grant", GrantID: "grt_8c1d2e3f4a5b6c7d", ClientID: "cli_0a1b2c3d4e5f6a7b"}
	if diff := cmp.Diff(wantBearer, d.Bearer); diff != "" {
		t.Errorf("bearer (-want +got):\n%s", diff)
	}
	if len(d.Connectors) != 1 {
		t.Fatalf("connectors = %d, want 1", len(d.Connectors))
	}
	c := d.Connectors[0]
	conns := []Connection{{"cin_3f9a1c0e5b7d2a4c6e8f0a1b", "Personal Gmail"}, {"cin_7b2e4d6f8a0c1e3a5b7d9f0c", "Work Gmail"}}
	got := struct {
		Key, SourceID, TokenKind string
		Source                   Source
		Conns                    []Connection
		Streams                  []string
	}{c.Key, c.SourceID, c.TokenKind, c.Source, c.Connections, nil}
	for _, s := range c.Streams {
		got.Streams = append(got.Streams, s.Name)
		if diff := cmp.Diff(conns, s.Connections); diff != "" {
			t.Errorf("stream %s effective connections (-want +got):\n%s", s.Name, diff)
		}
	}
	want := got
	want.Key, want.SourceID, want.TokenKind = "gmail", "https://registry.pdpp.dev/connectors/gmail", "client"
	want.Source = Source{GrantKey: "gk", GrantID: "grt_8c1d2e3f4a5b6c7d"}
	want.Conns, want.Streams = conns, []string{"messages", "message_bodies"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("connector (-want +got):\n%s", diff)
	}
	m := c.Streams[0]
	if m.CursorField != "received_at" || len(m.Fields) != 22 || m.Fields[2].Name != "subject" || m.Fields[21].Name != "snippet" {
		t.Errorf("messages: cursor %q, %d fields, order %v", m.CursorField, len(m.Fields), m.Fields)
	}
	wantExpand := []Expand{
		{Name: "message_bodies", TargetStream: "message_bodies", Cardinality: "has_one", ForeignKey: "message_id", Granted: true, Usable: true},
		{Name: "attachments", TargetStream: "attachments", Cardinality: "has_many", ForeignKey: "message_id", Reason: "related_stream_not_granted", DefaultLimit: 10, MaxLimit: 50},
	}
	if diff := cmp.Diff(wantExpand, m.Expand); diff != "" {
		t.Errorf("expand (-want +got):\n%s", diff)
	}
	if m.CountMetric != nil {
		t.Errorf("compact view: CountMetric = %v, want nil (unknown)", *m.CountMetric)
	}
}

// The compact and full views of the same grant carry the same capabilities
// (the full view additionally knows unusable aggregations and count).
func TestParseFullEqualsCompact(t *testing.T) {
	t.Parallel()
	conns := []Connection{{"cin_a", "A"}, {"cin_b", ""}}
	full, err := Parse(SyntheticSchemaBody("gmail", 3, 30, conns, false), Source{GrantKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	compact, err := Parse(SyntheticSchemaBody("gmail", 3, 30, conns, true), Source{GrantKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range full.Connectors[0].Streams {
		s := &full.Connectors[0].Streams[i]
		if s.CountMetric == nil || !*s.CountMetric {
			t.Errorf("full stream %s: CountMetric = %v, want true", s.Name, s.CountMetric)
		}
		s.CountMetric, s.Views = nil, nil
		for j := range s.Fields {
			s.Fields[j].Caps.UnusableAggs = nil
		}
	}
	if diff := cmp.Diff(compact, full); diff != "" {
		t.Errorf("compact vs full (-compact +full):\n%s", diff)
	}
}

func TestParseCaptures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file    string
		streams []string
		fields  int // of the first stream
		conn    string
	}{
		{"capture_schema_full.json", []string{"top_artists", "saved_tracks", "recently_played"}, 7, "cin_59226620542ff12acd3c7699"},
		{"capture_schema_compact.json", []string{"top_artists", "saved_tracks", "recently_played"}, 7, "cin_59226620542ff12acd3c7699"},
		{"capture_schema_full_stream.json", []string{"top_artists"}, 7, "cin_59226620542ff12acd3c7699"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			d := mustParseFile(t, tt.file, "k")
			c := d.Connectors[0]
			var names []string
			for _, s := range c.Streams {
				names = append(names, s.Name)
			}
			if diff := cmp.Diff(tt.streams, names); diff != "" {
				t.Errorf("streams (-want +got):\n%s", diff)
			}
			if got := len(c.Streams[0].Fields); got != tt.fields {
				t.Errorf("fields = %d, want %d", got, tt.fields)
			}
			if diff := cmp.Diff([]Connection{{ID: tt.conn}}, c.Connections); diff != "" {
				t.Errorf("connections (-want +got):\n%s", diff)
			}
			if f := FormatFlags(c.Streams[0].Fields[0].Caps); f != "declared" {
				t.Errorf("followers flags = %q, want declared", f)
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	t.Parallel()
	envelope, err := os.ReadFile("testdata/capture_error_envelope.json")
	if err != nil {
		t.Fatal(err)
	}
	tooMany := []byte(`{"object":"schema","connectors":[{"connector_key":"x","streams":[` +
		strings.Repeat(`{"name":"s"},`, MaxStreams) + `{"name":"s"}]}]}`)
	tests := []struct {
		name   string
		body   []byte
		kind   error
		detail string
	}{
		{"error envelope", envelope, ErrNotSchema, `"invalid_request"`},
		{"not json", []byte(`<html>`), ErrNotSchema, "invalid JSON"},
		{"array", []byte(`[]`), ErrNotSchema, "invalid JSON"},
		{"records list", []byte(`{"object":"list","data":[]}`), ErrNotSchema, `"list"`},
		{"no connectors", []byte(`{"object":"schema"}`), ErrNotSchema, "connectors"},
		{"wrong type", []byte(`{"connectors":{}}`), ErrNotSchema, "invalid JSON"},
		{"stream without name", []byte(`{"connectors":[{"connector_key":"g","streams":[{}]}]}`), ErrNotSchema, "connectors[0].streams[0]: name missing"},
		{"connector without key", []byte(`{"connectors":[{"streams":[]}]}`), ErrNotSchema, "connectors[0]"},
		{"bad field caps", []byte(`{"connectors":[{"connector_key":"g","streams":[{"name":"s","field_capabilities":7}]}]}`), ErrNotSchema, "field_capabilities"},
		{"too large", make([]byte, MaxBodyBytes+1), ErrTooLarge, "bytes"},
		{"too many streams", tooMany, ErrTooLarge, "streams"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := Parse(tt.body, Source{})
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, tt.kind) {
				t.Fatalf("Parse = %v, %v; want *ParseError %v", d, err, tt.kind)
			}
			if !strings.Contains(pe.Detail, tt.detail) {
				t.Errorf("detail %q lacks %q", pe.Detail, tt.detail)
			}
		})
	}
}

func TestParseLenient(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		want Stream
	}{
		{"unknown keys and flags", `{"object":"schema","future":1,"connectors":[{"connector_key":"g","granted_connections":[{"connection_id":"c1"}],
			"streams":[{"name":"s","x":true,"field_capabilities":{"a":"t=string,newflag,lex"}}]}]}`,
			Stream{Name: "s", Connections: []Connection{{ID: "c1"}}, Expand: []Expand{},
				Fields: []Field{{"a", Caps{Type: "string", Granted: true, Lexical: Capability{Declared: true, Usable: true}}}}}},
		{"data envelope, array fields, instance ids", `{"data":{"object":"schema","connectors":[{"connector_id":"g",
			"streams":[{"name":"s","instance_ids":["c2"],"record_count":5,"views":[{"id":"v1"},"v2"],"query":{"aggregations":{"count":false}},
			"field_capabilities":[{"name":"a","flags":"t=string"},{"field":"b","granted":false,"schema":{"type":["string","null"]}}]}]}]}}`,
			Stream{Name: "s", Connections: []Connection{{ID: "c2"}}, Expand: []Expand{}, RecordCount: ptr(int64(5)),
				Views: []string{"v1", "v2"}, CountMetric: ptr(false),
				Fields: []Field{{"a", Caps{Type: "string", Granted: true}}, {"b", Caps{Type: "string|null"}}}}},
		{"full caps", `{"connectors":[{"connector_key":"g","streams":[{"name":"s","connection_id":"c3","connection_display_name":"C",
			"field_capabilities":{"t":{"type":"timestamp","granted":true,"exact_filter":{"declared":true,"usable":true},
			"range_filter":{"declared":true,"usable":true,"operators":["gte","lt"]},"aggregation":{"sum":{"declared":true,"usable":false,"reason":"r1"},"zzz":{"declared":true,"usable":true},"max":{"declared":true,"usable":true}}}}}]}]}`,
			Stream{Name: "s", Connections: []Connection{{"c3", "C"}}, Expand: []Expand{},
				Fields: []Field{{"t", Caps{Type: "timestamp", Granted: true, Exact: Capability{Declared: true, Usable: true},
					Range: Capability{Declared: true, Usable: true}, RangeOps: []string{"gte", "lt"}, Aggs: []string{"max", "zzz"},
					UnusableAggs: map[string]string{"sum": "r1"}}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := Parse([]byte(tt.body), Source{GrantKey: "k", GrantID: "grt_given"})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, d.Connectors[0].Streams[0]); diff != "" {
				t.Errorf("stream (-want +got):\n%s", diff)
			}
			if g := d.Connectors[0].Source.GrantID; g != "grt_given" {
				t.Errorf("GrantID = %q, caller's value must win", g)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func FuzzParse(f *testing.F) {
	for _, name := range []string{"gmail_example_a.json", "slack_example_b.json", "capture_schema_compact.json", "capture_error_envelope.json"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(SyntheticSchemaBody("x", 2, 3, []Connection{{"c", "C"}}, false))
	f.Add([]byte(`{"data":{"connectors":[{"connector_key":"g","streams":[{"name":"s","field_capabilities":[{"name":"a"}]}]}]}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		d, err := Parse(body, Source{GrantKey: "k"})
		if err != nil {
			if !errors.Is(err, ErrNotSchema) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		// Whatever parsed must index and build its views without
		// panicking, bounded (page's FuzzSchemaPages renders them).
		ix := Merge(d)
		if j, err := json.Marshal(ix.Global()); err != nil || len(j) > 64*len(body)+1024 {
			t.Fatalf("global view %d bytes from %d-byte body (%v)", len(j), len(body), err)
		}
		for _, c := range d.Connectors {
			for _, s := range c.Streams {
				if v, err := ix.Stream(s.Name, "", []string{ModeLexical}); err == nil {
					_ = v.Sources[0].AboutFields(3)
				}
			}
		}
	})
}

func BenchmarkParseCompact(b *testing.B) {
	body := SyntheticSchemaBody("gmail", 20, 30, []Connection{{"cin_1", "A"}}, true)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := Parse(body, Source{}); err != nil {
			b.Fatal(err)
		}
	}
}
