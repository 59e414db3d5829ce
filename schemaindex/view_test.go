package schemaindex

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var allModes = []string{ModeLexical, ModeSemantic, ModeHybrid}

func TestGlobalGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ix   *Index
	}{
		{"global_gmail", Merge(mustParseFile(t, "gmail_example_a.json", "gk1"))},
		{"global_gmail_slack", gmailSlack(t)},
		{"global_capture_full", Merge(mustParseFile(t, "capture_schema_full.json", "gk"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			j, err := json.Marshal(tt.ix.Global())
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tt.name+".json", string(j))
		})
	}
}

func TestStreamGolden(t *testing.T) {
	t.Parallel()
	ix := gmailSlack(t)
	tests := []struct {
		name, stream, conn string
		modes              []string
	}{
		{"stream_messages_shared", "messages", "", allModes},
		{"stream_messages_work_gmail", "messages", "cin_7b2e4d6f8a0c1e3a5b7d9f0c", []string{ModeLexical}},
		{"stream_message_bodies", "message_bodies", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, err := ix.Stream(tt.stream, tt.conn, tt.modes)
			if err != nil {
				t.Fatal(err)
			}
			j, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tt.name+".json", string(j))
		})
	}
}

func TestStreamFieldCap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fields, shown, omitted int
	}{
		{30, 30, 0}, {64, 64, 0}, {70, 64, 6},
	}
	for _, tt := range tests {
		t.Run(strings.Repeat("f", tt.fields%7+1), func(t *testing.T) {
			t.Parallel()
			d, err := Parse(SyntheticSchemaBody("c", 1, tt.fields, nil, true), Source{GrantKey: "k"})
			if err != nil {
				t.Fatal(err)
			}
			v, err := Merge(d).Stream("messages", "", nil)
			if err != nil {
				t.Fatal(err)
			}
			s := v.Sources[0]
			if len(s.Fields) != tt.shown || s.FieldsOmitted != tt.omitted || s.FieldCount != tt.fields {
				t.Errorf("fields shown %d omitted %d count %d; want %d %d %d", len(s.Fields), s.FieldsOmitted, s.FieldCount, tt.shown, tt.omitted, tt.fields)
			}
		})
	}
}

func TestSearchModes(t *testing.T) {
	t.Parallel()
	lex := Field{"a", Caps{Granted: true, Lexical: Capability{Declared: true, Usable: true}}}
	sem := Field{"b", Caps{Granted: true, Semantic: Capability{Declared: true, Usable: true}}}
	dead := Field{"c", Caps{Lexical: Capability{Declared: true, Reason: "field_not_granted"}}}
	tests := []struct {
		name   string
		fields []Field
		rs     []string
		want   []string
	}{
		{"both offered", []Field{lex, sem}, []string{"hybrid", "semantic", "lexical"}, []string{"lexical", "semantic", "hybrid"}},
		{"rs lexical only", []Field{lex, sem}, []string{"lexical"}, []string{"lexical"}},
		{"lex fields only", []Field{lex}, allModes, []string{"lexical"}},
		{"unusable lex", []Field{dead}, allModes, []string{}},
		{"rs offers none", []Field{lex, sem}, nil, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, searchModes(tt.fields, tt.rs)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestStreamErrors(t *testing.T) {
	t.Parallel()
	ix := gmailSlack(t)
	tests := []struct {
		name, stream, conn string
		is                 error
		want               string
	}{
		{"unknown stream", "mesages", "", ErrUnknownStream, `unknown stream "mesages" in this grant set; known streams (2): messages, message_bodies`},
		{"stream not in connection", "message_bodies", "cin_5c0e1a2b3d4f5a6b7c8d9e0f", ErrUnknownStream, `known streams (1): messages`},
		{"unknown connection", "messages", "cin_nope", ErrUnknownConnection, `unknown connection_id "cin_nope"; granted connections (3)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ix.Stream(tt.stream, tt.conn, nil)
			if !errors.Is(err, tt.is) {
				t.Fatalf("err = %v, want %v", err, tt.is)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %q, want it to contain %q", err, tt.want)
			}
		})
	}
	var use *UnknownStreamError
	if _, err := ix.Stream("bodies", "", nil); !errors.As(err, &use) || use.Known[0] != "message_bodies" {
		t.Errorf("closest name first: %v", err)
	}
}

// TestAboutFieldsSayWhatRecordsAreAbout: the fields a page offers as a
// projection example say what a record is about — by declared role, or
// by name where the RS declares none (the real RS's schema for a client
// token lists bare names alphabetically: bcc and cc first, empty on every
// record) — never the payload's own id first.
func TestAboutFieldsSayWhatRecordsAreAbout(t *testing.T) {
	t.Parallel()
	names := func(ns ...string) []Field {
		var out []Field
		for _, n := range ns {
			out = append(out, Field{Name: n, Caps: Caps{Granted: true}})
		}
		return out
	}
	roled := names("id", "body", "when", "headline")
	roled[2].Caps.Role, roled[3].Caps.Role = "event-time", "primary-title"
	ungranted := names("subject", "received_at", "labels")
	ungranted[0].Caps.Granted = false
	for _, tc := range []struct {
		name   string
		fields []Field
		want   []string
	}{
		{"bare names, alphabetical", names("bcc", "cc", "date", "from_email", "id", "is_draft", "received_at", "snippet", "subject", "to"),
			[]string{"subject", "date", "received_at"}},
		{"declared roles win over names", roled, []string{"headline", "when", "body"}},
		{"fewer than three", names("id", "labels"), []string{"labels", "id"}},
		{"ungranted fields are not offered", ungranted, []string{"received_at", "labels"}},
	} {
		if diff := cmp.Diff(tc.want, (StreamSource{FieldCaps: tc.fields}).AboutFields(3)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

// The global view lists each connector's streams once, under it: no
// stream list repeats elsewhere in its JSON.
func TestGlobalListsStreamsOncePerConnector(t *testing.T) {
	t.Parallel()
	var docs []*Doc
	for i := range 12 {
		key := fmt.Sprintf("connector_%d", i)
		d, err := Parse(SyntheticSchemaBody(key, 20, 30, []Connection{{"cin_" + key, "A"}}, true), Source{GrantKey: key})
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	}
	g := Merge(docs...).Global()
	b, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), `"streams":`); n != 12 {
		t.Errorf(`JSON has %d "streams" lists, want one per connector (12)`, n)
	}
	for _, c := range g.Connectors {
		if len(c.Streams) != 20 {
			t.Errorf("connector %s lists %d streams, want 20", c.ConnectorKey, len(c.Streams))
		}
	}
}
