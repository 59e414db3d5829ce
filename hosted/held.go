package hosted

import (
	"bytes"
	"net/http"
	"strconv"
	"sync"

	"github.com/pdpp/pdpp-mcp/adapter"
)

// heldResponse is the writer mcp-go answers into (its HTTPResponseWriter):
// it keeps the MCP answer in memory until the handler returns, so the door
// can still replace it with a 401 challenge. It cannot stream (CanStream
// is false), so mcp-go answers one application/json body, never SSE;
// tool results are bounded by the adapter, so holding one answer is
// bounded too.
type heldResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
	// results holds the tool results the adapter encoded for this
	// request; writeTo splices them into mcp-go's answer.
	results adapter.ResultSplicer
}

// maxPooledHeld is the largest held body kept for reuse: most answers are
// a few KiB, and a pooled buffer should not pin a rare large one. Pooling
// page-sized answers (up to 64 KiB) kept one such buffer per concurrent
// call alive across GC cycles: +5 MB peak RSS under 64 clients
// (make bench-e2e, 42.7-44.4 against 38.3-39.8 MB at 16 KiB).
const maxPooledHeld = 16 << 10

// chunkingThreshold is the answer size up to which net/http buffers an
// answer and declares its length itself (its bufferBeforeChunkingSize).
const chunkingThreshold = 2048

// heldPool reuses held responses (header map and body buffer) across
// requests.
var heldPool = sync.Pool{New: func() any { return &heldResponse{header: http.Header{}} }}

func newHeldResponse() *heldResponse { return heldPool.Get().(*heldResponse) }

// release returns h to the pool; h and its body must not be used after.
func (h *heldResponse) release() {
	if h.body.Cap() > maxPooledHeld {
		return
	}
	clear(h.header)
	h.status = 0
	h.body.Reset()
	h.results.Reset()
	heldPool.Put(h)
}

func (h *heldResponse) Header() http.Header { return h.header }

func (h *heldResponse) WriteHeader(status int) {
	if h.status == 0 {
		h.status = status
	}
}

func (h *heldResponse) Write(p []byte) (int, error) {
	if h.status == 0 {
		h.status = http.StatusOK
	}
	return h.body.Write(p)
}

// Flush does nothing: the answer is sent whole by writeTo.
func (h *heldResponse) Flush() {}

// CanStream is false: mcp-go then keeps a POST's answer a single JSON
// body instead of upgrading it to an SSE stream.
func (h *heldResponse) CanStream() bool { return false }

// writeTo sends the held answer; with typeErrors, its resource errors
// typed (adapter.TypedErrors); the adapter's encoded tool results spliced
// in (adapter.ResultSplicer) after that, so TypedErrors never scans them.
func (h *heldResponse) writeTo(w http.ResponseWriter, typeErrors bool) {
	body := h.body.Bytes()
	if typeErrors {
		body = adapter.TypedErrors(body)
	}
	// One buffer, one Write: net/http copies what fits into its 4 KiB
	// connection buffer and writes the rest at once, so a page goes out
	// in two system calls; written segment by segment, the envelope's
	// last bytes waited in the buffer for a third (seen with strace on
	// loopback). Join writes the envelope around the result's own bytes.
	body = h.results.Join(body)
	dst := w.Header()
	for k, v := range h.header {
		dst[k] = v
	}
	// The body may have been rewritten, so mcp-go's length (if any) is
	// dropped. net/http frames a small answer with its length by itself;
	// a larger one would go out chunked — a framing write and a final
	// chunk of its own — unless its length is declared here.
	dst.Del("Content-Length")
	if n := len(body); n > chunkingThreshold {
		dst["Content-Length"] = []string{strconv.Itoa(n)}
	}
	if h.status == 0 {
		h.status = http.StatusOK
	}
	w.WriteHeader(h.status)
	_, _ = w.Write(body)
}
