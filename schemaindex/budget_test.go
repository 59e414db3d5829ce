package schemaindex

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// Byte budgets of DESIGN R-4. They fail past the limits; sizes are logged
// (go test -v -run Budget) so reports quote measured numbers.
const (
	globalBudget = 8192  // text + JSON, 4 connectors × 20 streams
	streamBudget = 12288 // text + JSON, one source, 30 fields
)

// synthIndex merges one synthetic grant per connector, each with two
// connections, like a stdio package of several grants.
func synthIndex(t testing.TB, connectors, streams, fields int) *Index {
	t.Helper()
	var docs []*Doc
	for i := range connectors {
		key := fmt.Sprintf("connector_%d", i)
		conns := []Connection{
			{fmt.Sprintf("cin_%024d", 2*i), fmt.Sprintf("Account %d personal", i)},
			{fmt.Sprintf("cin_%024d", 2*i+1), fmt.Sprintf("Account %d work", i)},
		}
		d, err := Parse(SyntheticSchemaBody(key, streams, fields, conns, true), Source{GrantKey: key})
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	}
	return Merge(docs...)
}

func globalSize(t testing.TB, ix *Index) (text, js int) {
	t.Helper()
	g := ix.Global()
	b, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	return len(g.Text()), len(b)
}

func TestGlobalBudget(t *testing.T) {
	t.Parallel()
	for _, sz := range []struct{ c, s int }{{1, 5}, {4, 20}, {12, 20}} {
		text, js := globalSize(t, synthIndex(t, sz.c, sz.s, 30))
		t.Logf("global %2d×%2d streams ×30 fields: text %5d B + JSON %5d B = %5d B", sz.c, sz.s, text, js, text+js)
		if sz.c == 4 && text+js > globalBudget {
			t.Errorf("global 4×20: %d B > budget %d", text+js, globalBudget)
		}
	}
}

// The global index grows by stream names only: more fields add nothing,
// one more stream adds its name (plus a separator) to text and JSON.
func TestGlobalGrowsByNamesOnly(t *testing.T) {
	t.Parallel()
	t30, j30 := globalSize(t, synthIndex(t, 4, 20, 30))
	t31, j31 := globalSize(t, synthIndex(t, 4, 20, 31))
	if t31 != t30 || j31 != j30 {
		t.Errorf("one more field per stream: text %d→%d, JSON %d→%d; want no growth", t30, t31, j30, j31)
	}
	// Stream 21 of each connector is "messages_1" (10 bytes).
	t21, j21 := globalSize(t, synthIndex(t, 4, 21, 30))
	if dt, dj := t21-t30, j21-j30; dt != 4*(10+1) || dj != 4*(10+3) {
		t.Errorf("one more stream per connector: text +%d (want %d), JSON +%d (want %d)", dt, 4*11, dj, 4*13)
	}
}

func TestGlobalListsEveryStream(t *testing.T) {
	t.Parallel()
	ix := synthIndex(t, 12, 20, 30)
	g := ix.Global()
	text := g.Text()
	lines := strings.Split(text, "\n")
	for _, src := range ix.Sources() {
		line := connectorLine(lines, src.ConnectorKey)
		if line == "" {
			t.Fatalf("no line for connector %s", src.ConnectorKey)
		}
		for _, s := range src.Streams {
			if !strings.Contains(line+"|", "|"+s+"|") && !strings.Contains(line+"|", "="+s+"|") {
				t.Errorf("connector %s line lacks stream %q", src.ConnectorKey, s)
			}
		}
		if !strings.Contains(line, src.ConnectionID) {
			t.Errorf("connector %s line lacks connection %s", src.ConnectorKey, src.ConnectionID)
		}
	}
	// No stream list appears twice in the JSON document.
	b, _ := json.Marshal(g)
	if n := strings.Count(string(b), `"streams":`); n != 12 {
		t.Errorf(`JSON has %d "streams" lists, want one per connector (12)`, n)
	}
}

func connectorLine(lines []string, key string) string {
	for _, l := range lines {
		if strings.HasPrefix(l, "connector "+key+" ") {
			return l
		}
	}
	return ""
}

func TestStreamBudget(t *testing.T) {
	t.Parallel()
	ix := synthIndex(t, 4, 20, 30)
	one, err := ix.Stream("messages", "cin_000000000000000000000002", allModes)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(one)
	t.Logf("stream-scoped, 1 source ×30 fields: text %d B + JSON %d B = %d B", len(one.Text()), len(b), len(one.Text())+len(b))
	if n := len(one.Text()) + len(b); n > streamBudget {
		t.Errorf("stream-scoped single source: %d B > %d", n, streamBudget)
	}
	shared, err := ix.Stream("messages", "", allModes)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(shared)
	t.Logf("stream-scoped, shared by 4 grants ×2 connections: text %d B + JSON %d B", len(shared.Text()), len(b))
	text := shared.Text()
	for _, src := range ix.StreamSources("messages") {
		if !strings.Contains(text, "connector_key="+src.ConnectorKey+" ") || !strings.Contains(text, src.ConnectionID) {
			t.Errorf("shared stream text lacks source %s/%s", src.ConnectorKey, src.ConnectionID)
		}
	}
	if shared.SourceCount != 4 || strings.Count(text, "\nsource ") != 4 {
		t.Errorf("shared stream: %d sources, %d blocks; want 4", shared.SourceCount, strings.Count(text, "\nsource "))
	}
}

func TestStreamSourcesCapped(t *testing.T) {
	t.Parallel()
	ix := synthIndex(t, MaxStreamSources+3, 1, 5)
	v, err := ix.Stream("messages", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.SourceCount != MaxStreamSources+3 || len(v.Sources) != MaxStreamSources {
		t.Errorf("sources %d shown of %d", len(v.Sources), v.SourceCount)
	}
	if !strings.Contains(v.Text(), "more_sources=3") {
		t.Error("text lacks more_sources=3")
	}
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

func BenchmarkGlobalText(b *testing.B) {
	ix := synthIndex(b, 4, 20, 30)
	for b.Loop() {
		_ = ix.Global().Text()
	}
}
