package adapter_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// messagesGaps leaves both Gmail connections' messages out of the lexical
// index, as the real RS once did (D5).
var messagesGaps = []rstest.LexicalGap{
	{ConnectionID: demodata.GmailWorkConnectionID, Stream: "messages"},
	{ConnectionID: demodata.GmailPersonalConnectionID, Stream: "messages"},
}

var retryRE = regexp.MustCompile(`warning search_coverage: .*To try it: search (\{.*\})`)

// TestLexicalMissNamesTheSemanticRetry, on the mock with
// the real RS's lexical index gap (D5): a lexical search that finds
// nothing says that semantic or hybrid search is offered, with the exact
// arguments, and those arguments find the records.
func TestLexicalMissNamesTheSemanticRetry(t *testing.T) {
	t.Parallel()
	gaps := messagesGaps
	e := newEnv(t, testenv.Options{LexicalGaps: gaps}, demodata.GmailToken)
	r := e.c.call("search", map[string]any{"q": "invoice", "streams": []string{"messages"}})
	if r.IsError || !strings.HasPrefix(r.text(), "search: 0 hits.") {
		t.Fatalf("the gapped lexical search should find nothing: %s", r.text())
	}
	m := retryRE.FindStringSubmatch(r.text())
	if m == nil {
		t.Fatalf("no retry arguments in the text:\n%s", r.text())
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(m[1]), &args); err != nil {
		t.Fatalf("retry arguments %s: %v", m[1], err)
	}
	if args["mode"] != "semantic" || args["q"] != "invoice" {
		t.Errorf("retry arguments %v", args)
	}
	retry := e.c.call("search", args)
	if retry.IsError || !strings.Contains(retry.text(), "first_fetch_id=") {
		t.Errorf("the named retry finds nothing: %s", retry.text())
	}

	// Without semantic or hybrid on offer there is nothing to suggest.
	off := newEnv(t, testenv.Options{LexicalGaps: gaps, NoSemantic: true}, demodata.GmailToken)
	r = off.c.call("search", map[string]any{"q": "invoice", "streams": []string{"messages"}})
	if strings.Contains(r.text(), "search_coverage") {
		t.Errorf("coverage warning without another mode:\n%s", r.text())
	}
	// Hits found lexically with complete recall: no warning either.
	r = e.c.call("search", map[string]any{"q": "invoice"})
	if strings.Contains(r.text(), "search_coverage") || strings.HasPrefix(r.text(), "search: 0 hits.") {
		t.Errorf("a lexical search with hits should carry no coverage warning:\n%s", r.text())
	}
}

// TestLexicalMissRetryKeepsALongQuery: the retry call repeats a long q
// whole (it was cut with the warning line at 300 bytes), so it still
// parses and is the same search in another mode.
func TestLexicalMissRetryKeepsALongQuery(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{LexicalGaps: messagesGaps}, demodata.GmailToken)
	q := "invoice " + strings.Repeat("ünïcode words ", 58) // 994 bytes: within the 1,000-byte bound
	r := e.c.call("search", map[string]any{"q": q, "streams": []string{"messages"}})
	m := retryRE.FindStringSubmatch(r.text())
	if m == nil {
		t.Fatalf("no retry arguments in the text:\n%s", r.text())
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(m[1]), &args); err != nil {
		t.Fatalf("retry arguments %.200s…: %v", m[1], err)
	}
	if args["q"] != q || args["mode"] != "semantic" {
		t.Errorf("retry q %d bytes (want %d), mode %v", len(args["q"].(string)), len(q), args["mode"])
	}
}

// TestSemanticIsNeverPresentedAsAMatch: semantic search returns
// neighbours for any query (as the real RS does), so a lexical miss on
// nonsense offers the semantic retry only with the caveat that its hits
// need not contain the words, and the semantic (and hybrid) page itself
// says its hits are nearest neighbours, in both channels.
func TestSemanticIsNeverPresentedAsAMatch(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{Capabilities: rstest.CapabilitiesDeclared}, demodata.GmailToken)
	r := e.c.call("search", map[string]any{"q": "xyzzyplugh", "streams": []string{"messages"}})
	m := retryRE.FindStringSubmatch(r.text())
	if m == nil {
		t.Fatalf("no semantic retry after a lexical miss:\n%s", r.text())
	}
	line := m[0]
	if !strings.Contains(line, "nearest") || !strings.Contains(line, "even when none contains these words") {
		t.Errorf("the retry is offered without saying it returns neighbours, not matches:\n%s", line)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(m[1]), &args); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"semantic", "hybrid"} {
		args["mode"] = mode
		page := e.c.call("search", args)
		if page.IsError || !strings.Contains(page.text(), "first_fetch_id=") {
			t.Fatalf("%s: %s", mode, page.text())
		}
		var sc struct {
			Warnings []string `json:"warnings"`
		}
		if err := json.Unmarshal(page.StructuredContent, &sc); err != nil {
			t.Fatal(err)
		}
		if len(sc.Warnings) == 0 || !strings.HasPrefix(sc.Warnings[0], "warning nearest_neighbours: ") ||
			!strings.Contains(page.text(), "\n"+sc.Warnings[0]+"\n") || !strings.Contains(sc.Warnings[0], "need not contain") {
			t.Errorf("%s page does not say its hits are neighbours:\n%s\nstructured warnings %q", mode, page.text(), sc.Warnings)
		}
	}
	lex := e.c.call("search", map[string]any{"q": "invoice", "streams": []string{"messages"}})
	if strings.Contains(lex.text(), "nearest_neighbours") {
		t.Errorf("a lexical page carries the neighbours note:\n%s", lex.text())
	}
}

// TestLexicalMissOffersNoRetryThatCannotHelp: over a stream without
// semantic fields the semantic retry returns nothing but a
// source_skipped_not_applicable warning, so a lexical miss there offers
// no retry at all.
func TestLexicalMissOffersNoRetryThatCannotHelp(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{Capabilities: rstest.CapabilitiesDeclared}, demodata.GmailToken)
	r := e.c.call("search", map[string]any{"q": "xyzzyplugh", "streams": []string{"labels"}})
	if r.IsError || !strings.HasPrefix(r.text(), "search: 0 hits.") {
		t.Fatalf("want a lexical miss: %s", r.text())
	}
	if strings.Contains(r.text(), "search_coverage") {
		t.Errorf("a retry that returns nothing is offered:\n%s", r.text())
	}
	sem := e.c.call("search", map[string]any{"q": "xyzzyplugh", "streams": []string{"labels"}, "mode": "semantic"})
	if !strings.Contains(sem.text(), "warning source_skipped_not_applicable: Connection '") {
		t.Errorf("the semantic search over labels does not say why it is empty:\n%s", sem.text())
	}
}

// TestLexicalMissChecksEverySourceAtOnce: the check that a lexical miss's
// retry finds something asks every grant at once (one round trip), not
// one grant after another. The RS holds each check until every grant's
// has arrived, so a check made one at a time never gets its answer.
func TestLexicalMissChecksEverySourceAtOnce(t *testing.T) {
	t.Parallel()
	const sources = 2
	var mu sync.Mutex
	inFlight, peak := 0, 0
	all := make(chan struct{})
	hold := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/v1/search/semantic" {
				next.ServeHTTP(w, r)
				return
			}
			mu.Lock()
			inFlight++
			peak = max(peak, inFlight)
			if inFlight == sources {
				close(all)
			}
			mu.Unlock()
			defer func() {
				mu.Lock()
				inFlight--
				mu.Unlock()
			}()
			select {
			case <-all:
			case <-r.Context().Done():
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	// Two grants of different connectors (grants over one connection
	// would be searched through one of them): neither's messages are in
	// the lexical index.
	gaps := append(append([]rstest.LexicalGap(nil), messagesGaps...),
		rstest.LexicalGap{ConnectionID: demodata.SlackConnectionID, Stream: "messages"})
	e := newEnv(t, testenv.Options{LexicalGaps: gaps, Raw: hold}, demodata.GmailToken, demodata.SlackToken)
	r := e.c.call("search", map[string]any{"q": "invoice", "streams": []string{"messages"}})
	if !retryRE.MatchString(r.text()) {
		t.Errorf("no retry suggested:\n%s", r.text())
	}
	mu.Lock()
	defer mu.Unlock()
	if peak != sources {
		t.Errorf("%d retry checks in flight at once, want %d (one per grant, all at once)", peak, sources)
	}
}
