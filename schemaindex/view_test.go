package schemaindex

import (
	"encoding/json"
	"errors"
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
			g := tt.ix.Global()
			checkGolden(t, tt.name+".txt", g.Text())
			j, err := json.Marshal(g)
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
			checkGolden(t, tt.name+".txt", v.Text())
			j, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tt.name+".json", string(j))
		})
	}
}

// The stream text alone carries each argument a model must build.
func TestStreamTextHasArguments(t *testing.T) {
	t.Parallel()
	v, err := gmailSlack(t).Stream("messages", "", allModes)
	if err != nil {
		t.Fatal(err)
	}
	text := v.Text()
	if !strings.HasPrefix(text, "PDPP schema stream=messages sources=2\n"+LegendText()+"\n") {
		t.Errorf("text must start with header and legend:\n%s", text)
	}
	for _, want := range []string{
		"connector_key=gmail", "connector_key=slack",
		"cin_3f9a1c0e5b7d2a4c6e8f0a1b(\"Personal Gmail\")", "cin_7b2e4d6f8a0c1e3a5b7d9f0c(\"Work Gmail\")", "cin_5c0e1a2b3d4f5a6b7c8d9e0f(\"Acme Slack\")",
		`sort:"-received_at"`, `sort:"-sent_at"`, `count:"exact"`, `fields:["subject",`,
		"filters: unavailable to this token", "sum=size_bytes", "group_by_time=date|received_at",
		"subject[t=text,role=primary-title,lex,sem]", "bcc[t=array,g=false]",
		"attachments(has_many,unusable:related_stream_not_granted", "message_bodies(has_one,usable)",
		"modes=lexical|semantic|hybrid lex=subject|from_name|from_email|snippet sem=subject|snippet",
		"pass connection_id",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("stream text lacks %q", want)
		}
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
			hasMore := strings.Contains(v.Text(), "; more:")
			if hasMore != (tt.omitted > 0) {
				t.Errorf("text more: marker = %v, want %v", hasMore, tt.omitted > 0)
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

// TestProjectionExampleSaysWhatRecordsAreAbout: the projection example
// names the fields that say what a record is about — by declared role, or
// by name where the RS declares none (the real RS's schema for a client
// token lists bare names alphabetically: bcc and cc first, empty on every
// record) — never the payload's own id first.
func TestProjectionExampleSaysWhatRecordsAreAbout(t *testing.T) {
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
	for _, tc := range []struct {
		name   string
		fields []Field
		want   string
	}{
		{"bare names, alphabetical", names("bcc", "cc", "date", "from_email", "id", "is_draft", "received_at", "snippet", "subject", "to"),
			`["subject","date","received_at"]`},
		{"declared roles win over names", roled, `["headline","when","body"]`},
		{"fewer than three", names("id", "labels"), `["labels","id"]`},
	} {
		if got := (StreamSource{FieldCaps: tc.fields}).projectionExample(); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}
