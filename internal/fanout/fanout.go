// Package fanout runs a batch of independent tasks concurrently under a
// bound: the one way the adapter reads several grants, sources, probes or
// hit titles at once.
//
// Run starts n tasks, at most Options.Limit of them at a time and, when
// Options.Shared is set, each also under a limiter shared by every batch of
// the process. What it guarantees, and why each matters to a caller:
//
//   - A task waiting for a slot watches ctx: once ctx ends, every task not
//     yet started reports ctx's error and never runs, so a cancelled call
//     does not queue work it will never use.
//   - A task's own deadline (Options.Timeout) starts when the task starts,
//     not when it was queued: a task behind a slow one still gets all of
//     its time.
//   - Results come back by index, whatever order the tasks ended in.
//   - When Run returns, no task is running: a caller whose reads should
//     outlive it (answers that fill a cache after the caller stopped
//     waiting) starts them detached itself and waits for them here, or
//     not at all.
//   - A task's panic is not swallowed: Run panics with a *TaskPanic on the
//     caller's goroutine once the other tasks are done.
//
// It imports no project package, so every layer may use it.
package fanout

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"time"
)

// Options bounds one Run. The zero value runs every task at once, with no
// deadline of its own, and waits for all of them.
type Options struct {
	// Limit is the most tasks of this Run that run at once. Zero or less
	// means no bound of its own: every task may start at once (a Shared
	// limiter may still queue them).
	Limit int
	// Shared, when set, is a limiter several Runs (and other callers)
	// share, e.g. one per process: a task also holds one of its slots
	// while it runs.
	Shared *Limiter
	// Timeout, when positive, is each task's own deadline, started when
	// the task starts (after its slots are taken).
	Timeout time.Duration
}

// TaskPanic is the value Run panics with when a task panicked: which
// task, what it panicked with, and the task's stack at the panic.
type TaskPanic struct {
	Index int
	Value any
	Stack []byte
}

// Error says which task panicked and with what, then the task's stack.
func (p *TaskPanic) Error() string {
	return fmt.Sprintf("fanout: task %d panicked: %v\n\n%s", p.Index, p.Value, p.Stack)
}

// Unwrap is the panic's value when it is an error.
func (p *TaskPanic) Unwrap() error {
	err, _ := p.Value.(error)
	return err
}

// Run runs task(ctx, i) for every i in [0, n) under opts and returns each
// task's value and error at its index (len n each). A task that never ran
// (its ctx ended while it waited for a slot) has its zero value and ctx's
// error.
//
// A lone task (n == 1) runs on the caller's goroutine: the usual
// single-source call starts no goroutine.
func Run[T any](ctx context.Context, n int, opts Options, task func(ctx context.Context, i int) (T, error)) ([]T, []error) {
	vals, errs := make([]T, max(n, 0)), make([]error, max(n, 0))
	switch {
	case n <= 0:
		return vals, errs
	case n == 1:
		vals[0], errs[0] = runInline(ctx, opts, task)
		return vals, errs
	}
	b := newBatch[T](n)
	workers := n
	if opts.Limit > 0 {
		workers = min(opts.Limit, n)
	}
	var running sync.WaitGroup
	for range workers {
		running.Go(func() { b.work(ctx, opts, task) })
	}
	b.wait(ctx)
	running.Wait() // the workers are leaving: none outlives Run
	return b.close(vals, errs)
}

// runInline runs a lone task on the caller's goroutine; its panic comes
// out as a *TaskPanic, as from a task on a goroutine of its own.
func runInline[T any](ctx context.Context, opts Options, task func(context.Context, int) (T, error)) (T, error) {
	defer func() {
		if r := recover(); r != nil {
			panic(&TaskPanic{Index: 0, Value: r, Stack: debug.Stack()})
		}
	}()
	return runOne(ctx, opts, 0, task)
}

// runOne runs task i once its shared slot is free (a wait that watches
// ctx), under its own Timeout from then. A ctx already ended runs nothing.
func runOne[T any](ctx context.Context, opts Options, i int, task func(context.Context, int) (T, error)) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	if opts.Shared != nil {
		release, err := opts.Shared.Acquire(ctx)
		if err != nil {
			return zero, err
		}
		defer release()
	}
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	return task(ctx, i)
}

// batch is one Run's shared state: the queue of tasks not yet started and
// the outcomes of those that ended. Only the caller's goroutine reads the
// outcomes, after every task ended.
type batch[T any] struct {
	mu       sync.Mutex
	next     int // the first task not yet taken
	left     int // tasks neither ended nor skipped
	vals     []T
	errs     []error
	panicked *TaskPanic
	done     chan struct{} // closed when left reaches 0
}

func newBatch[T any](n int) *batch[T] {
	return &batch[T]{left: n, vals: make([]T, n), errs: make([]error, n), done: make(chan struct{})}
}

// take hands a worker the next task, or false when none is left.
func (b *batch[T]) take() (int, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.next >= len(b.vals) {
		return 0, false
	}
	b.next++
	return b.next - 1, true
}

// work runs tasks one after another until none is left: a worker is one
// slot of the Run's Limit, so a task waits for its slot in the queue.
func (b *batch[T]) work(ctx context.Context, opts Options, task func(context.Context, int) (T, error)) {
	for {
		i, ok := b.take()
		if !ok {
			return
		}
		b.runTask(ctx, opts, i, task)
	}
}

// runTask runs task i and records its outcome; a panic is recorded as a
// TaskPanic for the caller.
func (b *batch[T]) runTask(ctx context.Context, opts Options, i int, task func(context.Context, int) (T, error)) {
	var v T
	var err error
	defer func() {
		var p *TaskPanic
		if r := recover(); r != nil {
			p = &TaskPanic{Index: i, Value: r, Stack: debug.Stack()}
		}
		b.end(i, v, err, p)
	}()
	v, err = runOne(ctx, opts, i, task)
}

// end records task i's outcome.
func (b *batch[T]) end(i int, v T, err error, p *TaskPanic) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.vals[i], b.errs[i] = v, err
	if p != nil && b.panicked == nil {
		b.panicked = p
	}
	b.left--
	if b.left == 0 {
		close(b.done)
	}
}

// wait returns when every task has ended; once ctx ends it skips the
// queued tasks (each reports ctx's error) and waits for the running ones.
func (b *batch[T]) wait(ctx context.Context) {
	select {
	case <-b.done:
		return
	case <-ctx.Done():
	}
	b.skipQueued(ctx.Err())
	<-b.done
}

// skipQueued ends every task not yet taken with err.
func (b *batch[T]) skipQueued(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.next == len(b.vals) {
		return // every task was taken: the last to end closes done
	}
	for ; b.next < len(b.vals); b.next++ {
		b.errs[b.next] = err
		b.left--
	}
	if b.left == 0 {
		close(b.done)
	}
}

// close hands the outcomes to the caller, every task having ended. It
// panics with the first task's panic, if any.
func (b *batch[T]) close(vals []T, errs []error) ([]T, []error) {
	b.mu.Lock()
	copy(vals, b.vals)
	copy(errs, b.errs)
	p := b.panicked
	b.mu.Unlock()
	if p != nil {
		panic(p)
	}
	return vals, errs
}

// Limiter bounds how many tasks hold one of its slots at once, across
// every Run (and any other caller) that shares it. Waiters are served
// about in arrival order (a channel's send queue is FIFO).
type Limiter struct {
	slots chan struct{}
}

// NewLimiter returns a limiter of n slots; n below 1 is taken as 1.
func NewLimiter(n int) *Limiter {
	return &Limiter{slots: make(chan struct{}, max(n, 1))}
}

// Acquire waits for a slot within ctx; release gives it back (once). A
// ctx that has ended gets no slot, even when one is free.
func (l *Limiter) Acquire(ctx context.Context) (release func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case l.slots <- struct{}{}:
		return func() { <-l.slots }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
