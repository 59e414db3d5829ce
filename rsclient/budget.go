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
	freed chan struct{} // closed and replaced when bytes are given back while calls wait
	waits int           // calls waiting on freed
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
		b.waits++
		b.mu.Unlock()
		select {
		case <-freed:
			b.mu.Lock()
			b.waits--
			b.mu.Unlock()
		case <-ctx.Done():
			b.mu.Lock()
			b.waits--
			b.mu.Unlock()
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

// give returns n bytes and wakes the waiters, if any (a new channel per
// give would cost every call an allocation for nothing).
func (b *budget) give(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= n
	if b.waits > 0 {
		close(b.freed)
		b.freed = make(chan struct{})
	}
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

// chunk is one piece of a body of unknown length (chunked answers): such a
// body is read into pooled chunks, then copied out once at its exact size,
// so a call allocates what the body is, not the doubling steps to reach
// it, and the chunks, all of one size, are reused by the next call
// whatever its size.
type chunk [reserveStep]byte

var chunks = sync.Pool{New: func() any { return new(chunk) }}

// errBusy is the cause inside CodeBusy errors.
var errBusy = errors.New("rsclient: response byte budget exhausted")

// readBody reads r whole into memory, at most maxBody bytes, under the
// budget: the bytes read are reserved before they are read (in steps of
// reserveStep or more). contentLength is the announced size, -1 if
// unknown. On success the caller must give(held) once it no longer needs
// the bytes; on error everything is already given back.
func (b *budget) readBody(ctx context.Context, r io.Reader, contentLength, maxBody int64) (body []byte, held int64, err error) {
	if contentLength > maxBody {
		return nil, 0, tooLarge()
	}
	reserve := int64(reserveStep)
	if contentLength >= 0 {
		reserve = contentLength + 1 // +1 sees EOF without growing
	}
	reserve = min(reserve, maxBody+1, b.max)
	if err := b.take(ctx, reserve); err != nil {
		return nil, 0, busy(err)
	}
	rd := bodyReader{b: b, r: r, held: reserve, maxBody: maxBody}
	if contentLength >= 0 {
		body, err = rd.readKnown(make([]byte, 0, reserve))
	} else {
		body, err = rd.readChunked()
	}
	if err != nil {
		b.give(rd.held)
		return nil, 0, err
	}
	return body, rd.held, nil
}

// bodyReader is one readBody call: held is what it has reserved so far.
type bodyReader struct {
	b       *budget
	r       io.Reader
	held    int64
	maxBody int64
}

// room makes sure that the next byte after read bytes is reserved: it
// takes another step (doubling, up to maxBody+1) when all held bytes are
// read, and fails when the body is too large or the budget spent.
func (rd *bodyReader) room(read int64) error {
	if read < rd.held {
		return nil
	}
	if rd.held > rd.maxBody {
		return tooLarge()
	}
	more := min(max(rd.held, reserveStep), rd.maxBody+1-rd.held)
	if !rd.b.tryTake(more) {
		return busy(nil)
	}
	rd.held += more
	return nil
}

// readKnown reads into buf (sized to the announced length + 1), growing
// it only if the body runs past its announced length.
func (rd *bodyReader) readKnown(buf []byte) ([]byte, error) {
	for {
		if err := rd.room(int64(len(buf))); err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // amortised growth
		}
		n, err := rd.r.Read(buf[len(buf):min(int64(cap(buf)), rd.held)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if int64(len(buf)) > rd.maxBody {
		return nil, tooLarge()
	}
	return buf, nil
}

// readChunked reads a body of unknown length into pooled chunks and
// returns one exact-size copy.
func (rd *bodyReader) readChunked() ([]byte, error) {
	var parts []*chunk
	defer func() {
		for _, c := range parts {
			chunks.Put(c)
		}
	}()
	var total, inLast int64 // bytes read; of them, in the last chunk
	for {
		if err := rd.room(total); err != nil {
			return nil, err
		}
		if len(parts) == 0 || inLast == reserveStep {
			parts = append(parts, chunks.Get().(*chunk))
			inLast = 0
		}
		last := parts[len(parts)-1]
		n, err := rd.r.Read(last[inLast:min(reserveStep, inLast+rd.held-total)])
		total += int64(n)
		inLast += int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if total > rd.maxBody {
		return nil, tooLarge()
	}
	body := make([]byte, total)
	for i, c := range parts {
		copy(body[i*reserveStep:], c[:])
	}
	return body, nil
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
