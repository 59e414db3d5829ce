package page

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/contentladder"
)

// genSearchRead is one random merged page's reads: 0–100 hits from up to
// four connections, ids of 1–120 bytes, long titles and densely marked
// snippets.
func genSearchRead(rng *rand.Rand) SearchRead {
	r := SearchRead{HasMore: rng.IntN(2) == 0}
	if r.HasMore {
		r.NextCursor = genID(rng, 40+rng.IntN(700))
	}
	if rng.IntN(4) == 0 {
		r.Warnings = append(r.Warnings, Warning{Code: "source_unavailable", Message: genText(rng, rng.IntN(1000))})
	}
	for range rng.IntN(101) {
		conn := fmt.Sprintf("cin_%024d", rng.IntN(4))
		var snippet strings.Builder
		for snippet.Len() < rng.IntN(400) {
			w := genText(rng, 1+rng.IntN(8))
			if rng.IntN(3) == 0 {
				w = "<mark>" + w + "</mark>"
			}
			snippet.WriteString(w + " ")
		}
		r.Hits = append(r.Hits, Hit{Ref: contentladder.RecordRef{ConnectionID: conn, Stream: "messages", RecordID: genID(rng, 1+rng.IntN(120))},
			ConnectionID: conn, ConnectorKey: "gmail", Display: genText(rng, rng.IntN(80)), ReadTitle: genText(rng, rng.IntN(300)),
			SnippetField: "body", Snippet: snippet.String(), EmittedAt: "2026-01-01T00:00:00Z"})
	}
	return r
}

// Property: whatever the page, every hit is in the text with its fetch id
// and title, and the text is within 2,000 B + 250 B × hits.
func TestSearchTextShowsEveryHitWithinBudget(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(12, 2026))
	heldPages := 0
	for iter := range 60 {
		r := genSearchRead(rng)
		if iter%4 == 0 {
			// A warning full of quotes (a retry call quoted in it): JSON
			// escapes each in structuredContent, so that channel's warning
			// is longer than the text's.
			r.Warnings = append(r.Warnings, Warning{Code: "search_coverage", Message: strings.Repeat(`"a" `, 40+rng.IntN(160))})
		}
		n, cursor := len(r.Hits), r.NextCursor
		ceiling := []int{0, defaultMaxResultBytes, minMaxResultBytes}[iter%3]
		if ceiling > 0 {
			// One source: a page of k hits continues at hit k.
			more := r.HasMore
			r.Bytes = ceiling
			r.Resume = func(shown int) (bool, string) {
				if shown == n && !more {
					return false, ""
				}
				return true, cursor + "-after-" + strconv.Itoa(shown)
			}
		}
		p := newSearchPage(r)
		if ceiling > 0 {
			if len(p.hits)+p.held != n || (p.held > 0 && (!p.hasMore || p.nextCursor != cursor+"-after-"+strconv.Itoa(len(p.hits)))) {
				t.Fatalf("iter %d: %d shown + %d held of %d hits, has_more=%t", iter, len(p.hits), p.held, n, p.hasMore)
			}
			if p.held > 0 {
				heldPages++
			}
		}
		text := p.text()
		budget := searchTextBudget(len(p.hits))
		if ceiling > 0 {
			budget = min(budget, ceiling)
			if p.held > 0 {
				budget = ceiling
			}
		}
		if len(text) > budget {
			t.Fatalf("iter %d: %d hits, text %d B > budget %d", iter, len(p.hits), len(text), budget)
		}
		for i, h := range p.hits {
			if !strings.Contains(text, fmt.Sprintf("\n%d. %s \"", i+1, h.Ref.ID())) {
				t.Fatalf("iter %d: hit %d (%s) missing from text", iter, i+1, h.Ref.ID())
			}
		}
		if p.nextCursor != "" && !strings.Contains(text, "next_cursor="+p.nextCursor) {
			t.Fatalf("iter %d: next_cursor missing", iter)
		}
		if strings.Contains(text, "structuredContent") {
			t.Fatalf("iter %d: text defers to structuredContent", iter)
		}
		checkSearchChannelsAgree(t, iter, p, text)
	}
	if heldPages == 0 {
		t.Fatal("no page passed the ceiling: the held path went untested")
	}
}

// checkSearchChannelsAgree: structuredContent is within the same budget
// and lists exactly the text's hits in order, each with the title and
// snippet its line shows, and the same handles.
func checkSearchChannelsAgree(t *testing.T, iter int, p *searchPage, text string) {
	t.Helper()
	sc := MarshalNoEscape(p.structured())
	budget := searchTextBudget(len(p.hits))
	if p.ceiling > 0 {
		budget = min(budget, p.ceiling)
		if p.held > 0 {
			budget = p.ceiling
		}
	}
	if len(sc) > budget {
		t.Fatalf("iter %d: %d hits, structuredContent %d B > budget %d", iter, len(p.hits), len(sc), budget)
	}
	var got searchResult
	if err := json.Unmarshal(sc, &got); err != nil {
		t.Fatalf("iter %d: structuredContent is not JSON: %v", iter, err)
	}
	if len(got.Hits) != len(p.hits) || got.NextCursor != p.nextCursor {
		t.Fatalf("iter %d: %d of %d hits, cursor %q", iter, len(got.Hits), len(p.hits), got.NextCursor)
	}
	for i, h := range got.Hits {
		line := fmt.Sprintf("\n%d. %s %s", i+1, h[0], strconv.Quote(h[1]))
		if !strings.Contains(text, line) || !strings.Contains(text, h[4]) {
			t.Fatalf("iter %d: hit %d differs between the channels: %q", iter, i+1, h)
		}
	}
}
