package demodata

import (
	"time"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
)

// builder accumulates records grouped by (connection, stream), so the
// final slice lists each stream's records together and in generation
// order — readable in dumps and stable for the golden digest.
type builder struct {
	seed  int64
	now   time.Time
	start time.Time // now minus the ~12-month window
	o     obj
	arena arena
	emitR *rng
	keys  []streamKey
	out   map[streamKey][]rstest.Record
}

type streamKey struct{ conn, stream string }

// window is how far back record timestamps reach.
const window = 365 * 24 * time.Hour

func newBuilder(opts Options) *builder {
	return &builder{
		seed:  opts.Seed,
		now:   opts.Now,
		start: opts.Now.Add(-window),
		emitR: newRNG(opts.Seed, "emitted_at"),
		out:   make(map[streamKey][]rstest.Record),
	}
}

// rng returns an independent random stream for one purpose.
func (b *builder) rng(purpose string) *rng { return newRNG(b.seed, purpose) }

// at maps a fraction of the window (0 = oldest, 1 = now) to a time.
func (b *builder) at(frac float64) time.Time {
	return b.start.Add(time.Duration(frac * float64(window))).Truncate(time.Second)
}

// clamp keeps generated times strictly in the past of now.
func (b *builder) clamp(t time.Time) time.Time {
	if !t.Before(b.now) {
		return b.now.Add(-time.Minute)
	}
	return t
}

// emit stores the object just written to b.o as a record. EmittedAt is a
// little after the event time, as if a sync picked it up soon afterwards.
func (b *builder) emit(conn, stream, id string, event time.Time) {
	data := b.arena.copy(b.o.end())
	emitted := event.Add(time.Duration(b.emitR.between(30, 2*3600)) * time.Second)
	if emitted.After(b.now) {
		emitted = b.now
	}
	k := streamKey{conn, stream}
	recs, ok := b.out[k]
	if !ok {
		b.keys = append(b.keys, k)
	}
	b.out[k] = append(recs, rstest.Record{ConnectionID: conn, Stream: stream, ID: id, Data: data, EmittedAt: emitted})
}

// records concatenates the per-stream slices in first-emission order.
func (b *builder) records() []rstest.Record {
	n := 0
	for _, k := range b.keys {
		n += len(b.out[k])
	}
	all := make([]rstest.Record, 0, n)
	for _, k := range b.keys {
		all = append(all, b.out[k]...)
		delete(b.out, k) // release as we go: halves the peak at 1M records
	}
	return all
}
