package adapter_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// searchPageOf is what the paging tests read of a search page: its hit
// ids, warnings and next cursor, from the structuredContent a host hands
// the model.
type searchPageOf struct {
	Hits       [][5]string `json:"hits"`
	Warnings   []string    `json:"warnings"`
	NextCursor string      `json:"next_cursor"`
}

func decodeSearchPage(t *testing.T, r toolResult) searchPageOf {
	t.Helper()
	if r.IsError {
		t.Fatalf("search failed: %s", r.text())
	}
	var p searchPageOf
	if err := json.Unmarshal(r.StructuredContent, &p); err != nil {
		t.Fatalf("structuredContent: %v\n%s", err, r.StructuredContent)
	}
	return p
}

// pageSearchAcross pages a search to its end, each page under the bearer that
// token(page) names, and returns the hit ids in order and every warning.
func pageSearchAcross(t *testing.T, srv *adapter.Server, first map[string]any, token func(page int) string) ([]string, []string) {
	t.Helper()
	var ids, warns []string
	args := first
	for page := 0; page < 100; page++ {
		p := decodeSearchPage(t, hostedCall(t, srv, token(page), "search", args))
		for _, h := range p.Hits {
			ids = append(ids, h[0])
		}
		warns = append(warns, p.Warnings...)
		if p.NextCursor == "" {
			return ids, warns
		}
		args = map[string]any{"cursor": p.NextCursor}
	}
	t.Fatalf("search did not end in 100 pages")
	return nil, nil
}

// TestSearchContinuesAcrossTokenRefreshes: the reference RS binds its
// search cursor to the token that began the search, so a host's refreshed
// token of the same grant gets 400 invalid_cursor for it (measured on the
// reference; the mock does the same). The adapter's cursor still continues under the new
// token: the search is run again and the hits already shown are skipped,
// so paging with a new token on every page gives exactly the hits, in the
// order, that paging under one token gives — none repeated, none missed,
// and no warning that the ranking moved.
func TestSearchContinuesAcrossTokenRefreshes(t *testing.T) {
	t.Parallel()
	rs := testenv.StartRS(t, testenv.Options{})
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := adapter.New(adapter.Config{RS: rc, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args map[string]any
	}{
		{"lexical over both connections", map[string]any{"q": "invoice", "limit": 2}},
		{"lexical, one connection, pages past one RS page", map[string]any{"q": "the", "limit": 40, "connection_id": demodata.GmailWorkConnectionID}},
		{"semantic", map[string]any{"q": "project update", "mode": "semantic", "limit": 20}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			want, warns := pageSearchAcross(t, srv, tc.args, func(int) string { return demodata.GmailToken })
			if len(want) < 3 || restarted(warns) {
				t.Fatalf("the proof needs several pages and no restart: %d hits, warnings %q", len(want), warns)
			}
			got, warns := pageSearchAcross(t, srv, tc.args, func(page int) string {
				if page == 0 {
					return demodata.GmailToken
				}
				m, err := rs.Server.MintClientToken(demodata.GmailGrantID) // the host refreshed
				if err != nil {
					t.Fatal(err)
				}
				return m.AccessToken
			})
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("hits paged across refreshes differ from one token's (-one token +refreshed):\n%s", diff)
			}
			if restarted(warns) {
				t.Errorf("a continuation over unchanged data warns that the ranking moved: %q", warns)
			}
		})
	}
}

// restarted reports whether a page said its search ran again over
// results that moved.
func restarted(warns []string) bool {
	return slices.ContainsFunc(warns, func(w string) bool { return strings.Contains(w, "search_restarted") })
}

// TestSearchRestartSaysWhenTheRankingMoved: when the re-issued search no
// longer has the last hit shown where it was (the data changed between
// the pages), the continued page says a hit may repeat or be missing.
func TestSearchRestartSaysWhenTheRankingMoved(t *testing.T) {
	t.Parallel()
	var reversed atomic.Bool
	rs := testenv.StartRS(t, testenv.Options{Raw: reverseSearchHits(&reversed)})
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := adapter.New(adapter.Config{RS: rc, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	first := decodeSearchPage(t, hostedCall(t, srv, demodata.GmailToken, "search", map[string]any{"q": "invoice", "limit": 2, "connection_id": demodata.GmailWorkConnectionID}))
	if first.NextCursor == "" {
		t.Fatalf("the proof needs a second page")
	}
	m, err := rs.Server.MintClientToken(demodata.GmailGrantID)
	if err != nil {
		t.Fatal(err)
	}
	reversed.Store(true) // the ranking changed since the first page
	r := hostedCall(t, srv, m.AccessToken, "search", map[string]any{"cursor": first.NextCursor})
	next := decodeSearchPage(t, r)
	if len(next.Warnings) != 1 || !strings.Contains(next.Warnings[0], "search_restarted") || !strings.Contains(next.Warnings[0], "may repeat or be missing") ||
		!strings.Contains(r.text(), "may repeat or be missing") {
		t.Errorf("the moved ranking is not said:\n%s\n%s", r.text(), r.StructuredContent)
	}
}

// reverseSearchHits wraps the mock RS so that, once on is set, a search
// page's hits come in reverse order.
func reverseSearchHits(on *atomic.Bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !on.Load() || !strings.HasPrefix(r.URL.Path, "/v1/search") {
				next.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			var body map[string]json.RawMessage
			var data []json.RawMessage
			if json.Unmarshal(rec.Body.Bytes(), &body) == nil && json.Unmarshal(body["data"], &data) == nil {
				for i, j := 0, len(data)-1; i < j; i, j = i+1, j-1 {
					data[i], data[j] = data[j], data[i]
				}
				body["data"], _ = json.Marshal(data)
				b, _ := json.Marshal(body)
				rec.Body = bytes.NewBuffer(b)
			}
			for k, v := range rec.Header() {
				if k != "Content-Length" {
					w.Header()[k] = v
				}
			}
			w.WriteHeader(rec.Code)
			_, _ = w.Write(rec.Body.Bytes())
		})
	}
}
