package heapfloor_test

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/pdpp/pdpp-mcp/internal/heapfloor"
)

const mb = 1 << 20

func TestPercent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name              string
		live, scan, floor uint64
		base, want        int
	}{
		{"tiny heap: Go's 4 MB minimum scaled to the floor", 1 * mb, 1 * mb, 16 * mb, 100, 400},
		{"stacks and globals count in the goal", 2 * mb, 5 * mb, 16 * mb, 100, 280},
		{"half the floor", 8 * mb, 8 * mb, 16 * mb, 100, 100},
		{"just under: base already reaches the floor", 8*mb + 1, 8*mb + 1, 16 * mb, 100, 100},
		{"a quarter of the floor", 4 * mb, 4 * mb, 16 * mb, 100, 300},
		{"large heap: Go's rule unchanged", 64 * mb, 65 * mb, 16 * mb, 100, 100},
		{"operator's higher base kept", 4 * mb, 4 * mb, 16 * mb, 400, 400},
		{"huge floor capped", 1 * mb, 1 * mb, 1024 * mb, 100, 2000},
		{"no reading yet", 0, 0, 16 * mb, 100, 400},
		{"collector off stays off", 1 * mb, 1 * mb, 16 * mb, -1, -1},
		{"no floor", 1 * mb, 1 * mb, 0, 100, 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := heapfloor.Percent(tc.live, tc.scan, tc.floor, tc.base); got != tc.want {
				t.Errorf("Percent(%d, %d, %d, %d) = %d, want %d", tc.live, tc.scan, tc.floor, tc.base, got, tc.want)
			}
		})
	}
}

// heapGoal is the runtime's current heap goal.
func heapGoal() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// sink keeps allocations from being optimised away.
var sink []byte

// TestStartHoldsTheGoalAtTheFloor runs the tuner in this process: after a
// few collections of a small live heap the goal sits near the floor, and
// stop puts Go's percent back. Not parallel: the GC percent is process-wide.
func TestStartHoldsTheGoalAtTheFloor(t *testing.T) {
	const floor = 48 * mb
	base := debug.SetGCPercent(100)
	defer debug.SetGCPercent(base)
	before := heapGoal()
	if before >= floor/2 {
		t.Skipf("the test binary's heap goal is already %d MB", before/mb)
	}
	adjusted := make(chan struct{}, 1)
	stop := heapfloor.StartNotifying(floor, func() {
		select {
		case adjusted <- struct{}{}:
		default:
		}
	})
	for range 100 {
		if heapGoal() >= floor*9/10 {
			break
		}
		sink = make([]byte, 64<<10)
		runtime.GC()
		// The tuner adjusts on the runtime's cleanup goroutine: wait for
		// its turn after this collection.
		select {
		case <-adjusted:
		case <-time.After(10 * time.Second):
			t.Fatal("no adjustment within 10s of a collection")
		}
	}
	if g := heapGoal(); g < floor*9/10 || g > floor*11/10 {
		t.Fatalf("heap goal %d MB with the floor at %d MB (was %d MB)", g/mb, floor/mb, before/mb)
	}
	stop()
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("after stop the GC percent is %d, want Go's 100 back", p)
	}
	stop() // twice is harmless
}

// TestStartLeavesCollectorOff: GOGC=off is the operator's word.
func TestStartLeavesCollectorOff(t *testing.T) {
	base := debug.SetGCPercent(-1)
	defer debug.SetGCPercent(base)
	stop := heapfloor.Start(48 * mb)
	runtime.GC()
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Errorf("GC percent %d after Start with the collector off, want -1", p)
	}
	stop()
}

func ExampleStart() {
	// At start-up, unless the operator set GOGC: collect no more often
	// than every 16 MB while the live heap is small.
	stop := heapfloor.Start(16 << 20)
	defer stop()
}
