package rsclient

import (
	"context"
	"errors"
	"io"
	"sync"
)

// budget is the Client-wide allowance of RS response bytes held in memory
// at once (Config.MaxBytesInFlight). Each call reserves what its body
// buffer holds, in growing steps, and gives it all back when the body has
// been decoded, on every path.
//
// Only a call's first reservation may wait (within the call's deadline):
// it holds nothing yet, so waiting cannot block anyone. Every later step
// only tries, and fails the call with CodeBusy when the budget is spent, so
// no call ever waits on bytes another call holds while holding some itself.
// (A FIFO semaphore will not do: its TryAcquire fails whenever anyone
// waits, so calls half-way through a body would fail because a new call
// queued up.)
type budget struct {
	mu    sync.Mutex
	used  int64
	peak  int64 // highest used so far (tests, metrics)
	max   int64
	freed chan struct{} // closed and replaced whenever bytes are given back
}

func newBudget(n int64) *budget { return &budget{max: n, freed: make(chan struct{})} }

// take reserves n bytes, waiting for releases until ctx is done.
func (b *budget) take(ctx context.Context, n int64) error {
	for {
		b.mu.Lock()
		if b.used+n <= b.max {
			b.used += n
			b.peak = max(b.peak, b.used)
			b.mu.Unlock()
			return nil
		}
		freed := b.freed
		b.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// tryTake reserves n bytes if they are free now.
func (b *budget) tryTake(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.max {
		return false
	}
	b.used += n
	b.peak = max(b.peak, b.used)
	return true
}

// give returns n bytes and wakes the waiters.
func (b *budget) give(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= n
	close(b.freed)
	b.freed = make(chan struct{})
}

// usage reports the bytes reserved now and the most ever reserved at once.
func (b *budget) usage() (used, peak int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used, b.peak
}

// reserveStep is the smallest reservation: big enough for most error
// bodies and small pages, small enough that a burst of calls does not
// spend the budget before reading anything.
const reserveStep = 32 << 10

// maxPooledScratch bounds the read buffers kept for reuse, so one huge
// answer does not pin its buffer.
const maxPooledScratch = 1 << 20

// scratch holds read buffers for bodies of unknown length (chunked
// answers): a body is read into one, then copied out at its exact size,
// so a call allocates what the body is, not the doubling steps to reach it.
var scratch = sync.Pool{New: func() any { b := make([]byte, 0, reserveStep); return &b }}

// errBusy is the cause inside CodeBusy errors.
var errBusy = errors.New("rsclient: response byte budget exhausted")

// readBody reads r whole into memory, at most maxBody bytes, under the
// budget: the bytes read are reserved before they are read (in steps of
// reserveStep or more). contentLength is the announced size, -1 if
// unknown. On success the caller must call release once it no longer needs
// the bytes; on error everything is already released.
func (b *budget) readBody(ctx context.Context, r io.Reader, contentLength, maxBody int64) (body []byte, release func(), err error) {
	if contentLength > maxBody {
		return nil, nil, tooLarge()
	}
	reserve := int64(reserveStep)
	if contentLength >= 0 {
		reserve = contentLength + 1 // +1 sees EOF without growing
	}
	reserve = min(reserve, maxBody+1, b.max)
	if err := b.take(ctx, reserve); err != nil {
		return nil, nil, busy(err)
	}
	held := reserve
	release = func() { b.give(held) }
	fail := func(err error) ([]byte, func(), error) {
		release()
		return nil, nil, err
	}

	var buf []byte
	var pooled *[]byte
	if contentLength >= 0 {
		buf = make([]byte, 0, reserve)
	} else {
		pooled = scratch.Get().(*[]byte)
		buf = (*pooled)[:0]
		defer func() {
			if cap(buf) <= maxPooledScratch {
				*pooled = buf[:0]
				scratch.Put(pooled)
			}
		}()
	}
	for {
		if int64(len(buf)) == held {
			if held > maxBody {
				return fail(tooLarge())
			}
			more := min(max(held, reserveStep), maxBody+1-held)
			if !b.tryTake(more) {
				return fail(busy(nil))
			}
			held += more
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // amortised growth
		}
		n, err := r.Read(buf[len(buf):min(int64(cap(buf)), held)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(err)
		}
	}
	if int64(len(buf)) > maxBody {
		return fail(tooLarge())
	}
	if pooled == nil {
		return buf, release, nil
	}
	return append([]byte(nil), buf...), release, nil
}

// busy: the budget is spent. cause is the context error when the call
// gave up waiting for its first reservation.
func busy(cause error) error {
	return &TransportError{Code: CodeBusy, Message: "too many resource-server answers are being read at once; retry shortly",
		Err: errors.Join(errBusy, cause)}
}

func tooLarge() error {
	return &TransportError{Code: CodeResponseTooLarge, Message: "response body exceeds the configured limit"}
}

// BytesInFlight reports the RS response bytes this Client holds now and the
// most it has held at once (Config.MaxBytesInFlight bounds both), so tests
// and metrics can see that concurrent answers stay within the budget and
// that every call gives its bytes back.
func (c *Client) BytesInFlight() (now, peak int64) { return c.budget.usage() }
