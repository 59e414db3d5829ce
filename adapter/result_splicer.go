package adapter

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"strconv"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/pdpp/pdpp-mcp/page"
)

// The result fast path. mcp-go encodes a tools/call answer by building a
// map in CallToolResult.MarshalJSON and marshalling it, and encoding/json
// compacts that output again: the text is escaped once, but the
// structuredContent bytes are scanned twice and the whole answer once
// more (a third of the hosted door's CPU on the e2e mix). Here the
// adapter encodes each result once, with its own ordered encoder, and
// hands mcp-go a placeholder result instead: mcp-go still dispatches,
// validates, decorates and frames the JSON-RPC answer, and the transport's
// writer (the hosted door's held answer, the stdio writer) splices the
// encoded members in place of the placeholder's content member. The
// spliced answer parses to the same JSON value as mcp-go's own encoding
// of the result (TestFastPathMatchesMCPGo, FuzzFastPathRecordsPage).
//
// Only results a handler of this adapter made take the path, and only
// when the transport named a ResultSplicer in its Request; anything
// mcp-go substitutes (an input-validation error, a recovered panic) is
// encoded by mcp-go as before.

// ResultSplicer holds the results encoded during one transport's calls
// until their answers are written. The hosted door keeps one per request
// (in its held answer), stdio one per process. Safe for concurrent use.
// The zero value is ready.
type ResultSplicer struct {
	mu   sync.Mutex
	next uint64
	held []heldResult
	// observe, when set (tests only), sees every result stashed.
	observe func(res *mcp.CallToolResult)
}

// heldResult is one encoded result, by its placeholder number: buf holds
// envelopeRoom free bytes, then the members ("content":[…],
// "structuredContent":…,"isError":true), then free capacity, so that Join
// can write the envelope around the members in place.
type heldResult struct {
	n   uint64
	buf []byte
}

// members is the result's encoded members.
func (h heldResult) members() []byte { return h.buf[envelopeRoom:] }

// envelopeRoom and envelopeTail are the bytes a result is encoded with
// before and after its members, for the JSON-RPC envelope mcp-go writes
// around them (`{"jsonrpc":"2.0","id":7,"result":{` and `}}` with a
// newline for stdio: a few dozen bytes). A longer envelope (a long
// request id) is joined into a new buffer instead.
const (
	envelopeRoom = 128
	envelopeTail = 64
)

// markerPrefix starts every placeholder text; the random part keeps a
// placeholder from ever being guessed (the spliced messages are mcp-go's
// envelopes around placeholders only, never RS data, so nothing else can
// carry it anyway).
var markerPrefix = func() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "pdpp-result-" + hex.EncodeToString(b) + "-"
}()

// placeholderPre and placeholderPost surround a placeholder's marker in
// mcp-go's encoding of the placeholder result: the content member that the
// splice replaces. They are taken from mcp-go itself, so a change in its
// encoding changes them too (and TestFastPathMatchesMCPGo still holds
// the result).
var placeholderPre, placeholderPost = func() ([]byte, []byte) {
	const probe = "PROBE"
	b, err := json.Marshal(&mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(probe)}})
	if err != nil {
		panic(err)
	}
	b = b[1 : len(b)-1] // the members, without the object's braces
	i := bytes.Index(b, []byte(probe))
	return append(b[:i:i], markerPrefix...), b[i+len(probe):]
}()

// stash encodes res and returns the placeholder mcp-go answers with; res
// itself when it carries anything the fast encoder does not write.
func (sp *ResultSplicer) stash(res *mcp.CallToolResult) *mcp.CallToolResult {
	structured, ok := structuredJSON(res)
	if !ok {
		return res
	}
	buf := make([]byte, envelopeRoom, envelopeRoom+contentSize(res.Content)+len(structured)+64+envelopeTail)
	buf, ok = appendResultMembers(buf, res)
	if !ok {
		return res
	}
	if sp.observe != nil {
		sp.observe(res)
	}
	sp.mu.Lock()
	sp.next++
	n := sp.next
	sp.held = append(sp.held, heldResult{n: n, buf: buf})
	sp.mu.Unlock()
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(markerPrefix + strconv.FormatUint(n, 10))}}
}

// take removes and returns the result held under n.
func (sp *ResultSplicer) take(n uint64) (heldResult, bool) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	for i, h := range sp.held {
		if h.n == n {
			sp.held[i] = sp.held[len(sp.held)-1]
			sp.held[len(sp.held)-1] = heldResult{}
			sp.held = sp.held[:len(sp.held)-1]
			return h, true
		}
	}
	return heldResult{}, false
}

// pending reports whether any result waits for its answer.
func (sp *ResultSplicer) pending() bool {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return len(sp.held) > 0
}

// Reset drops whatever is held (a result whose answer was never written);
// the hosted door resets its per-request splicer before reusing it.
func (sp *ResultSplicer) Reset() {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	clear(sp.held)
	sp.held = sp.held[:0]
}

// Join returns msg, one outgoing message (or several), with each
// placeholder's content member replaced by its held result's members, as
// one buffer for one write. A message without placeholders is msg itself.
// A message with one placeholder — every tools/call answer — is written
// in place around the held result's bytes when its envelope fits the room
// they were encoded with: no copy of the result. The buffer may share msg
// and the held bytes.
func (sp *ResultSplicer) Join(msg []byte) []byte {
	if !sp.pending() {
		return msg
	}
	if i, end, n, ok := placeholderAt(msg); ok && !bytes.Contains(msg[end:], placeholderPre) {
		if h, ok := sp.take(n); ok {
			return h.wrap(msg[:i], msg[end:])
		}
	}
	segments := sp.segments(msg)
	if len(segments) == 1 { // nothing of this message was held
		return segments[0]
	}
	return bytes.Join(segments, nil)
}

// wrap is pre, the members, post: in place when pre fits the room before
// the members and post the capacity after them, else in a new buffer.
func (h heldResult) wrap(pre, post []byte) []byte {
	if len(pre) <= envelopeRoom && cap(h.buf)-len(h.buf) >= len(post) {
		start := envelopeRoom - len(pre)
		copy(h.buf[start:], pre)
		return append(h.buf, post...)[start:]
	}
	return bytes.Join([][]byte{pre, h.members(), post}, nil)
}

// placeholderAt finds the first placeholder in msg: its content member
// spans msg[i:end] and holds result n. i is -1 when msg has no
// placeholderPre; ok is false when the first one is not followed by a
// number and placeholderPost.
func placeholderAt(msg []byte) (i, end int, n uint64, ok bool) {
	i = bytes.Index(msg, placeholderPre)
	if i < 0 {
		return -1, 0, 0, false
	}
	numStart := i + len(placeholderPre)
	numEnd := numStart
	for numEnd < len(msg) && msg[numEnd] >= '0' && msg[numEnd] <= '9' {
		numEnd++
	}
	n, err := strconv.ParseUint(string(msg[numStart:numEnd]), 10, 64)
	if err != nil || !bytes.HasPrefix(msg[numEnd:], placeholderPost) {
		return i, 0, 0, false
	}
	return i, numEnd + len(placeholderPost), n, true
}

// segments is msg as segments to write in order: each placeholder's
// content member replaced by its held result's members (a placeholder
// nothing is held for stays as it is). The segments share msg and the
// held bytes.
func (sp *ResultSplicer) segments(msg []byte) [][]byte {
	var out [][]byte
	for {
		i, end, n, ok := placeholderAt(msg)
		if i < 0 {
			break
		}
		if ok {
			if h, held := sp.take(n); held {
				out = append(out, msg[:i], h.members())
				msg = msg[end:]
				continue
			}
		}
		cut := i + len(placeholderPre)
		out = append(out, msg[:cut])
		msg = msg[cut:]
	}
	return append(out, msg)
}

// appendResultMembers appends res's members as mcp-go would encode them
// (content, structuredContent, isError), each value written once: text
// escaped in place, structured content as the adapter encoded it. ok is
// false for a result with members this encoder does not write (_meta,
// resultType, multi-round-trip fields); mcp-go encodes those.
func appendResultMembers(dst []byte, res *mcp.CallToolResult) ([]byte, bool) {
	if res.Meta != nil || res.ResultType != "" || len(res.InputRequests) > 0 || res.RequestState != "" {
		return dst, false
	}
	structured, ok := structuredJSON(res)
	if !ok {
		return dst, false
	}
	if dst == nil {
		dst = make([]byte, 0, contentSize(res.Content)+len(structured)+64)
	}
	dst = append(dst, `"content":[`...)
	for i, c := range res.Content {
		if i > 0 {
			dst = append(dst, ',')
		}
		if dst, ok = appendContent(dst, c); !ok {
			return dst, false
		}
	}
	dst = append(dst, ']')
	if structured != nil {
		dst = append(dst, `,"structuredContent":`...)
		dst = append(dst, structured...)
	}
	if res.IsError {
		dst = append(dst, `,"isError":true`...)
	}
	return dst, true
}

// contentSize is about the encoded size of content: a text's exact JSON
// string length (a page's newlines and quotes are escaped: sized by its
// raw length the buffer doubled, twice the answer's bytes) plus its
// item's members; an estimate for anything else.
func contentSize(content []mcp.Content) int {
	n := 0
	for _, c := range content {
		if t, ok := c.(mcp.TextContent); ok {
			n += page.JSONStringLen(t.Text) + 32
		} else {
			n += 256
		}
	}
	return n
}

// structuredJSON is res's structured content as JSON (nil when absent).
// The adapter's own values are written by its encoders, which produce
// compact, valid JSON (pinned by the goldens and fuzz oracles), so they are
// not scanned again.
func structuredJSON(res *mcp.CallToolResult) ([]byte, bool) {
	if len(res.RawStructuredContent) > 0 {
		return res.RawStructuredContent, true
	}
	switch v := res.StructuredContent.(type) {
	case nil:
		return nil, true
	case json.RawMessage:
		if v == nil {
			return []byte("null"), true
		}
		return v, true
	case errorContent:
		return v.body, true
	}
	return nil, false
}

// appendContent appends one content item: a plain text item directly,
// anything else (resource links: a few short strings) through
// encoding/json.
func appendContent(dst []byte, c mcp.Content) ([]byte, bool) {
	if t, ok := c.(mcp.TextContent); ok && t.Annotations == nil && t.Meta == nil {
		dst = append(dst, `{"type":`...)
		dst = page.AppendJSONString(dst, t.Type)
		dst = append(dst, `,"text":`...)
		dst = page.AppendJSONString(dst, t.Text)
		return append(dst, '}'), true
	}
	b, err := json.Marshal(c)
	if err != nil {
		return dst, false
	}
	return append(dst, b...), true
}

// SplicingWriter passes each write of a line-oriented transport (stdio:
// one JSON-RPC message and its newline per write) through sp.Join and
// writes the result with one Write.
func SplicingWriter(sp *ResultSplicer, w io.Writer) io.Writer { return splicingWriter{sp, w} }

type splicingWriter struct {
	sp *ResultSplicer
	w  io.Writer
}

// Write writes the spliced message with one Write: a message in three
// writes cost three system calls on the stdout pipe, and the reader three
// wake-ups.
func (s splicingWriter) Write(p []byte) (int, error) {
	if _, err := s.w.Write(s.sp.Join(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
