package adapter

import (
	"context"
	"time"
)

// Waits bounds how long one tool call waits for reads that refine its
// answer but are not the answer: a search hit's title, a stream's
// capability probe, the RS's search metadata, and each grant's part of a
// search fan-in. A read that outlasts its wait leaves its part of the page
// to a stated fallback (a fallback title, "could not be checked now", a
// per-source warning) instead of holding the whole answer.
//
// A zero field takes its default. Unbounded waits as long as the read
// takes (the RS client's own timeout still ends each request): a page
// then never depends on how fast the machine answered, which is what a
// golden file or an oracle test needs.
type Waits struct {
	// HitTitles bounds a search page's title reads. Default 2s.
	HitTitles time.Duration
	// CapabilityProbe bounds schema(stream)'s first-time probes. Default 3s.
	CapabilityProbe time.Duration
	// SearchMetadata bounds a read of the RS's protected-resource metadata
	// that only names the search modes. Default 2s.
	SearchMetadata time.Duration
	// Source bounds each grant's part of a fan-in (search), so one slow
	// grant degrades to a warning instead of stalling the answer. Default 8s.
	Source time.Duration
	// Call bounds one tool call (or resource read) as a whole: every RS
	// request it makes, one after another, shares it, so a resource
	// server that accepts and never answers costs a call this long — a
	// typed rs_timeout error — not the RS client's per-request timeout
	// once per sequential request. Default 15s (that per-request timeout).
	Call time.Duration
}

// Unbounded, as a Waits field, waits for the read however long it takes.
const Unbounded time.Duration = -1

// UnboundedWaits waits for every refining read: pages then do not depend
// on the machine's speed.
var UnboundedWaits = Waits{HitTitles: Unbounded, CapabilityProbe: Unbounded, SearchMetadata: Unbounded, Source: Unbounded, Call: Unbounded}

// defaultWaits are the waits of a zero Waits.
var defaultWaits = Waits{HitTitles: 2 * time.Second, CapabilityProbe: 3 * time.Second,
	SearchMetadata: 2 * time.Second, Source: 8 * time.Second, Call: 15 * time.Second}

// withDefaults fills each zero field from defaultWaits.
func (w Waits) withDefaults() Waits {
	for _, f := range []struct {
		have *time.Duration
		def  time.Duration
	}{
		{&w.HitTitles, defaultWaits.HitTitles}, {&w.CapabilityProbe, defaultWaits.CapabilityProbe},
		{&w.SearchMetadata, defaultWaits.SearchMetadata}, {&w.Source, defaultWaits.Source},
		{&w.Call, defaultWaits.Call},
	} {
		if *f.have == 0 {
			*f.have = f.def
		}
	}
	return w
}

// within is ctx bounded by wait d; an Unbounded (negative) d adds no
// deadline.
func within(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d < 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}
