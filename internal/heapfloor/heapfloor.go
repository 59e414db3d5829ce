// Package heapfloor keeps the Go collector from running every few tool
// calls in a process whose live heap is tiny.
//
// The adapter keeps almost nothing between calls: its live heap is 1–2 MB
// while each call allocates 100–500 KB that is garbage at the answer. At
// Go's default (GOGC=100) the heap goal is then the runtime's 4 MB minimum
// and a collection runs every four or five calls; measured on the hosted
// adapter, that was a fifth of its CPU (benchmarks/, BENCHMARKS.md). A
// flat higher GOGC would fix the small case but multiply the heap under
// load, when the live heap is large. Instead the goal is held at
// max(floor, live × (1 + GOGC/100)): below the floor the collector waits
// until floor bytes are in use, above it Go's own rule applies unchanged.
// After every collection the GC percent is set from the live heap the
// runtime reports; the soft memory limit (GOMEMLIMIT) still bounds it all.
package heapfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// maxPercent bounds the percent set for a nearly empty heap, so a live
// heap read as a few KB cannot ask for an absurd figure.
const maxPercent = 2000

// The runtime's figures as of the last collection: the live heap, and the
// stacks and globals the pacer adds to it (runtime/metrics).
const (
	liveMetric    = "/gc/heap/live:bytes"
	stacksMetric  = "/gc/scan/stack:bytes"
	globalsMetric = "/gc/scan/globals:bytes"
)

// goMinimumHeap is the runtime's smallest heap goal at GOGC=100; it
// scales with the percent (runtime/mgcpacer.go, defaultHeapMinimum).
const goMinimumHeap = 4 << 20

// Percent is the GC percent that puts the heap goal at
// max(floor, Go's own goal at base). Go's goal for percent p is
// max(goMinimumHeap × p/100, live + scan × p/100), where scan is the live
// heap plus goroutine stacks plus globals (what the collector scans):
// base itself once that reaches floor; below, the smallest percent whose
// goal reaches floor, never above maxPercent.
func Percent(live, scan, floor uint64, base int) int {
	if base <= 0 {
		return base
	}
	goal := func(p uint64) uint64 { return max(goMinimumHeap*p/100, live+scan*p/100) }
	if goal(uint64(base)) >= floor {
		return base
	}
	p := floor * 100 / goMinimumHeap // the minimum's term reaches floor
	if scan > 0 && live < floor {
		p = min(p, (floor-live)*100/scan) // the live heap's term reaches floor
	}
	return max(int(min(p, maxPercent)), base)
}

// tuner re-arms itself after every collection until stopped.
type tuner struct {
	floor uint64
	base  int

	mu      sync.Mutex // orders adjust and stop, so stop's restore is the last word
	last    int
	stopped bool
	sample  []metrics.Sample

	// adjusted, when set, is called after every adjustment a collection
	// triggers: a test awaits the cleanup goroutine's turn through it
	// instead of sleeping.
	adjusted func()
}

// sentinel is an object the collector frees once per cycle; its cleanup
// is the tuner's hook. It holds a pointer so it is never batched with
// other tiny allocations (which would delay its cleanup).
type sentinel struct{ _ *tuner }

// Start holds the heap goal at max(floor, Go's own goal at base), where
// base is Go's GC percent at the call (100 unless GOGC or SetGCPercent
// said otherwise), adjusting after every collection; stop restores base.
// A base of off (GOGC=off) is left alone.
func Start(floor uint64) (stop func()) { return start(floor, nil) }

// start is Start, calling adjusted (when not nil) after every adjustment
// that follows a collection.
func start(floor uint64, adjusted func()) (stop func()) {
	base := debug.SetGCPercent(100)
	debug.SetGCPercent(base)
	if base < 0 || floor == 0 {
		return func() {}
	}
	t := &tuner{floor: floor, base: base, last: base, adjusted: adjusted,
		sample: []metrics.Sample{{Name: liveMetric}, {Name: stacksMetric}, {Name: globalsMetric}}}
	t.adjust()
	t.arm()
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if !t.stopped {
			t.stopped = true
			debug.SetGCPercent(t.base)
		}
	}
}

// arm allocates the next sentinel; its cleanup runs after the collection
// that finds it unreachable, adjusts, and arms again.
func (t *tuner) arm() {
	s := &sentinel{}
	runtime.AddCleanup(s, func(t *tuner) {
		running := t.adjust()
		if running {
			t.arm()
		}
		if t.adjusted != nil {
			t.adjusted()
		}
	}, t)
}

// adjust sets the percent for the live heap the last collection left,
// calling into the runtime only when the figure moves by more than a
// tenth (setting it re-computes the pacer under the heap lock). It
// reports whether the tuner is still running.
func (t *tuner) adjust() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return false
	}
	metrics.Read(t.sample)
	var v [3]uint64
	for i, s := range t.sample {
		if s.Value.Kind() != metrics.KindUint64 {
			return true // a runtime without the figure: Go's own rule
		}
		v[i] = s.Value.Uint64()
	}
	p := Percent(v[0], v[0]+v[1]+v[2], t.floor, t.base)
	if d := p - t.last; d*10 > t.last || -d*10 > t.last {
		debug.SetGCPercent(p)
		t.last = p
	}
	return true
}
