package adapter_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/internal/schemagen"
	"github.com/pdpp/pdpp-mcp/page"
)

// fatSearchRS answers /v1/search with `hits` hits whose snippets are long
// and densely highlighted, to measure the text budget at the worst case.
func fatSearchRS(t *testing.T, hits, snippetLen int, seed uint64) string {
	t.Helper()
	return searchRSWithMeta(t, hits, snippetLen, seed, map[string]any{"count": nil, "warnings": []any{}})
}

// searchRSWithMeta is fatSearchRS with a chosen search `meta` block.
func searchRSWithMeta(t *testing.T, hits, snippetLen int, seed uint64, meta map[string]any) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	schema := schemagen.SchemaBody("mail", 3, 10, []schemagen.Connection{{ID: "cin_000000000000000000000001", DisplayName: "Mail"}}, true)
	schema = []byte(strings.Replace(string(schema), `"object":"schema"`, `"object":"schema","bearer":{"token_kind":"client","scope":"grant","grant_id":"grt_0000000000000001"}`, 1))
	words := []string{"alpha", "beta", "gamma", "invoice", "ünïcødé", "😀", "<b>", "&amp;", "delta"}
	var data []map[string]any
	for i := 0; i < hits; i++ {
		var b strings.Builder
		for b.Len() < snippetLen {
			w := words[rng.IntN(len(words))]
			if rng.IntN(4) == 0 {
				w = "<mark>" + w + "</mark>"
			}
			b.WriteString(w + " ")
		}
		data = append(data, map[string]any{
			"object": "search_result", "connector_id": "mail", "connection_id": "cin_000000000000000000000001",
			"stream": "messages", "record_key": fmt.Sprintf("m%04d", i), "emitted_at": "2026-01-01T00:00:00Z",
			"snippet": map[string]any{"field": "body", "text": b.String()}, "matched_fields": []string{"body"},
		})
	}
	page, _ := json.Marshal(map[string]any{"object": "list", "data": data, "has_more": true, "next_cursor": "c2",
		"links": map[string]any{"self": "/v1/search"}, "meta": meta})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Request-Id", "req_0000000000000002")
		switch r.URL.Path {
		case "/v1/schema":
			_, _ = w.Write(schema)
		case "/v1/search":
			_, _ = w.Write(page)
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":{"type":"not_found_error","code":"not_found","message":"no"}}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// A page of 100 fat hits passes the result ceiling: it shows the hits
// that fit (both channels within DefaultMaxResultBytes as a host shows
// them), says so, and its next_cursor continues at the first hit left, so
// paging by cursor reaches every hit exactly once.
func TestSearchTextBudgetAt100FatHits(t *testing.T) {
	t.Parallel()
	c := newClient(t, newAdapterFor(t, fatSearchRS(t, 100, 500, 7), "tok"))
	r := c.call("search", map[string]any{"q": "invoice", "limit": 100})
	sr := decodeSearch(t, r)
	shown := len(sr.Results)
	if shown == 0 || shown >= 100 || !sr.HasMore || sr.NextCursor == "" {
		t.Fatalf("%d results, has_more=%t: want fewer than 100 and a cursor on", shown, sr.HasMore)
	}
	t.Logf("100 hits × 500-char snippets: %d shown, text %d B, structuredContent %d B", shown, len(r.text()), len(r.StructuredContent))
	if budget := adapter.DefaultMaxResultBytes; len(r.text()) > budget {
		t.Errorf("search text is %d bytes; ceiling %d", len(r.text()), budget)
	}
	// What a host hands the model: structuredContent as JSON without the
	// wire's HTML escaping of <mark> (mcp-go's encoder writes \u003c).
	if budget, got := adapter.DefaultMaxResultBytes, len(hostJSON(t, r.StructuredContent)); got > budget {
		t.Errorf("search structuredContent as a host shows it is %d bytes; ceiling %d", got, budget)
	}
	containsAll(t, r.text(), "first_fetch_id=cin_000000000000000000000001/messages:m0000", "next_cursor=",
		fmt.Sprintf("note: %d more hits did not fit this result", 100-shown))
	if sr.FirstFetchID != "cin_000000000000000000000001/messages:m0000" {
		t.Errorf("structured first_fetch_id %q", sr.FirstFetchID)
	}
	for _, h := range sr.Results {
		if !strings.Contains(r.text(), ". "+h.ID+` "`) {
			t.Errorf("hit %s missing from text", h.ID)
		}
	}
	next := decodeSearch(t, c.call("search", map[string]any{"cursor": sr.NextCursor, "limit": 100}))
	if want := fmt.Sprintf("cin_000000000000000000000001/messages:m%04d", shown); len(next.Results) == 0 || next.Results[0].ID != want {
		t.Fatalf("the next page starts at %v, want %s", next.Results, want)
	}
}

// Snippets stay tag-balanced after truncation, in text and structure,
// whatever the highlighted input looks like.
func TestSearchSnippetsStayBalanced(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 12; seed++ {
		c := newClient(t, newAdapterFor(t, fatSearchRS(t, 20, 200+int(seed)*37, seed), "tok"))
		r := c.call("search", map[string]any{"q": "invoice", "limit": 20})
		sr := decodeSearch(t, r)
		check := func(where, s string) {
			if strings.Count(s, "<mark>") != strings.Count(s, "</mark>") {
				t.Errorf("seed %d %s: unbalanced marks: %q", seed, where, s)
			}
			open := 0
			for _, tok := range strings.SplitAfter(s, ">") {
				switch {
				case strings.HasSuffix(tok, "<mark>"):
					open++
				case strings.HasSuffix(tok, "</mark>"):
					open--
				}
				if open < 0 || open > 1 {
					t.Errorf("seed %d %s: misnested marks: %q", seed, where, s)
					break
				}
			}
		}
		for _, h := range sr.Results {
			check("result", h.Snippet)
			if len([]rune(page.StripMarks(h.Snippet))) > 330 {
				t.Errorf("snippet not bounded: %d runes", len([]rune(h.Snippet)))
			}
		}
		for _, line := range strings.Split(r.text(), "\n") {
			check("text", line)
		}
	}
}

func TestSearchWarnsWhenRecallIsNotExhaustive(t *testing.T) {
	t.Parallel()
	meta := map[string]any{"count": nil, "count_accuracy": "lower_bound", "warnings": []any{},
		"recall": map[string]any{"complete": false, "ranking_scope": "candidate_window", "truncated": true,
			"ranked_candidate_count": 200, "candidate_window_limit": 200}}
	c := newClient(t, newAdapterFor(t, searchRSWithMeta(t, 5, 80, 3, meta), "tok"))
	r := c.call("search", map[string]any{"q": "invoice", "limit": 5})
	containsAll(t, r.text(), "warning recall", "not treat this page as exhaustive")
	containsAll(t, string(r.StructuredContent), "warning recall", "not treat this page as exhaustive")
	complete := map[string]any{"count": 5, "warnings": []any{}, "recall": map[string]any{"complete": true, "ranking_scope": "all_matches", "truncated": false}}
	c2 := newClient(t, newAdapterFor(t, searchRSWithMeta(t, 5, 80, 3, complete), "tok"))
	if r := c2.call("search", map[string]any{"q": "invoice", "limit": 5}); strings.Contains(r.text(), "recall") {
		t.Errorf("complete recall warned anyway:\n%s", r.text())
	}
}
