package adapter

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pdpp/pdpp-mcp/internal/softcache"
	"github.com/pdpp/pdpp-mcp/page"
	"github.com/pdpp/pdpp-mcp/schemaindex"
)

// The RS's search hits carry no title and no event time (the real RS gives
// emitted_at, the ingest time, and nothing else), so "when did Priya email
// me?" used to cost a fetch per hit (R-7). A search page now reads
// each hit's title and event-time fields — and only those — from the
// record detail route, all at once, bounded by the process's
// refining-read limit and by a budget of about one round trip
// (titleBudget); a hit whose read fails or runs out of time keeps the
// fallback title (source / stream / ingested time), marked when the read
// was only late.

// hitFields are the two members a hit's line wants from its record.
type hitFields struct {
	title, time string
}

// names lists the fields to project, title first; empty when the stream
// has neither.
func (f hitFields) names() []string {
	var out []string
	for _, n := range []string{f.title, f.time} {
		if n != "" {
			out = append(out, n)
		}
	}
	return out
}

// pickHitFields chooses a stream's title and event-time fields as list
// pages order members: by declared role, else (the real RS declares no
// roles to client tokens, D1) by what the names suggest. Each role is
// looked up on its own, so a schema that types its timestamps but marks no
// title still finds "subject" by name.
func pickHitFields(roles map[string]string, names []string) hitFields {
	var f hitFields
	for _, n := range names {
		switch roles[n] {
		case "primary-title":
			f.title = orName(f.title, n)
		case "event-time":
			f.time = orName(f.time, n)
		}
	}
	for _, n := range names {
		switch page.RankByName(n) {
		case page.RankTitle:
			f.title = orName(f.title, n)
		case page.RankTime:
			f.time = orName(f.time, n)
		}
	}
	return f
}

// orName keeps have when set, else takes n.
func orName(have, n string) string {
	if have != "" {
		return have
	}
	return n
}

// streamFields picks each (connection, stream)'s title and event-time
// fields once per page: a page's hits share a few streams, and picking
// ranks every field name of the stream. Not safe for concurrent use: the
// page is built, and its title reads started, on one goroutine, which
// hands each read the field names it needs.
type streamFields struct {
	ix *schemaindex.Index
	m  map[string]hitFields
}

func newStreamFields(ix *schemaindex.Index) *streamFields {
	return &streamFields{ix: ix, m: map[string]hitFields{}}
}

// of is the title and event-time fields of hit h's stream.
func (f *streamFields) of(h searchHit) hitFields {
	if f == nil || f.ix == nil {
		return hitFields{}
	}
	key := h.ConnectionID + "\x00" + h.Ref.Stream
	got, ok := f.m[key]
	if !ok {
		got = pickHitFields(f.ix.FieldRoles(h.Ref.Stream, h.ConnectionID), f.ix.FieldNames(h.Ref.Stream, h.ConnectionID))
		f.m[key] = got
	}
	return got
}

// readFor is what to read of hit h given its stream's fields f: the title
// and event-time fields, less the title when the snippet is that field:
// then the snippet either is the whole title already (hitTitle) or was
// cut, and a field too long for its snippet is no title — message bodies
// carry the primary-title role in the demo manifests, and reading a
// 50,000-character body for a 90-character title is not worth its bytes.
func readFor(f hitFields, h searchHit) hitFields {
	if f.title == h.SnippetField {
		f.title = ""
	}
	return f
}

// fillHitDetails reads the title and event time of every hit on the page
// that lacks one and keeps them on the hit (the page titles it from them).
// Every read starts at once (one wave: a first page costs the search plus
// one round trip), under the process's refining-read limit; hits whose
// record was read in the last hitDetailTTL take theirs from the cache and
// read nothing. A read that fails leaves the fallback title; one still
// running when the page's title budget
// (titleBudget) ends leaves it too, marked as pending (markPending), and
// goes on filling the cache for the next page. searchTook is how long the
// page's search took: the budget is measured in it. The page's warning
// about pending titles is returned, not added: the caller adds it once
// every other refinement of the page is done.
func (s *Server) fillHitDetails(ctx context.Context, fields *streamFields, p *searchPage, searchTook time.Duration) []warning {
	budget, cancel := within(ctx, titleBudget(s.cfg.Waits, searchTook))
	defer cancel()
	type titleRead struct {
		hit  int // index in p.hits
		read hitDetailRead
	}
	var reads []titleRead
	for i := range p.hits {
		h := &p.hits[i]
		// The stream's fields are picked here, on this goroutine: the
		// reads below run concurrently and must not touch fields' map.
		want := readFor(fields.of(*h), *h)
		if (want.title == "" && want.time == "") || h.grant.Bearer == "" {
			continue
		}
		reads = append(reads, titleRead{hit: i, read: newHitDetailRead(h, want)})
	}
	// Reads that bring a title go first: an RS that serves a wave one read
	// after another (the reference RS) then spends the budget on the
	// titles a line shows, not on event times alone.
	slices.SortStableFunc(reads, func(a, b titleRead) int {
		return cmp.Compare(titleLast(a.read.want), titleLast(b.read.want))
	})
	// Every read starts before any wait begins; each runs detached, so one
	// still running at the budget goes on filling the cache, and no
	// goroutine of this page waits for it after the page is due. Each read
	// is handed copies of what it needs (hitDetailRead), never the page.
	started := make([]softcache.Started[hitDetail], len(reads))
	for j, r := range reads {
		started[j] = s.startHitDetail(ctx, r.read)
	}
	pending := make([]bool, len(p.hits))
	for j, r := range reads {
		// The waits share the budget's one deadline: waiting for them
		// one after another ends when the last read or the budget does.
		d, err := started[j].Wait(budget)
		if err != nil {
			// Still running at the budget (the budget's own error then):
			// the fallback title stays, and says so when it stands for a
			// title.
			pending[r.hit] = r.read.want.title != "" && err == budget.Err()
			continue
		}
		p.hits[r.hit].applyDetails(d, r.read.want)
	}
	return p.markPending(pending)
}

// titleLast orders reads that bring a title (0) before those that read
// only an event time (1).
func titleLast(want hitFields) int {
	if want.title != "" {
		return 0
	}
	return 1
}

// titlesPendingCode is the page warning of hits whose title read outlasted
// the page's title budget.
const titlesPendingCode = page.TitlesPendingCode

// markPending marks every pending hit, whose stand-in title the page
// starts with page.PendingTitleMark, and returns the one warning that
// says what the mark means and how to get the titles (none when no title
// is pending).
func (p *searchPage) markPending(pending []bool) []warning {
	marked := false
	for i, yes := range pending {
		if yes {
			p.hits[i].TitlePending = true
			marked = true
		}
	}
	if !marked {
		return nil
	}
	// The marks say which hits; the warning (whole at any page size, and
	// true of whichever hits the result ceiling keeps) says what they mean.
	return []warning{{Code: titlesPendingCode, Message: fmt.Sprintf(
		"a hit marked %q had its title not read in time and shows source / stream / time instead; the reads go on, and the same search again shows the titles (or fetch(id))",
		strings.TrimSpace(page.PendingTitleMark))}}
}

// applyDetails keeps what the hit's record read gave: its event-time
// text, and its title text where the title was asked for. The page
// titles the hit from them.
func (h *searchHit) applyDetails(d hitDetail, want hitFields) {
	h.ReadTime = d.time
	if want.title != "" {
		h.ReadTitle = d.title
	}
}

// scalarText is a JSON string's text or a number's literal; "" for
// anything else (null, objects, arrays, absent).
func scalarText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// titleWait is the longest a page waits for its titles: Waits.HitTitles,
// or Waits.Source when that is smaller; Unbounded only when both are.
func titleWait(w Waits) time.Duration {
	switch {
	case w.HitTitles < 0:
		return w.Source
	case w.Source < 0:
		return w.HitTitles
	}
	return min(w.HitTitles, w.Source)
}

// minTitleBudget is the least a page waits for its titles, however fast
// its search was: on loopback a search can take a millisecond, and the
// RS still needs a few to serve the page's reads at once.
const minTitleBudget = 25 * time.Millisecond

// titleBudget is how long a page waits for its titles: about one more
// round trip than its search took — one and a half times the search's
// time, since the title wave is one round trip plus the RS serving the
// page's reads at once, and a record read costs an RS less than a search
// — never less than minTitleBudget and never more than titleWait. So a
// first page costs about two and a half searches wherever the RS is. An
// RS that serves reads one after another (the reference RS: one Node
// process, about 6–10 ms a read) titles the first hits in that time and
// leaves the rest marked pending; their reads go on and fill the cache,
// so the same search again is titled whole, and --wait-for-details waits
// for every title. Unbounded waits (tests, --wait-for-details) stay
// unbounded, so no page depends on the machine's speed there.
func titleBudget(w Waits, searchTook time.Duration) time.Duration {
	limit := titleWait(w)
	if limit < 0 {
		return limit
	}
	return min(limit, max(minTitleBudget, searchTook*3/2))
}
