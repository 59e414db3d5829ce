package page

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/schemagen"
	"github.com/pdpp/pdpp-mcp/schemaindex"
)

// Byte budgets of the schema pages. They fail past the limits; sizes are
// logged (go test -v -run SchemaBudget) so reports quote measured numbers.
// Each page is measured as its text plus the view's JSON, as since the
// budgets were set, and as its text plus the structured page the model
// is handed; both must fit.
const (
	schemaIndexBudget  = 8192  // 4 connectors × 20 streams
	schemaStreamBudget = 12288 // one source, 30 fields
)

// schemaSynthIndex merges one synthetic grant per connector, each with
// two connections, like a stdio package of several grants.
func schemaSynthIndex(t testing.TB, connectors, streams, fields int) *schemaindex.Index {
	t.Helper()
	var docs []*schemaindex.Doc
	for i := range connectors {
		key := fmt.Sprintf("connector_%d", i)
		conns := []schemagen.Connection{
			{ID: fmt.Sprintf("cin_%024d", 2*i), DisplayName: fmt.Sprintf("Account %d personal", i)},
			{ID: fmt.Sprintf("cin_%024d", 2*i+1), DisplayName: fmt.Sprintf("Account %d work", i)},
		}
		d, err := schemaindex.Parse(schemagen.SchemaBody(key, streams, fields, conns, true), schemaindex.Source{GrantKey: key})
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	}
	return schemaindex.Merge(docs...)
}

// schemaJSONSize is the compact JSON size of v.
func schemaJSONSize(t testing.TB, v any) int {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// schemaIndexSizes are the index page's text, view JSON and structured
// page sizes.
func schemaIndexSizes(t testing.TB, ix *schemaindex.Index) (text, view, data int) {
	t.Helper()
	g := ix.Global()
	txt, p := SchemaIndex(g)
	return len(txt), schemaJSONSize(t, g), schemaJSONSize(t, p)
}

func TestSchemaIndexBudget(t *testing.T) {
	t.Parallel()
	for _, sz := range []struct{ c, s int }{{1, 5}, {4, 20}, {12, 20}} {
		text, js, data := schemaIndexSizes(t, schemaSynthIndex(t, sz.c, sz.s, 30))
		t.Logf("global %2d×%2d streams ×30 fields: text %5d B + JSON %5d B = %5d B; text + structured page %5d B",
			sz.c, sz.s, text, js, text+js, text+data)
		if sz.c == 4 && (text+js > schemaIndexBudget || text+data > schemaIndexBudget) {
			t.Errorf("global 4×20: %d B (view JSON) / %d B (page) > budget %d", text+js, text+data, schemaIndexBudget)
		}
	}
}

// The global index grows by stream names only: more fields add nothing,
// one more stream adds its name (plus a separator) to text and JSON.
func TestSchemaIndexGrowsByNamesOnly(t *testing.T) {
	t.Parallel()
	t30, j30, d30 := schemaIndexSizes(t, schemaSynthIndex(t, 4, 20, 30))
	t31, j31, d31 := schemaIndexSizes(t, schemaSynthIndex(t, 4, 20, 31))
	if t31 != t30 || j31 != j30 || d31 != d30 {
		t.Errorf("one more field per stream: text %d→%d, JSON %d→%d, page %d→%d; want no growth", t30, t31, j30, j31, d30, d31)
	}
	// Stream 21 of each connector is "messages_1" (10 bytes): the text and
	// the page join names with "|", the view lists them as JSON strings.
	t21, j21, d21 := schemaIndexSizes(t, schemaSynthIndex(t, 4, 21, 30))
	if dt, dj, dd := t21-t30, j21-j30, d21-d30; dt != 4*(10+1) || dj != 4*(10+3) || dd != 4*(10+1) {
		t.Errorf("one more stream per connector: text +%d (want %d), JSON +%d (want %d), page +%d (want %d)", dt, 4*11, dj, 4*13, dd, 4*11)
	}
}

func TestSchemaIndexListsEveryStream(t *testing.T) {
	t.Parallel()
	ix := schemaSynthIndex(t, 12, 20, 30)
	text, _ := SchemaIndex(ix.Global())
	lines := strings.Split(text, "\n")
	for _, c := range ix.Candidates("", 1000).Items {
		line := schemaConnectorLine(lines, c.ConnectorKey)
		if line == "" {
			t.Fatalf("no line for connector %s", c.ConnectorKey)
		}
		for _, s := range ix.GrantStreams(c.ConnectorKey) {
			if !strings.Contains(line+"|", "|"+s+"|") && !strings.Contains(line+"|", "="+s+"|") {
				t.Errorf("connector %s line lacks stream %q", c.ConnectorKey, s)
			}
		}
		if !strings.Contains(line, c.ConnectionID) {
			t.Errorf("connector %s line lacks connection %s", c.ConnectorKey, c.ConnectionID)
		}
	}
}

func schemaConnectorLine(lines []string, key string) string {
	for _, l := range lines {
		if strings.HasPrefix(l, "connector "+key+" ") {
			return l
		}
	}
	return ""
}

func TestSchemaStreamBudget(t *testing.T) {
	t.Parallel()
	ix := schemaSynthIndex(t, 4, 20, 30)
	one, err := ix.Stream("messages", "cin_000000000000000000000002", schemaAllModes)
	if err != nil {
		t.Fatal(err)
	}
	text, p := SchemaStream(one, "")
	js, data := schemaJSONSize(t, one), schemaJSONSize(t, p)
	t.Logf("stream-scoped, 1 source ×30 fields: text %d B + JSON %d B = %d B; text + structured page %d B", len(text), js, len(text)+js, len(text)+data)
	if len(text)+js > schemaStreamBudget || len(text)+data > schemaStreamBudget {
		t.Errorf("stream-scoped single source: %d B (view JSON) / %d B (page) > %d", len(text)+js, len(text)+data, schemaStreamBudget)
	}
	shared, err := ix.Stream("messages", "", schemaAllModes)
	if err != nil {
		t.Fatal(err)
	}
	text, _ = SchemaStream(shared, "")
	t.Logf("stream-scoped, shared by 4 grants ×2 connections: text %d B + JSON %d B", len(text), schemaJSONSize(t, shared))
	for _, src := range ix.StreamSources("messages") {
		if !strings.Contains(text, "connector_key="+src.ConnectorKey+" ") || !strings.Contains(text, src.ConnectionID) {
			t.Errorf("shared stream text lacks source %s/%s", src.ConnectorKey, src.ConnectionID)
		}
	}
	if shared.SourceCount != 4 || strings.Count(text, "\nsource ") != 4 {
		t.Errorf("shared stream: %d sources, %d blocks; want 4", shared.SourceCount, strings.Count(text, "\nsource "))
	}
}

func TestSchemaStreamSourcesCapped(t *testing.T) {
	t.Parallel()
	ix := schemaSynthIndex(t, schemaindex.MaxStreamSources+3, 1, 5)
	v, err := ix.Stream("messages", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.SourceCount != schemaindex.MaxStreamSources+3 || len(v.Sources) != schemaindex.MaxStreamSources {
		t.Errorf("sources %d shown of %d", len(v.Sources), v.SourceCount)
	}
	text, p := SchemaStream(v, "")
	if !strings.Contains(text, "more_sources=3") || !strings.Contains(strings.Join(p.Notes, "\n"), "more_sources=3") {
		t.Errorf("text or page lacks more_sources=3; notes %q", p.Notes)
	}
}

func BenchmarkSchemaIndex(b *testing.B) {
	ix := schemaSynthIndex(b, 4, 20, 30)
	for b.Loop() {
		_, _ = SchemaIndex(ix.Global())
	}
}
