package adapter

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/pdpp/pdpp-mcp/internal/fanout"
	"github.com/pdpp/pdpp-mcp/internal/softcache"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/schemaindex"
)

// Why a probe and not rules. The real RS sorts a client token's read only
// on the manifest's cursor field and aggregates only what the manifest's
// query.aggregations declares (reference implementation:
// server/aggregate-request-validation.ts, requireDeclaredAggregate and
// validateCountMetric; D18), yet it shows a client token neither the
// cursor field nor the declarations (D1). Rules read from its source say
// *which kind* of field can work but not *which field* does, so any rule
// is a guess by name, and guesses misfired (2 of 4 on message_bodies on
// the reference RS, D18). A probe asks the RS the exact call the text will
// suggest, so a suggestion is one the RS has just accepted.
const (
	// probeTTL: a manifest changes with a connector release, not per call.
	probeTTL = 10 * time.Minute
	// probeRetryTTL: a probe set with unanswered calls is asked again soon.
	probeRetryTTL     = schemaErrorTTL
	probeCacheEntries = 4096
)

// probeCache holds each (grant, stream, connection scope)'s probe.
type probeCache struct {
	c *softcache.Cache[*schemaindex.Probe]
}

func newProbeCache(now func() time.Time) *probeCache {
	return &probeCache{c: softcache.New[*schemaindex.Probe](softcache.Options{
		TTL: probeTTL, ErrorTTL: -1, MaxEntries: probeCacheEntries, FetchTimeout: docFetchTimeout, Now: now,
	})}
}

// learnCapabilities fills each source of view whose schema advertises
// nothing with a probe of the RS, all at once, within
// Waits.CapabilityProbe of ctx (the probes go on and fill the cache for
// the next call). A source whose probe is not done in time keeps Probe
// nil: the text then says "could not be checked now", never "none".
func (s *Server) learnCapabilities(ctx context.Context, set *sourceSet, view *schemaindex.StreamView) {
	ctx, cancel := within(ctx, s.cfg.Waits.CapabilityProbe)
	defer cancel()
	var probed []*schemaindex.StreamSource // the sources to probe
	var grants []Grant                     // each one's grant
	for i := range view.Sources {
		src := &view.Sources[i]
		if !src.NeedsProbe() {
			continue
		}
		if g := grantByKey(set.grants, src.GrantKey); g.Bearer != "" {
			probed, grants = append(probed, src), append(grants, g)
		}
	}
	probes, errs := fanout.Run(ctx, len(probed), fanout.Options{}, func(ctx context.Context, i int) (*schemaindex.Probe, error) {
		g, src := grants[i], probed[i]
		return s.probes.c.Get(ctx, probeKey(g, view.Stream, view.ConnectionID), func(ctx context.Context) (*schemaindex.Probe, time.Time, error) {
			p := s.probe(ctx, g, view.Stream, view.ConnectionID, src.ProbeFields())
			var exp time.Time
			if !p.Checked {
				exp = s.now().Add(probeRetryTTL)
			}
			return p, exp, nil
		})
	})
	for i, src := range probed {
		if errs[i] == nil {
			src.Probe = probes[i]
		}
	}
}

// probeOutcome is one probe call's answer: accepted, refused (a 400: the
// RS does not take this call), or unknown (anything else).
type probeOutcome int

const (
	probeUnknown probeOutcome = iota
	probeAccepted
	probeRefused
)

func outcomeOf(err error) probeOutcome {
	var rsErr *rsclient.Error
	switch {
	case err == nil:
		return probeAccepted
	case errors.As(err, &rsErr) && rsErr.Status == http.StatusBadRequest:
		return probeRefused
	}
	return probeUnknown
}

// probe tries, all at once (bounded by the process's refining-read
// limit), metric count and, per time-like field, a one-record sorted
// read, a count by month and a max: each exactly the call the text would
// suggest, with limit 1 and a one-field projection where the call reads
// records.
func (s *Server) probe(ctx context.Context, g Grant, stream, connectionID string, fields []string) *schemaindex.Probe {
	type call struct {
		kind, field string
		run         func(ctx context.Context) error
	}
	calls := []call{{kind: "count", run: func(ctx context.Context) error {
		_, _, err := s.rs.Aggregate(ctx, g.Bearer, rsclient.AggregateQuery{Stream: stream, Metric: "count", ConnectionID: connectionID})
		return err
	}}}
	for _, f := range fields {
		calls = append(calls,
			call{"sort", f, func(ctx context.Context) error {
				_, _, err := s.rs.Records(ctx, g.Bearer, rsclient.RecordsQuery{Stream: stream, Limit: 1, Sort: []string{"-" + f},
					Fields: []string{f}, ConnectionID: connectionID})
				return err
			}},
			call{"group_by_time", f, func(ctx context.Context) error {
				_, _, err := s.rs.Aggregate(ctx, g.Bearer, rsclient.AggregateQuery{Stream: stream, Metric: "count",
					GroupByTime: f, Granularity: "month", ConnectionID: connectionID})
				return err
			}},
			call{"max", f, func(ctx context.Context) error {
				_, _, err := s.rs.Aggregate(ctx, g.Bearer, rsclient.AggregateQuery{Stream: stream, Metric: "max", Field: f, ConnectionID: connectionID})
				return err
			}})
	}
	// All at once under the process's refining-read limit: a stream with
	// three time-like fields asks ten calls, which eight at a time cost
	// two round trips in sequence. A call that gets no slot in time is
	// unknown (its zero outcome): the probe is asked again soon.
	outs, _ := fanout.Run(ctx, len(calls), fanout.Options{Shared: s.refining}, func(ctx context.Context, i int) (probeOutcome, error) {
		return outcomeOf(calls[i].run(ctx)), nil
	})
	p := &schemaindex.Probe{Checked: true, Tried: fields}
	for i, c := range calls {
		switch {
		case outs[i] == probeUnknown:
			p.Checked = false
		case outs[i] != probeAccepted:
		case c.kind == "count":
			p.Count = true
		case c.kind == "sort" && p.Sort == "":
			p.Sort = c.field
		case c.kind == "group_by_time":
			p.GroupByTime = append(p.GroupByTime, c.field)
		case c.kind == "max":
			p.Max = append(p.Max, c.field)
		}
	}
	return p
}

// probeKey is the probe cache's key for a grant's stream (and
// connection): what a probe records and what a refusal's next steps read.
func probeKey(g Grant, stream, connectionID string) string {
	return g.binding() + "\x00" + stream + "\x00" + connectionID
}
