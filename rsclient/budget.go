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

// firstReadBytes is the first reservation when the RS did not send a
// Content-Length (chunked answers): big enough for most error bodies and
// small pages, small enough that a burst of calls does not spend the budget
// before reading anything.
const firstReadBytes = 32 << 10

// errBusy is the cause inside CodeBusy errors.
var errBusy = errors.New("rsclient: response byte budget exhausted")

// readBody reads r whole into memory, at most maxBody bytes, under the
// budget. contentLength is the announced size, -1 if unknown. On success
// the caller must call release once it no longer needs the bytes; on error
// everything is already released.
func (b *budget) readBody(ctx context.Context, r io.Reader, contentLength, maxBody int64) (body []byte, release func(), err error) {
	if contentLength > maxBody {
		return nil, nil, tooLarge()
	}
	size := int64(firstReadBytes)
	if contentLength >= 0 {
		size = contentLength + 1 // +1 sees EOF without growing
	}
	size = min(size, maxBody+1, b.max)
	if err := b.take(ctx, size); err != nil {
		return nil, nil, busy(err)
	}
	held := size
	release = func() { b.give(held) }
	buf := make([]byte, 0, size)
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > maxBody {
				release()
				return nil, nil, tooLarge()
			}
			grow := min(int64(cap(buf)), maxBody+1-int64(cap(buf)))
			if !b.tryTake(grow) {
				release()
				return nil, nil, busy(nil)
			}
			held += grow
			next := make([]byte, len(buf), int64(cap(buf))+grow)
			copy(next, buf)
			buf = next
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			release()
			return nil, nil, err
		}
	}
	if int64(len(buf)) > maxBody {
		release()
		return nil, nil, tooLarge()
	}
	return buf, release, nil
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
