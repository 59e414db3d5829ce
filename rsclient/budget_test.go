package rsclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"
)

// TestBudgetBoundsConcurrentBodies: many concurrent large answers never
// hold more than MaxBytesInFlight between them, every call ends (a
// success, or rs_busy when the budget is spent), and every byte is given
// back.
func TestBudgetBoundsConcurrentBodies(t *testing.T) {
	t.Parallel()
	const (
		calls    = 24
		maxBody  = 2 << 20
		inFlight = 4 << 20
	)
	page := benchRecordsPage(50, 20_000) // ≈ 1.1 MB, sent chunked
	if len(page) < 1<<20 || len(page) > maxBody {
		t.Fatalf("page is %d bytes; the test needs 1–2 MiB", len(page))
	}
	// Every handler sends half its body, then waits until all calls have
	// reached the server (or 2s), so the bodies are in flight together.
	var arrived atomic.Int32
	all := make(chan struct{})
	var once sync.Once
	srv := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) {
		if arrived.Add(1) == calls {
			once.Do(func() { close(all) })
		}
		_, _ = w.Write(page[:len(page)/2])
		w.(http.Flusher).Flush()
		select {
		case <-all:
		case <-time.After(2 * time.Second):
		}
		_, _ = w.Write(page[len(page)/2:])
	})
	c := newTestClient(t, srv.URL, func(c *Config) { c.MaxBodyBytes = maxBody; c.MaxBytesInFlight = inFlight; c.Timeout = 20 * time.Second })

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var ok, busy atomic.Int32
	errs := make(chan error, calls)
	var wg sync.WaitGroup
	for range calls {
		wg.Go(func() {
			list, _, err := c.Records(ctx, testBearer, RecordsQuery{Stream: "message_bodies"})
			var te *TransportError
			switch {
			case err == nil && len(list.Data) == 50:
				ok.Add(1)
			case errors.As(err, &te) && te.Code == CodeBusy:
				busy.Add(1)
			default:
				errs <- fmt.Errorf("call ended with %v", err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	used, peak := c.budget.usage()
	t.Logf("%d calls of %d B: %d ok, %d rs_busy; peak %d B held of a %d B budget", calls, len(page), ok.Load(), busy.Load(), peak, int64(inFlight))
	if peak > inFlight+1 {
		t.Errorf("peak %d B held, budget %d B", peak, inFlight)
	}
	if peak < inFlight/2 {
		t.Errorf("peak %d B: the bodies were never in flight together; the test proves nothing", peak)
	}
	if used != 0 {
		t.Errorf("%d B still reserved after every call ended", used)
	}
	if ok.Load()+busy.Load() != calls {
		t.Errorf("%d ok + %d busy, want %d calls accounted for", ok.Load(), busy.Load(), calls)
	}
}

// TestBudgetWaitEndsWithTheCall: a call that cannot get its first
// reservation waits only within its deadline (rs_busy) or until its caller
// cancels (cancelled), and goes through once bytes are given back.
func TestBudgetWaitEndsWithTheCall(t *testing.T) {
	t.Parallel()
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(okBody(r))) })
	c := newTestClient(t, srv.URL, func(c *Config) {
		c.MaxBodyBytes = 1 << 10
		c.MaxBytesInFlight = 1 << 10
		c.Timeout = 200 * time.Millisecond
	})
	held := c.budget.max
	if !c.budget.tryTake(held) {
		t.Fatal("could not spend the budget")
	}

	short, cancelShort := context.WithTimeout(t.Context(), time.Second)
	defer cancelShort()
	_, _, err := c.Streams(short, testBearer, StreamsQuery{})
	var te *TransportError
	if !errors.As(err, &te) || te.Code != CodeBusy || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("deadline while waiting: err = %v, want %s wrapping the deadline", err, CodeBusy)
	}

	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(20*time.Millisecond, cancel)
	_, _, err = c.Streams(ctx, testBearer, StreamsQuery{})
	if !errors.As(err, &te) || te.Code != CodeCancelled {
		t.Errorf("caller cancelled while waiting: err = %v, want %s", err, CodeCancelled)
	}

	time.AfterFunc(20*time.Millisecond, func() { c.budget.give(held) })
	if _, _, err := c.Streams(t.Context(), testBearer, StreamsQuery{}); err != nil {
		t.Errorf("after release: %v", err)
	}
	if used, _ := c.budget.usage(); used != 0 {
		t.Errorf("%d B still reserved", used)
	}
}

func TestBudgetConfig(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		cfg     Config
		wantErr string
	}{
		{Config{BaseURL: "http://rs.example", MaxBodyBytes: 8 << 20, MaxBytesInFlight: 1 << 20}, "at least MaxBodyBytes"},
		{Config{BaseURL: "http://rs.example", MaxBytesInFlight: -1}, "negative"},
		{Config{BaseURL: "http://rs.example", MaxBodyBytes: 100 << 20}, ""}, // default budget grows to fit
	} {
		_, err := New(tt.cfg)
		if (err == nil) != (tt.wantErr == "") || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("New(%+v) = %v, want error containing %q", tt.cfg, err, tt.wantErr)
		}
	}
}

// TestReadBodySizes: readBody returns every body byte-exact, known length
// or not, across chunk boundaries, with short reads, up to the limit and
// not one byte past it, and gives its whole reservation back.
func TestReadBodySizes(t *testing.T) {
	t.Parallel()
	const maxBody = 3*reserveStep + 7
	for _, size := range []int{0, 1, reserveStep - 1, reserveStep, reserveStep + 1, 2*reserveStep + 5, maxBody, maxBody + 1, 5 * reserveStep} {
		for _, known := range []bool{true, false} {
			for _, short := range []bool{false, true} {
				name := fmt.Sprintf("%d bytes, length known %v, short reads %v", size, known, short)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					want := make([]byte, size)
					for i := range want {
						want[i] = byte(i*7 + i/reserveStep)
					}
					var r io.Reader = bytes.NewReader(want)
					if short {
						r = iotest.HalfReader(r)
					}
					length := int64(-1)
					if known {
						length = int64(size)
					}
					b := newBudget(8 * maxBody)
					got, held, err := b.readBody(t.Context(), r, length, maxBody)
					var te *TransportError
					switch {
					case size > maxBody:
						if !errors.As(err, &te) || te.Code != CodeResponseTooLarge {
							t.Errorf("err = %v, want %s", err, CodeResponseTooLarge)
						}
					case err != nil:
						t.Fatal(err)
					default:
						if !bytes.Equal(got, want) {
							t.Errorf("read %d bytes, not the %d sent", len(got), size)
						}
						b.give(held)
					}
					if used, _ := b.usage(); used != 0 {
						t.Errorf("%d B still reserved", used)
					}
				})
			}
		}
	}
}
