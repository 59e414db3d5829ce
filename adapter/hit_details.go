package adapter

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/schemaindex"
)

// The RS's search hits carry no title and no event time (the real RS gives
// emitted_at, the ingest time, and nothing else), so "when did Priya email
// me?" used to cost a fetch per hit (issue 24.5). A search page now reads
// each hit's title and event-time fields — and only those — from the
// record detail route, in parallel, bounded by FanOutConcurrency and by
// Waits.HitTitles; a hit whose read fails or runs out of time keeps the
// fallback title (source / stream / ingested time).

// maxEventTime bounds the event time a hit shows: a timestamp is far
// shorter; a misnamed field's long text is not shown whole.
const maxEventTime = 40

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
		switch rankByName(n) {
		case rankTitle:
			f.title = orName(f.title, n)
		case rankTime:
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
// that lacks one, and retitles it. Failures leave the fallback title.
// Hits whose record was read in the last hitDetailTTL are titled from the
// cache at once; only the others start a read (a repeated or paged search
// starts none).
func (s *Server) fillHitDetails(ctx context.Context, fields *streamFields, p *searchPage) {
	// A page is never held long for its titles: Waits.HitTitles bounds
	// them all, and Waits.Source caps that when smaller.
	ctx, cancel := within(ctx, titleWait(s.cfg.Waits))
	defer cancel()
	var wg sync.WaitGroup
	var sem chan struct{}
	for i := range p.hits {
		h := &p.hits[i]
		// The stream's fields are picked here, on this goroutine: the
		// reads below run concurrently and must not touch fields' map.
		stream := fields.of(*h)
		titleField, want := stream.title, readFor(stream, *h)
		if (want.title == "" && want.time == "") || h.grant.Bearer == "" {
			continue
		}
		key := hitDetailKey(h, want)
		if d, err, ok := s.hitDetails.c.Peek(key); ok {
			if err == nil {
				h.applyDetails(d, want, titleField)
			}
			continue
		}
		if sem == nil {
			sem = make(chan struct{}, s.cfg.FanOutConcurrency)
		}
		wg.Go(func() {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			d, err := s.readHitDetail(ctx, h, want, key)
			if err != nil {
				return // the fallback title stays
			}
			h.applyDetails(d, want, titleField)
		})
	}
	wg.Wait()
}

// applyDetails sets the hit's title and event time from its record's
// title and event-time text; titleField is the stream's title field.
func (h *searchHit) applyDetails(d hitDetail, want hitFields, titleField string) {
	if d.time != "" {
		h.EventTime, _ = contentladder.TruncateRunes(oneLine(d.time), maxEventTime)
	}
	if title := oneLine(d.title); want.title != "" && title != "" {
		h.Title = title
		return
	}
	h.Title = hitTitle(*h, titleField) // with the event time now read
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

// titleWait is how long a page waits for its titles: Waits.HitTitles, or
// Waits.Source when that is smaller; Unbounded only when both are.
func titleWait(w Waits) time.Duration {
	switch {
	case w.HitTitles < 0:
		return w.Source
	case w.Source < 0:
		return w.HitTitles
	}
	return min(w.HitTitles, w.Source)
}
