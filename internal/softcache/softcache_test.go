package softcache_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/pdpp/pdpp-mcp/internal/softcache"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// clock is a settable time source shared by a cache and its test.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// typedErr stands for a caller's typed failure (e.g. an RS error).
type typedErr struct{ code string }

func (e *typedErr) Error() string { return e.code }

// counter is a fetch that counts its calls and answers from a script.
type counter struct {
	calls atomic.Int32
	val   string
	exp   func(now time.Time) time.Time
	err   error
	now   func() time.Time
}

func (f *counter) fetch(context.Context) (string, time.Time, error) {
	n := f.calls.Add(1)
	var exp time.Time
	if f.exp != nil {
		exp = f.exp(f.now())
	}
	if f.err != nil {
		return "", exp, f.err
	}
	return fmt.Sprintf("%s#%d", f.val, n), exp, nil
}

// TestExpiry walks a key through time: each step advances the clock, then
// reads, and checks the value and how many fetches happened so far.
func TestExpiry(t *testing.T) {
	t.Parallel()
	type step struct {
		advance   time.Duration
		want      string
		wantErr   bool
		wantCalls int32
	}
	tests := []struct {
		name  string
		opts  softcache.Options
		fetch *counter
		steps []step
	}{
		{
			name:  "value served until TTL",
			opts:  softcache.Options{TTL: 10 * time.Second},
			fetch: &counter{val: "v"},
			steps: []step{{0, "v#1", false, 1}, {9 * time.Second, "v#1", false, 1}, {time.Second, "v#2", false, 2}},
		},
		{
			name:  "per-entry expiry earlier than TTL",
			opts:  softcache.Options{TTL: time.Hour},
			fetch: &counter{val: "v", exp: func(now time.Time) time.Time { return now.Add(3 * time.Second) }},
			steps: []step{{0, "v#1", false, 1}, {2 * time.Second, "v#1", false, 1}, {time.Second, "v#2", false, 2}},
		},
		{
			name:  "per-entry expiry never lengthens TTL",
			opts:  softcache.Options{TTL: 5 * time.Second},
			fetch: &counter{val: "v", exp: func(now time.Time) time.Time { return now.Add(time.Hour) }},
			steps: []step{{0, "v#1", false, 1}, {5 * time.Second, "v#2", false, 2}},
		},
		{
			name:  "already expired value is returned but not kept",
			opts:  softcache.Options{TTL: time.Hour},
			fetch: &counter{val: "v", exp: func(now time.Time) time.Time { return now.Add(-time.Second) }},
			steps: []step{{0, "v#1", false, 1}, {0, "v#2", false, 2}},
		},
		{
			name:  "failure cached for ErrorTTL",
			opts:  softcache.Options{TTL: time.Hour, ErrorTTL: 2 * time.Second},
			fetch: &counter{err: &typedErr{"rs_unavailable"}},
			steps: []step{{0, "", true, 1}, {time.Second, "", true, 1}, {time.Second, "", true, 2}},
		},
		{
			name:  "negative ErrorTTL never caches failures",
			opts:  softcache.Options{ErrorTTL: -1},
			fetch: &counter{err: &typedErr{"rs_unavailable"}},
			steps: []step{{0, "", true, 1}, {0, "", true, 2}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clk := newClock()
			tt.opts.Now = clk.Now
			tt.fetch.now = clk.Now
			c := softcache.New[string](tt.opts)
			for i, s := range tt.steps {
				clk.Add(s.advance)
				got, err := c.Get(context.Background(), "k", tt.fetch.fetch)
				if (err != nil) != s.wantErr {
					t.Fatalf("step %d: err = %v, want error %v", i, err, s.wantErr)
				}
				var te *typedErr
				if s.wantErr && !errors.As(err, &te) {
					t.Fatalf("step %d: err %T lost its type", i, err)
				}
				if diff := cmp.Diff(s.want, got); diff != "" {
					t.Errorf("step %d: value (-want +got):\n%s", i, diff)
				}
				if n := tt.fetch.calls.Load(); n != s.wantCalls {
					t.Errorf("step %d: %d fetches, want %d", i, n, s.wantCalls)
				}
			}
		})
	}
}

// blocking is a fetch that waits until released (or its own deadline).
type blocking struct {
	calls   atomic.Int32
	started chan struct{}
	release chan struct{}
	sawDone atomic.Bool
}

func newBlocking() *blocking {
	return &blocking{started: make(chan struct{}, 100), release: make(chan struct{})}
}

func (b *blocking) fetch(ctx context.Context) (string, time.Time, error) {
	b.calls.Add(1)
	b.started <- struct{}{}
	select {
	case <-b.release:
		return "shared", time.Time{}, nil
	case <-ctx.Done():
		b.sawDone.Store(true)
		return "", time.Time{}, ctx.Err()
	}
}

func TestConcurrentCallersShareOneFetch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// giveUp callers cancel their own context while the fetch is held.
		callers, giveUp int
	}{
		{"all wait", 6, 0},
		{"first callers give up, the rest still get the value", 6, 3},
		{"all but one give up", 64, 63},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := softcache.New[string](softcache.Options{})
			b := newBlocking()
			type out struct {
				v   string
				err error
			}
			results := make([]out, tt.callers)
			done := make([]chan struct{}, tt.callers)
			cancels := make([]context.CancelFunc, tt.callers)
			for i := range tt.callers {
				ctx, cancel := context.WithCancel(context.Background())
				cancels[i], done[i] = cancel, make(chan struct{})
				go func() {
					defer close(done[i])
					v, err := c.Get(ctx, "k", b.fetch)
					results[i] = out{v, err}
				}()
			}
			<-b.started
			for i := range tt.giveUp {
				cancels[i]()
				<-done[i] // it left on its own context, the fetch still held
			}
			close(b.release)
			for i := range tt.callers {
				<-done[i]
				cancels[i]()
			}
			if n := b.calls.Load(); n != 1 {
				t.Errorf("%d fetches, want 1", n)
			}
			for i, r := range results {
				want := out{v: "shared"}
				if i < tt.giveUp {
					want = out{err: context.Canceled}
				}
				if r.v != want.v || !errors.Is(r.err, want.err) {
					t.Errorf("caller %d: got %q, %v; want %q, %v", i, r.v, r.err, want.v, want.err)
				}
			}
			if b.sawDone.Load() {
				t.Error("the fetch saw a caller's cancellation")
			}
			// The value outlived every caller that asked for it.
			if v, err, ok := c.Peek("k"); !ok || err != nil || v != "shared" {
				t.Errorf("Peek = %q, %v, %v; want the shared value cached", v, err, ok)
			}
		})
	}
}

func TestWaiterDeadlineDoesNotWaitForFetch(t *testing.T) {
	t.Parallel()
	// In a synctest bubble: the deadline passes on the bubble's clock, and
	// synctest.Wait knows when the late caller is parked on the fetch.
	synctest.Test(t, func(t *testing.T) {
		c := softcache.New[string](softcache.Options{})
		b := newBlocking()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		_, err := c.Get(ctx, "k", b.fetch)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want the caller's own deadline", err)
		}
		// A later caller joins the same fetch rather than starting another.
		got := make(chan string)
		go func() {
			v, _ := c.Get(context.Background(), "k", b.fetch)
			got <- v
		}()
		synctest.Wait() // the late caller waits on the fetch still held
		close(b.release)
		if v := <-got; v != "shared" {
			t.Errorf("late caller got %q", v)
		}
		if n := b.calls.Load(); n != 1 {
			t.Errorf("%d fetches, want 1", n)
		}
	})
}

func TestFetchTimeoutBoundsAFetchThatNeverAnswers(t *testing.T) {
	t.Parallel()
	c := softcache.New[string](softcache.Options{FetchTimeout: 20 * time.Millisecond, ErrorTTL: time.Hour})
	b := newBlocking() // never released
	_, err := c.Get(context.Background(), "k", b.fetch)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the fetch's own deadline", err)
	}
	// The timeout is remembered: the next caller is answered at once.
	if _, err := c.Get(context.Background(), "k", b.fetch); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("second err = %v, want the cached timeout", err)
	}
	if n := b.calls.Load(); n != 1 {
		t.Errorf("%d fetches, want 1", n)
	}
}

func TestCancelledCallerDoesNotStartAFetch(t *testing.T) {
	t.Parallel()
	c := softcache.New[string](softcache.Options{})
	f := &counter{val: "v", now: time.Now}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Get(ctx, "k", f.fetch); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want canceled", err)
	}
	if n := f.calls.Load(); n != 0 {
		t.Errorf("%d fetches, want 0", n)
	}
}

func TestMaxEntriesBoundsTheMap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		max, keys int
		wantLen   int
	}{
		{"under the bound", 8, 5, 5},
		{"at the bound", 8, 8, 8},
		{"far over the bound", 8, 1000, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clk := newClock()
			c := softcache.New[string](softcache.Options{MaxEntries: tt.max, Now: clk.Now})
			f := &counter{val: "v", now: clk.Now}
			for i := range tt.keys {
				clk.Add(time.Millisecond) // later keys expire later
				if _, err := c.Get(context.Background(), fmt.Sprint(i), f.fetch); err != nil {
					t.Fatal(err)
				}
			}
			if got := c.Len(); got != tt.wantLen {
				t.Errorf("Len = %d, want %d", got, tt.wantLen)
			}
			// The newest key survives; the one closest to expiry went first.
			if _, _, ok := c.Peek(fmt.Sprint(tt.keys - 1)); !ok {
				t.Error("newest key was evicted")
			}
			if tt.keys > tt.max {
				if _, _, ok := c.Peek("0"); ok {
					t.Error("oldest key survived past the bound")
				}
			}
		})
	}
}

func TestForgetDuringFetchIsNotStored(t *testing.T) {
	t.Parallel()
	c := softcache.New[string](softcache.Options{})
	b := newBlocking()
	got := make(chan string)
	go func() {
		v, _ := c.Get(context.Background(), "k", b.fetch)
		got <- v
	}()
	<-b.started
	c.Forget("k") // e.g. the credential behind the key was replaced
	close(b.release)
	if v := <-got; v != "shared" {
		t.Errorf("waiting caller got %q, want the value it waited for", v)
	}
	if _, _, ok := c.Peek("k"); ok {
		t.Error("a fetch begun before Forget was stored")
	}
}

func TestFetchPanicIsACachedError(t *testing.T) {
	t.Parallel()
	c := softcache.New[string](softcache.Options{})
	_, err := c.Get(context.Background(), "k", func(context.Context) (string, time.Time, error) { panic("boom") })
	if !errors.Is(err, softcache.ErrFetchPanic) {
		t.Errorf("err = %v, want ErrFetchPanic", err)
	}
}

func TestPeekNeverFetches(t *testing.T) {
	t.Parallel()
	c := softcache.New[int](softcache.Options{})
	if _, _, ok := c.Peek("k"); ok {
		t.Error("Peek on an empty cache reported a value")
	}
	_, _ = c.Get(context.Background(), "k", func(context.Context) (int, time.Time, error) { return 7, time.Time{}, nil })
	if v, err, ok := c.Peek("k"); !ok || err != nil || v != 7 {
		t.Errorf("Peek = %d, %v, %v", v, err, ok)
	}
}

// WouldFetch is true exactly when a Get would start a fetch: not while one
// is under way, not while a value or a failure is remembered, again once
// they expire or are forgotten.
func TestWouldFetch(t *testing.T) {
	t.Parallel()
	clk := newClock()
	c := softcache.New[string](softcache.Options{TTL: time.Minute, ErrorTTL: time.Second, Now: clk.Now})
	type step struct {
		name string
		do   func()
		want bool
	}
	b := newBlocking()
	done := make(chan struct{})
	fail := func(context.Context) (string, time.Time, error) { return "", time.Time{}, &typedErr{"rs_unavailable"} }
	steps := []step{
		{"empty", func() {}, true},
		{"fetch under way", func() {
			go func() { _, _ = c.Get(context.Background(), "k", b.fetch); close(done) }()
			<-b.started
		}, false},
		{"value held", func() { close(b.release); <-done }, false},
		{"value expired", func() { clk.Add(time.Minute) }, true},
		{"failure remembered", func() { _, _ = c.Get(context.Background(), "k", fail) }, false},
		{"failure expired", func() { clk.Add(time.Second) }, true},
		{"forgotten", func() {
			_, _ = c.Get(context.Background(), "k", func(context.Context) (string, time.Time, error) { return "v", time.Time{}, nil })
			c.Forget("k")
		}, true},
	}
	for _, s := range steps {
		s.do()
		if got := c.WouldFetch("k"); got != s.want {
			t.Errorf("%s: WouldFetch = %v, want %v", s.name, got, s.want)
		}
	}
}
