package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/pdpp/pdpp-mcp/adapter"
)

// stdioDrainTimeout bounds how long stdio waits, after stdin closed, for
// the calls in flight to answer (they are cancelled at once, so they
// normally answer in milliseconds). Whatever is still unanswered then gets
// a typed `cancelled` answer written by the drain itself.
const stdioDrainTimeout = 5 * time.Second

// stdioDrain makes sure every request read from stdin is answered before
// the process exits. mcp-go's stdio server, at EOF, cancels its context
// and stops its workers, so calls still queued behind its worker pool were
// never answered. Here EOF is held back from it: the drain cancels the
// calls in flight (the adapter answers them `cancelled`), waits until
// every request read has an answer or stdioDrainTimeout passes, answers
// the rest itself, and only then lets mcp-go see EOF.
type stdioDrain struct {
	in  *bufio.Reader
	out io.Writer

	// shutdown is done at stdin EOF; tool calls run under it
	// (adapter.Request.Shutdown).
	shutdown context.Context
	stop     context.CancelFunc

	mu      sync.Mutex
	pending map[string]pendingRequest // by the request id's JSON
	idle    chan struct{}             // closed when pending empties after EOF
	given   bool                      // the drain answered for the rest: later writes are dropped
	buf     []byte                    // unread rest of the current line
	eof     bool
	timeout time.Duration
	// finished is closed once the drain has answered every request.
	finished chan struct{}
}

// pendingRequest is one request read and not yet answered.
type pendingRequest struct {
	id     json.RawMessage
	method string
	n      int // same id sent again before the answer
}

func newStdioDrain(in io.Reader, out io.Writer, timeout time.Duration) *stdioDrain {
	shutdown, stop := context.WithCancel(context.Background())
	return &stdioDrain{in: bufio.NewReaderSize(in, 64<<10), out: out, shutdown: shutdown, stop: stop,
		pending: map[string]pendingRequest{}, idle: make(chan struct{}), timeout: timeout, finished: make(chan struct{})}
}

// Read hands mcp-go stdin line by line, noting each request's id. At EOF
// it drains before returning io.EOF.
func (d *stdioDrain) Read(p []byte) (int, error) {
	if len(d.buf) == 0 && !d.eof {
		line, err := d.in.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] != '\n' {
			line = append(line, '\n') // a last line without newline is still a message
		}
		d.note(line)
		d.buf = line
		if err != nil {
			d.mu.Lock()
			d.eof = true // Write reads it under mu
			d.mu.Unlock()
		}
	}
	if len(d.buf) > 0 {
		n := copy(p, d.buf)
		d.buf = d.buf[n:]
		return n, nil
	}
	d.drain()
	return 0, io.EOF
}

// note records a request (a message with a method and an id).
func (d *stdioDrain) note(line []byte) {
	id, method, ok := messageID(line)
	if !ok || method == "" {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	pr := d.pending[string(id)]
	d.pending[string(id)] = pendingRequest{id: id, method: method, n: pr.n + 1}
}

// Write passes one mcp-go message to stdout and marks a response's request
// answered. mcp-go writes each message whole, in one call.
func (d *stdioDrain) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.given {
		return len(p), nil // the drain already answered; never two answers
	}
	if id, method, ok := messageID(p); ok && method == "" {
		if pr, found := d.pending[string(id)]; found {
			if pr.n--; pr.n > 0 {
				d.pending[string(id)] = pr
			} else {
				delete(d.pending, string(id))
			}
		}
	}
	n, err := d.out.Write(p)
	if d.eof && len(d.pending) == 0 {
		d.closeIdle()
	}
	return n, err
}

func (d *stdioDrain) closeIdle() {
	select {
	case <-d.idle:
	default:
		close(d.idle)
	}
}

// drain cancels the calls in flight, waits for their answers within the
// timeout, and answers whatever is left.
func (d *stdioDrain) drain() {
	d.stop()
	d.mu.Lock()
	if len(d.pending) == 0 {
		d.closeIdle()
	}
	d.mu.Unlock()
	t := time.NewTimer(d.timeout)
	defer t.Stop()
	select {
	case <-d.idle:
	case <-t.C:
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, pr := range d.pending {
		for range pr.n {
			_, _ = d.out.Write(cancelledAnswer(pr))
		}
	}
	d.pending = map[string]pendingRequest{}
	d.given = true
	close(d.finished)
}

// stdioExitGrace bounds how long stdio waits for mcp-go to stop after the
// drain answered everything (a handler that ignores cancellation must not
// keep the process alive).
const stdioExitGrace = 2 * time.Second

// serveStdio serves srv on stdin/stdout until EOF or ctx ends, answering
// every request read before it returns (stdioDrain).
func serveStdio(ctx context.Context, srv *adapter.Server, stdin io.Reader, stdout io.Writer, logger *slog.Logger) error {
	// Tool results are encoded once by the adapter and spliced into
	// mcp-go's answers on their way out (adapter.ResultSplicer), after
	// TypedErrors has looked at the small envelope.
	results := &adapter.ResultSplicer{}
	d := newStdioDrain(stdin, adapter.TypedErrorWriter(adapter.SplicingWriter(results, stdout)), stdioDrainTimeout)
	stdio := server.NewStdioServer(srv.MCP())
	stdio.SetErrorLogger(slog.NewLogLogger(logger.Handler(), slog.LevelError))
	stdio.SetContextFunc(func(ctx context.Context) context.Context {
		return adapter.WithRequest(ctx, adapter.Request{Results: results, Shutdown: d.shutdown})
	})
	done := make(chan error, 1)
	go func() { done <- stdio.Listen(ctx, d, d) }()
	select {
	case err := <-done:
		return err
	case <-d.finished:
	}
	select {
	case err := <-done:
		return err
	case <-time.After(stdioExitGrace):
		logger.Warn("stdio: a call did not stop after cancellation; exiting without it (its answer was written)")
		return nil
	}
}

// cancelledAnswer is the drain's own answer to a request: a tool call gets
// the adapter's typed `cancelled` result, anything else a JSON-RPC error.
func cancelledAnswer(pr pendingRequest) []byte {
	msg := map[string]any{"jsonrpc": "2.0", "id": pr.id}
	if pr.method == string(mcp.MethodToolsCall) {
		msg["result"] = adapter.CancelledToolResult()
	} else {
		msg["error"] = map[string]any{"code": mcp.INTERNAL_ERROR, "message": "cancelled: stdin closed before this request was answered"}
	}
	b, _ := json.Marshal(msg)
	return append(b, '\n') // out types the error, as for every answer
}

// messageID reads a JSON-RPC message's id and method (empty for a
// response) without decoding the rest: it stops as soon as it knows both
// the id and the kind, and mcp-go writes jsonrpc and id before result, so
// a large result is never scanned. ok is false for anything without an
// id (a notification, a line that is not an object).
func messageID(msg []byte) (id json.RawMessage, method string, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(msg))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, "", false
	}
	var m idScan
	for dec.More() && !m.known() {
		if err := m.member(dec); err != nil {
			return nil, "", false
		}
	}
	if m.id == nil || string(m.id) == "null" || (m.method == "" && !m.response) {
		return nil, "", false
	}
	return compactJSON(m.id), m.method, true
}

// idScan is what messageID has read of a message so far.
type idScan struct {
	id       json.RawMessage
	method   string
	response bool // a result or error member was seen
}

// known reports whether the id and the message's kind are both read.
func (m *idScan) known() bool { return m.id != nil && (m.method != "" || m.response) }

// member reads one member: the id and method are kept, result and error
// mark a response (their value is skipped only while the id is still to
// come), anything else is skipped.
func (m *idScan) member(dec *json.Decoder) error {
	key, err := dec.Token()
	if err != nil {
		return err
	}
	switch key {
	case "id":
		return dec.Decode(&m.id)
	case "method":
		return dec.Decode(&m.method)
	case "result", "error":
		m.response = true
		if m.id != nil {
			return nil
		}
	}
	return dec.Decode(new(json.RawMessage))
}

func compactJSON(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}
