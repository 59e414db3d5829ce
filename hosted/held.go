package hosted

import (
	"bytes"
	"net/http"

	"github.com/pdpp/pdpp-mcp/adapter"
)

// heldResponse is an http.ResponseWriter that keeps the MCP answer in
// memory until the handler returns, so the door can still replace it with
// a 401 challenge. Streaming is disabled and tool results are bounded by
// the adapter, so holding one answer is bounded too.
type heldResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func newHeldResponse() *heldResponse { return &heldResponse{header: http.Header{}} }

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

// writeTo sends the held answer, its resource errors typed
// (adapter.TypedErrors).
func (h *heldResponse) writeTo(w http.ResponseWriter) {
	body := adapter.TypedErrors(h.body.Bytes())
	for k, v := range h.header {
		w.Header()[k] = v
	}
	w.Header().Del("Content-Length") // the body may have been rewritten
	if h.status == 0 {
		h.status = http.StatusOK
	}
	w.WriteHeader(h.status)
	_, _ = w.Write(body)
}
