package testenv

import (
	"bytes"
	"strings"
	"sync"
	"time"
)

// Output is what a process writes (its stdout or stderr, through exec's
// copier) while a test reads it: safe for both at once, and a test can
// wait for what it expects without polling.
type Output struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	written chan struct{} // closed and replaced at every write; nil until awaited
}

// Write appends p and wakes every waiter.
func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.written != nil {
		close(o.written)
		o.written = nil
	}
	return o.buf.Write(p)
}

// String is everything written so far.
func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// Await returns once done holds for what was written, or false when
// within passes first (only a hang takes that long): it wakes at each
// write rather than polling.
func (o *Output) Await(done func(string) bool, within time.Duration) bool {
	timeout := time.NewTimer(within)
	defer timeout.Stop()
	for {
		o.mu.Lock()
		if done(o.buf.String()) {
			o.mu.Unlock()
			return true
		}
		if o.written == nil {
			o.written = make(chan struct{})
		}
		written := o.written
		o.mu.Unlock()
		select {
		case <-written:
		case <-timeout.C:
			return false
		}
	}
}

// WaitFor is Await for the output to contain s.
func (o *Output) WaitFor(s string, within time.Duration) bool {
	return o.Await(func(out string) bool { return strings.Contains(out, s) }, within)
}
