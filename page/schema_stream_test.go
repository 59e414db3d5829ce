package page

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/internal/schemagen"
	"github.com/pdpp/pdpp-mcp/schemaindex"
)

// The stream text alone carries each argument a model must build.
func TestSchemaStreamTextHasArguments(t *testing.T) {
	t.Parallel()
	v, err := schemaGmailSlack(t).Stream("messages", "", schemaAllModes)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := SchemaStream(v, "")
	if !strings.HasPrefix(text, "PDPP schema stream=messages sources=2\n"+schemaLegendLine()+"\n") {
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

// Every token of the flag grammar is explained by the one-line legend.
func TestSchemaLegendLineCoversGrammar(t *testing.T) {
	t.Parallel()
	text := schemaLegendLine()
	if strings.Contains(text, "\n") {
		t.Errorf("legend spans lines: %q", text)
	}
	for _, e := range schemaindex.Legend {
		if !strings.Contains(text, " "+e.Token+" "+e.Meaning) {
			t.Errorf("legend line lacks %q: %s", e.Token, text)
		}
	}
}

// A stream past MaxStreamFields says how many fields it leaves out, in
// text; a stream within it does not.
func TestSchemaStreamFieldsMore(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		fields  int
		omitted bool
	}{{30, false}, {64, false}, {70, true}} {
		d, err := schemaindex.Parse(schemagen.SchemaBody("c", 1, tc.fields, nil, true), schemaindex.Source{GrantKey: "k"})
		if err != nil {
			t.Fatal(err)
		}
		v, err := schemaindex.Merge(d).Stream("messages", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		text, p := SchemaStream(v, "")
		if got := strings.Contains(text, "; more:"); got != tc.omitted {
			t.Errorf("%d fields: text more: marker = %v, want %v", tc.fields, got, tc.omitted)
		}
		if got := p.Sources[0].FieldsOmitted > 0; got != tc.omitted {
			t.Errorf("%d fields: page fields_omitted = %d", tc.fields, p.Sources[0].FieldsOmitted)
		}
	}
}

// The structured page carries the text's phrases, line for line: a model
// handed only structuredContent reads the same hints.
func TestSchemaStreamPageCarriesTheText(t *testing.T) {
	t.Parallel()
	v, err := schemaGmailSlack(t).Stream("messages", "", schemaAllModes)
	if err != nil {
		t.Fatal(err)
	}
	text, p := SchemaStream(v, "")
	if p.Legend != schemaLegendLine() || p.Stream != "messages" || p.SourceCount != 2 || len(p.Sources) != 2 {
		t.Fatalf("page header: %+v", p)
	}
	for _, s := range p.Sources {
		for key, phrase := range map[string]string{"sort": s.Sort, "count": s.Count, "projection": s.Projection,
			"filters": s.Filters, "aggregate": s.Aggregate, "expand": s.Expand, "search": s.Search} {
			if !strings.Contains(text, "\n "+key+": "+phrase+"\n") {
				t.Errorf("%s: page's %s %q is not the text's line", s.ConnectorKey, key, phrase)
			}
		}
	}
	for _, n := range p.Notes {
		if !strings.HasSuffix(text, n) && !strings.Contains(text, n+"\n") {
			t.Errorf("note %q not in text", n)
		}
	}
}

// detail:"full" ends the text in the types line and the page carries it;
// the compact page has none.
func TestSchemaStreamFullTypes(t *testing.T) {
	t.Parallel()
	v, err := schemaGmailSlack(t).Stream("message_bodies", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	compact, cp := SchemaStream(v, "")
	const types = "json_schema types (…):\nmessage_bodies: body string"
	full, fp := SchemaStream(v, types)
	if full != compact+"\n"+types {
		t.Errorf("full text is not the compact text and the types line:\n%s", full)
	}
	if cp.Types != "" || fp.Types != types {
		t.Errorf("types: compact %q, full %q", cp.Types, fp.Types)
	}
	cj, _ := json.Marshal(cp)
	if strings.Contains(string(cj), "json_schema_types") {
		t.Errorf("compact page carries json_schema_types: %s", cj)
	}
}

// The connection labels marshal as one ordered object and read back the
// same, whatever the ids' order.
func TestSchemaConnectionLabelsRoundTrip(t *testing.T) {
	t.Parallel()
	in := SchemaConnectionLabels{{ID: "cin_b", DisplayName: "Work"}, {ID: "cin_a", DisplayName: `He said "hi"`}, {ID: "cin_c"}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"cin_b":"Work","cin_a":"He said \"hi\"","cin_c":""}`; string(b) != want {
		t.Errorf("marshal = %s, want %s", b, want)
	}
	var out SchemaConnectionLabels
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, out); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

// Identifiers are bare when plain and quoted otherwise; labels are quoted
// and cut.
func TestSchemaTokenAndLabel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"messages", "messages"}, {"cin_1:a/b.c-d", "cin_1:a/b.c-d"}, {"", `""`},
		{"a b", `"a b"`}, {"x\nsource 9/9", `"x\nsource 9/9"`}, {"a|b", `"a|b"`},
	} {
		if got := schemaToken(tc.in); got != tc.want {
			t.Errorf("schemaToken(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
	long := strings.Repeat("é", schemaMaxLabelRunes+5)
	if got, want := schemaLabel(long), `"`+strings.Repeat("é", schemaMaxLabelRunes)+`…"`; got != want {
		t.Errorf("schemaLabel cut = %s, want %s", got, want)
	}
}

// FuzzSchemaPages: whatever parses as a schema renders both pages without
// panicking, bounded by the body.
func FuzzSchemaPages(f *testing.F) {
	for _, name := range []string{"gmail_example_a.json", "slack_example_b.json", "capture_schema_compact.json", "capture_schema_full.json"} {
		f.Add(schemaFixture(f, name))
	}
	f.Add([]byte(`{"data":{"connectors":[{"connector_key":"g","streams":[{"name":"s","field_capabilities":[{"name":"a"}]}]}]}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		d, err := schemaindex.Parse(body, schemaindex.Source{GrantKey: "k"})
		if err != nil {
			return
		}
		ix := schemaindex.Merge(d)
		if txt, _ := SchemaIndex(ix.Global()); len(txt) > 64*len(body)+1024 {
			t.Fatalf("global text %d bytes from %d-byte body", len(txt), len(body))
		}
		for _, c := range d.Connectors {
			for _, s := range c.Streams {
				if v, err := ix.Stream(s.Name, "", []string{schemaindex.ModeLexical}); err == nil {
					_, _ = SchemaStream(v, "")
				}
			}
		}
	})
}
