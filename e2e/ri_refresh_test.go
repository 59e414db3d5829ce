package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/internal/ritest"
)

// TestRISearchContinuesAcrossARefresh: the RI binds its search cursor to
// the token's grant authority, and the refreshed token of the same grant
// may get 400 invalid_cursor "Cursor does not match this query and grant
// authority" for it (always on the long-running anchor RI; on a freshly
// started one in some runs and not others — the test logs which, by
// asking the RS directly). Through `serve`, a search begun under one
// token and continued by a host that refreshed its token (a new session
// with the new token) shows exactly the hits, in the order, that paging
// under one token shows — every kayak-itinerary message once for lexical
// — with no warning that the ranking moved.
func TestRISearchContinuesAcrossARefresh(t *testing.T) {
	t.Parallel()
	ri := ritest.Shared(t)
	tok := riMint(t, ri, ritest.MintOptions{})
	provider := riContractProxy(t, ri.RSURL)
	endpoint := riServe(t, provider)
	first := &textClient{t: t, s: connectHTTP(t, endpoint, tok.AccessToken, defaultProtocol), r: textReader{}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	refreshed, err := ri.Refresh(ctx, tok)
	if err != nil {
		t.Fatalf("refresh: %v", err)
	}
	if refreshed.GrantID != tok.GrantID || refreshed.AccessToken == tok.AccessToken {
		t.Fatalf("the refresh must keep the grant and change the token: %s→%s", tok.GrantID, refreshed.GrantID)
	}
	t.Logf("the RI refuses a search cursor of the token before the refresh under the refreshed one: %s", riCursorRefusal(t, ri.RSURL, tok.AccessToken, refreshed.AccessToken))
	second := &textClient{t: t, s: connectHTTP(t, endpoint, refreshed.AccessToken, defaultProtocol), r: textReader{}}
	for _, tc := range []struct {
		mode  string
		limit int
	}{{"lexical", 2}, {"semantic", 2}, {"semantic", 20}} {
		// At limit 20 the RI's semantic snapshot holds 30 records per
		// connection, not 25: the re-issued search must ask for the same.
		mode := tc.mode
		args := map[string]any{"q": "kayak itinerary", "mode": mode, "limit": tc.limit}
		want, _ := riPageSearch(t, first, first, args)
		got, warned := riPageSearch(t, first, second, args)
		if diff := cmp.Diff(want, got); diff != "" || len(want) < 3 {
			t.Errorf("%s: hits paged across the refresh differ from one token's (-one token +refreshed):\n%s", mode, diff)
		}
		if warned {
			t.Errorf("%s: a continuation over unchanged data warns that the ranking moved", mode)
		}
		if d := duplicates(got); len(d) > 0 {
			t.Errorf("%s: hits shown twice across the refresh: %v", mode, d)
		}
		if mode == "lexical" {
			var keys []string
			for _, id := range got {
				keys = append(keys, recordKey(id))
			}
			sameSet(t, "lexical kayak itinerary hits across the refresh", slices.Clone(ri.Truth.KayakItinerary), keys)
		}
		t.Logf("%s, limit %d: %d hits paged across the refresh", mode, tc.limit, len(got))
	}
}

// riPageSearch runs a search's first page with first and every later page
// with rest, and returns the hit ids in order and whether any page said
// the search restarted over moved results.
func riPageSearch(t *testing.T, first, rest *textClient, args map[string]any) ([]string, bool) {
	t.Helper()
	c, warned := first, false
	var ids []string
	for range 60 {
		page := c.must("search", args)
		for _, m := range ctHitLine.FindAllStringSubmatch(page, -1) {
			ids = append(ids, m[1])
		}
		warned = warned || strings.Contains(page, "search_restarted")
		m := ctNextCursor.FindStringSubmatch(page)
		if m == nil {
			return ids, warned
		}
		c, args = rest, map[string]any{"cursor": m[1]}
	}
	t.Fatal("the search did not end in 60 pages")
	return nil, false
}

// riCursorRefusal asks the RI's RS directly whether it continues a search
// cursor issued to before under the token after: the answer says whether
// this run exercised the adapter's re-issued search (the shared anchor RI
// refuses, 400 invalid_cursor; an RI started fresh may not).
func riCursorRefusal(t *testing.T, rsURL, before, after string) string {
	t.Helper()
	get := func(tok, query string) (int, map[string]any) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, rsURL+"/v1/search?"+query, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+tok)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var body map[string]any
		_ = json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&body)
		return res.StatusCode, body
	}
	_, first := get(before, "q=kayak+itinerary&limit=2")
	cur, _ := first["next_cursor"].(string)
	if cur == "" {
		return "no cursor to try"
	}
	status, body := get(after, "q=kayak+itinerary&limit=2&cursor="+url.QueryEscape(cur))
	if status == http.StatusOK {
		return "no (200)"
	}
	return fmt.Sprintf("yes (%d %v)", status, body["error"])
}
