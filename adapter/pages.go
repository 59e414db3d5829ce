package adapter

import "net/http"

// registerPages adds the human and agent setup pages (/connect, /llms.txt)
// to the hosted mux. They are being built under issue 7; until then the
// hosted surface serves only /mcp, metadata and health.
func registerPages(mux *http.ServeMux, h *hosted) {}
