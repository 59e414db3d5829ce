package adapter_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// pageSearch pages a search to its end through the env's client and
// returns the hit ids in order and every warning line.
func pageSearch(t *testing.T, e *env, args map[string]any) ([]string, []string) {
	t.Helper()
	var ids, warns []string
	for page := 0; page < 60; page++ {
		p := decodeSearchPage(t, e.c.call("search", args))
		for _, h := range p.Hits {
			ids = append(ids, h[0])
		}
		warns = append(warns, p.Warnings...)
		if p.NextCursor == "" {
			return ids, warns
		}
		args = map[string]any{"cursor": p.NextCursor}
	}
	t.Fatal("search did not end in 60 pages")
	return nil, nil
}

// duplicates are the ids that occur more than once.
func duplicates(ids []string) []string {
	seen := map[string]int{}
	var out []string
	for _, id := range ids {
		if seen[id]++; seen[id] == 2 {
			out = append(out, id)
		}
	}
	return out
}

// TestSearchShowsAHitOnceAcrossOverlappingGrants: two cached grants cover
// the Work Gmail connection (the full grant and a narrow one inside it).
// A search without connection_id shows every hit once, on every page,
// whatever the cache order: the same hits the full grant alone finds.
func TestSearchShowsAHitOnceAcrossOverlappingGrants(t *testing.T) {
	t.Parallel()
	alone := newEnv(t, testenv.Options{}, demodata.GmailToken)
	for _, q := range []string{"invoice", "roadmap"} {
		for _, limit := range []int{4, 100} {
			args := func() map[string]any { return map[string]any{"q": q, "limit": limit} }
			want, _ := pageSearch(t, alone, args())
			slices.Sort(want)
			for name, order := range map[string][]string{
				"narrow first": {demodata.GmailRestrictedToken, demodata.GmailToken},
				"full first":   {demodata.GmailToken, demodata.GmailRestrictedToken},
			} {
				e := newEnv(t, testenv.Options{}, order...)
				got, warns := pageSearch(t, e, args())
				if d := duplicates(got); len(d) > 0 {
					t.Errorf("%s, q=%s limit=%d: %d hits shown more than once, e.g. %s", name, q, limit, len(d), d[0])
				}
				slices.Sort(got)
				if diff := cmp.Diff(want, slices.Compact(got)); diff != "" {
					t.Errorf("%s, q=%s limit=%d: hits differ from the full grant's (-full +overlap):\n%s", name, q, limit, diff)
				}
				if slices.ContainsFunc(warns, func(w string) bool { return strings.Contains(w, "grant_chosen") }) {
					t.Errorf("%s: the full grant covers the narrow one, no grant to choose: %q", name, warns)
				}
			}
		}
	}
}

// TestSearchOverIncomparableGrantsSaysWhichAnswered: two grants serve the
// Work connection and neither covers the other. A search shows each hit
// once, says which grant's hits it shows and names the grant_id that
// searches the other; that call works and shows the other grant's hits;
// a grant_id that serves nothing searched is refused with the ones that do.
func TestSearchOverIncomparableGrantsSaysWhichAnswered(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{Dataset: datasetWithSideGrant(t)}, demodata.GmailRestrictedToken, sideGrantToken)
	args := map[string]any{"q": "invoice", "limit": 5}
	ids, warns := pageSearch(t, e, args)
	if d := duplicates(ids); len(d) > 0 || len(ids) == 0 {
		t.Errorf("%d hits, %d shown more than once", len(ids), len(d))
	}
	if len(warns) == 0 || !strings.Contains(warns[0], "grant_chosen") || !strings.Contains(warns[0], "grant_id "+sideGrantID) {
		t.Fatalf("the page must say which grant answered and how to search the other: %q", warns)
	}
	side, sideWarns := pageSearch(t, e, map[string]any{"q": "invoice", "limit": 5, "grant_id": sideGrantID})
	if len(side) == 0 || slices.ContainsFunc(sideWarns, func(w string) bool { return strings.Contains(w, "grant_chosen") }) {
		t.Errorf("grant_id %s: %d hits, warnings %q", sideGrantID, len(side), sideWarns)
	}
	restricted, _ := pageSearch(t, e, map[string]any{"q": "invoice", "limit": 5, "grant_id": demodata.GmailRestrictedGrantID})
	if diff := cmp.Diff(ids, restricted); diff != "" {
		t.Errorf("the default search shows grant %s's hits, as it says (-default +grant_id):\n%s", demodata.GmailRestrictedGrantID, diff)
	}
	bad := e.c.call("search", map[string]any{"q": "invoice", "grant_id": demodata.SlackGrantID})
	if code := bad.errorCode(t); code != "unknown_grant" || !strings.Contains(bad.text(), sideGrantID) || strings.Contains(bad.text(), `stream \"\"`) {
		t.Errorf("a grant_id of no cached grant: %s", bad.text())
	}
	// A cursor keeps its grant_id: a different one is refused.
	first := decodeSearchPage(t, e.c.call("search", map[string]any{"q": "invoice", "limit": 1, "grant_id": sideGrantID}))
	if r := e.c.call("search", map[string]any{"cursor": first.NextCursor, "grant_id": demodata.GmailRestrictedGrantID}); r.errorCode(t) != "invalid_cursor" {
		t.Errorf("a cursor continued under another grant_id: %s", r.text())
	}
}
