package fanout_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/pdpp/pdpp-mcp/internal/fanout"
)

// The tests run in synctest bubbles: time is the bubble's fake clock (it
// moves only when every goroutine of the bubble is blocked), so elapsed
// times are exact, and a bubble whose goroutines are still blocked when
// its function returns fails the test, so no Run may leave one behind.

// gauge counts the tasks running now and the most that ever ran at once.
type gauge struct {
	mu            sync.Mutex
	now, most, in int
}

func (g *gauge) enter() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.now++
	g.in++
	g.most = max(g.most, g.now)
}

func (g *gauge) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.now--
}

// busy is a task that runs d of the bubble's clock (or until its ctx
// ends) and returns its index.
func busy(g *gauge, d func(i int) time.Duration) func(context.Context, int) (int, error) {
	return func(ctx context.Context, i int) (int, error) {
		g.enter()
		defer g.leave()
		select {
		case <-time.After(d(i)):
			return i, nil
		case <-ctx.Done():
			return i, ctx.Err()
		}
	}
}

func every(d time.Duration) func(int) time.Duration { return func(int) time.Duration { return d } }

// TestRunBoundsAndOrders: however n and Limit compare, at most Limit tasks
// (every task when Limit ≤ 0) run at once, each task runs exactly once,
// results keep the tasks' order, and n tasks of 1 s each take
// ceil(n/Limit) s of the bubble's clock.
func TestRunBoundsAndOrders(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		n, limit  int
		wantMost  int
		wantTaken time.Duration
	}{
		{"no tasks", 0, 3, 0, 0},
		{"negative n", -2, 3, 0, 0},
		{"one task runs inline", 1, 3, 1, time.Second},
		{"limit above n", 4, 9, 4, time.Second},
		{"limit equal to n", 4, 4, 4, time.Second},
		{"limit below n", 10, 3, 3, 4 * time.Second},
		{"limit one: one after another", 5, 1, 1, 5 * time.Second},
		{"limit zero: all at once", 6, 0, 6, time.Second},
		{"negative limit: all at once", 6, -1, 6, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				var g gauge
				start := time.Now()
				vals, errs := fanout.Run(t.Context(), tc.n, fanout.Options{Limit: tc.limit}, busy(&g, every(time.Second)))
				if took := time.Since(start); took != tc.wantTaken {
					t.Errorf("took %v, want %v", took, tc.wantTaken)
				}
				n := max(tc.n, 0)
				want := make([]int, n)
				for i := range want {
					want[i] = i
				}
				if diff := cmp.Diff(want, vals, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("values (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(make([]error, n), errs, cmpopts.EquateEmpty(), cmpopts.EquateErrors()); diff != "" {
					t.Errorf("errors (-want +got):\n%s", diff)
				}
				if g.most != tc.wantMost || g.in != n {
					t.Errorf("%d ran, at most %d at once; want %d, at most %d", g.in, g.most, n, tc.wantMost)
				}
			})
		})
	}
}

// TestRunKeepsOrderWhateverEndsFirst: the last task ends first, the first
// last; each result is still at its task's index.
func TestRunKeepsOrderWhateverEndsFirst(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const n = 6
		var g gauge
		vals, _ := fanout.Run(t.Context(), n, fanout.Options{Limit: 3}, busy(&g, func(i int) time.Duration {
			return time.Duration(n-i) * time.Second
		}))
		if diff := cmp.Diff([]int{0, 1, 2, 3, 4, 5}, vals); diff != "" {
			t.Errorf("values (-want +got):\n%s", diff)
		}
	})
}

// TestCancelReleasesQueuedTasksAtOnce: with one slot, a task that watches
// its ctx and four queued behind it, cancelling ctx ends Run at that
// instant: the running task sees the cancellation, the queued ones report
// it and never run.
func TestCancelReleasesQueuedTasksAtOnce(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(time.Second, cancel)
		var g gauge
		start := time.Now()
		_, errs := fanout.Run(ctx, 5, fanout.Options{Limit: 1}, busy(&g, every(time.Hour)))
		if took := time.Since(start); took != time.Second {
			t.Errorf("Run took %v after a cancel at 1s", took)
		}
		if g.in != 1 {
			t.Errorf("%d tasks ran, want only the one running at the cancel", g.in)
		}
		want := []error{context.Canceled, context.Canceled, context.Canceled, context.Canceled, context.Canceled}
		if diff := cmp.Diff(want, errs, cmpopts.EquateErrors()); diff != "" {
			t.Errorf("errors (-want +got):\n%s", diff)
		}
	})
}

// TestCancelledContextRunsNothing: a ctx that ended before Run gets every
// task its error, the lone task included, and none runs.
func TestCancelledContextRunsNothing(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 3} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				cancel()
				var g gauge
				_, errs := fanout.Run(ctx, n, fanout.Options{Limit: 2}, busy(&g, every(time.Second)))
				for i, err := range errs {
					if !errors.Is(err, context.Canceled) {
						t.Errorf("task %d: %v, want context.Canceled", i, err)
					}
				}
				if g.in != 0 {
					t.Errorf("%d tasks ran", g.in)
				}
			})
		})
	}
}

// TestDeadlineStartsWhenTheTaskStarts: one slot, a 5 s Timeout, three
// tasks of 4 s each. Each one gets its whole 5 s from its own start, so
// all three finish (12 s in all); a deadline started at queueing would
// have cut the second at 5 s and never let the third begin.
func TestDeadlineStartsWhenTheTaskStarts(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var mu sync.Mutex
		left := map[int]time.Duration{}
		_, errs := fanout.Run(t.Context(), 3, fanout.Options{Limit: 1, Timeout: 5 * time.Second},
			func(ctx context.Context, i int) (int, error) {
				dl, ok := ctx.Deadline()
				if !ok {
					return 0, errors.New("no deadline")
				}
				mu.Lock()
				left[i] = time.Until(dl)
				mu.Unlock()
				select {
				case <-time.After(4 * time.Second):
					return i, nil
				case <-ctx.Done():
					return i, ctx.Err()
				}
			})
		if diff := cmp.Diff(make([]error, 3), errs, cmpopts.EquateErrors()); diff != "" {
			t.Errorf("errors (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(map[int]time.Duration{0: 5 * time.Second, 1: 5 * time.Second, 2: 5 * time.Second}, left); diff != "" {
			t.Errorf("time left at each task's start (-want +got):\n%s", diff)
		}
		if took := time.Since(start); took != 12*time.Second {
			t.Errorf("took %v, want 12s", took)
		}
	})
}

// TestTimeoutEndsASlowTask: a task that outlasts its Timeout sees its ctx
// end and reports that; the others are unaffected.
func TestTimeoutEndsASlowTask(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var g gauge
		_, errs := fanout.Run(t.Context(), 3, fanout.Options{Timeout: 2 * time.Second}, busy(&g, func(i int) time.Duration {
			return time.Duration(2*i+1) * time.Second // 1s, 3s, 5s: the last two are late
		}))
		want := []error{nil, context.DeadlineExceeded, context.DeadlineExceeded}
		if diff := cmp.Diff(want, errs, cmpopts.EquateErrors()); diff != "" {
			t.Errorf("errors (-want +got):\n%s", diff)
		}
	})
}

// TestSharedLimiterBindsRunsTogether: two Runs of three tasks each, at
// once, under one shared limiter of two slots: never more than two tasks
// run in all, although each Run alone would run three.
func TestSharedLimiterBindsRunsTogether(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		shared := fanout.NewLimiter(2)
		var g gauge
		var wg sync.WaitGroup
		start := time.Now()
		for range 2 {
			wg.Go(func() {
				fanout.Run(t.Context(), 3, fanout.Options{Shared: shared}, busy(&g, every(time.Second)))
			})
		}
		wg.Wait()
		if g.most != 2 || g.in != 6 {
			t.Errorf("%d ran, at most %d at once; want 6, at most 2", g.in, g.most)
		}
		if took := time.Since(start); took != 3*time.Second {
			t.Errorf("took %v, want 3s (six 1s tasks two at a time)", took)
		}
	})
}

// TestSharedSlotWaitWatchesContext: a task waiting for a shared slot that
// another holds reports its ctx's end at once and never runs.
func TestSharedSlotWaitWatchesContext(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		shared := fanout.NewLimiter(1)
		release, err := shared.Acquire(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		var g gauge
		start := time.Now()
		_, errs := fanout.Run(ctx, 2, fanout.Options{Shared: shared, Timeout: time.Hour}, busy(&g, every(time.Second)))
		if took := time.Since(start); took != time.Second {
			t.Errorf("took %v, want the ctx's 1s", took)
		}
		want := []error{context.DeadlineExceeded, context.DeadlineExceeded}
		if diff := cmp.Diff(want, errs, cmpopts.EquateErrors()); diff != "" || g.in != 0 {
			t.Errorf("%d ran; errors (-want +got):\n%s", g.in, diff)
		}
	})
}

// TestPanicReachesTheCaller: a task's panic is raised again on the
// caller's goroutine as a *TaskPanic naming the task, once every other
// task has ended (none is left running); a lone task, run inline, too.
func TestPanicReachesTheCaller(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	for _, tc := range []struct {
		name  string
		n     int
		index int
	}{{"one of five", 5, 3}, {"lone task", 1, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				var g gauge
				defer func() {
					r := recover()
					p, ok := r.(*fanout.TaskPanic)
					if !ok {
						t.Fatalf("recovered %T %v, want *fanout.TaskPanic", r, r)
					}
					if p.Index != tc.index || !errors.Is(p, boom) || len(p.Stack) == 0 {
						t.Errorf("panic of task %d (%v), want task %d with boom and a stack", p.Index, p.Value, tc.index)
					}
					if g.now != 0 || g.in != tc.n-1 {
						t.Errorf("%d still running, %d ran; want 0 and %d", g.now, g.in, tc.n-1)
					}
				}()
				run := busy(&g, every(time.Second))
				fanout.Run(t.Context(), tc.n, fanout.Options{Limit: 2}, func(ctx context.Context, i int) (int, error) {
					if i == tc.index {
						panic(boom)
					}
					return run(ctx, i)
				})
				t.Error("Run returned after a task panicked")
			})
		})
	}
}

// FuzzRun: for any n and Limit, with tasks of varied lengths, every task
// runs once, results are by index, and no more than the bound run at once.
func FuzzRun(f *testing.F) {
	for _, seed := range [][2]int{{0, 0}, {1, 1}, {3, -1}, {7, 2}, {2, 9}, {40, 5}} {
		f.Add(seed[0], seed[1], uint8(3))
	}
	f.Fuzz(func(t *testing.T, n, limit int, spread uint8) {
		n %= 64
		synctest.Test(t, func(t *testing.T) {
			var g gauge
			vals, errs := fanout.Run(t.Context(), n, fanout.Options{Limit: limit}, busy(&g, func(i int) time.Duration {
				return time.Duration(i%(int(spread)+1)) * time.Millisecond
			}))
			n = max(n, 0)
			bound := n
			if limit > 0 {
				bound = min(limit, n)
			}
			if len(vals) != n || len(errs) != n || g.in != n || g.most > bound {
				t.Fatalf("n=%d limit=%d: %d values, %d errors, %d ran, %d at once (bound %d)", n, limit, len(vals), len(errs), g.in, g.most, bound)
			}
			for i, v := range vals {
				if v != i || errs[i] != nil {
					t.Fatalf("task %d gave %d, %v", i, v, errs[i])
				}
			}
		})
	})
}
