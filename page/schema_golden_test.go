package page

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/golden"
	"github.com/pdpp/pdpp-mcp/schemaindex"
)

// schemaFixtures are the RS schema bodies the schema model's own tests
// parse; the pages are rendered from the same documents.
const schemaFixtures = "../schemaindex/testdata"

// checkSchemaGolden compares got with testdata/schema/<name> (golden.Check;
// -update rewrites it).
func checkSchemaGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", "schema", name), []byte(got))
}

// schemaFixture reads one of the schema model's fixture bodies.
func schemaFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(schemaFixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// schemaIndexOf parses fixture bodies, one grant each, and merges them.
func schemaIndexOf(t testing.TB, fixtures ...string) *schemaindex.Index {
	t.Helper()
	var docs []*schemaindex.Doc
	for i, name := range fixtures {
		d, err := schemaindex.Parse(schemaFixture(t, name), schemaindex.Source{GrantKey: "gk" + string(rune('1'+i))})
		if err != nil {
			t.Fatalf("Parse(%s): %v", name, err)
		}
		docs = append(docs, d)
	}
	return schemaindex.Merge(docs...)
}

// schemaGmailSlack is the Example B package: Example A (Gmail, two
// connections) plus the Slack grant; both carry a stream named "messages".
func schemaGmailSlack(t testing.TB) *schemaindex.Index {
	t.Helper()
	return schemaIndexOf(t, "gmail_example_a.json", "slack_example_b.json")
}

var schemaAllModes = []string{schemaindex.ModeLexical, schemaindex.ModeSemantic, schemaindex.ModeHybrid}

func TestSchemaIndexGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ix   *schemaindex.Index
	}{
		{"global_gmail", schemaIndexOf(t, "gmail_example_a.json")},
		{"global_gmail_slack", schemaGmailSlack(t)},
		{"global_capture_full", schemaIndexOf(t, "capture_schema_full.json")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			text, _ := SchemaIndex(tt.ix.Global())
			checkSchemaGolden(t, tt.name+".txt", text)
		})
	}
}

func TestSchemaStreamGolden(t *testing.T) {
	t.Parallel()
	ix := schemaGmailSlack(t)
	tests := []struct {
		name, stream, conn string
		modes              []string
	}{
		{"stream_messages_shared", "messages", "", schemaAllModes},
		{"stream_messages_work_gmail", "messages", "cin_7b2e4d6f8a0c1e3a5b7d9f0c", []string{schemaindex.ModeLexical}},
		{"stream_message_bodies", "message_bodies", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, err := ix.Stream(tt.stream, tt.conn, tt.modes)
			if err != nil {
				t.Fatal(err)
			}
			text, _ := SchemaStream(v, "")
			checkSchemaGolden(t, tt.name+".txt", text)
		})
	}
}
