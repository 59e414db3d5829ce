package hosted

import (
	"net/http"
	"strings"
)

// CORS on /mcp. A browser MCP client served from another origin (the MCP
// Inspector's web UI, a web app the operator lists in AllowedOrigins)
// sends a pre-flight OPTIONS without credentials before its POST; answered
// with the bearer challenge (401) and no Access-Control-* headers, the
// browser never sent the POST. Only the origins the operator configured
// get CORS headers: everyone else's pre-flight and requests still meet the
// Origin check's 403, and a browser on a page of another origin reads
// nothing.

// corsAllowHeaders are the request headers an MCP client sends on /mcp.
const corsAllowHeaders = "Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID"

// corsExposeHeaders are the response headers a browser client must read:
// the challenge that starts sign-in, and the MCP transport headers.
const corsExposeHeaders = "WWW-Authenticate, Mcp-Session-Id, Mcp-Protocol-Version"

// corsMaxAge lets a browser reuse a pre-flight for ten minutes.
const corsMaxAge = "600"

// withCORS answers the pre-flight of a configured origin before any other
// check (it carries no bearer by design) and adds the CORS response
// headers to that origin's requests; everything else passes to next
// untouched.
func (h *hosted) withCORS(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		origin, ok := h.corsOrigin(r)
		if !ok {
			next(w, r)
			return
		}
		hdr := w.Header()
		hdr.Set("Access-Control-Allow-Origin", origin)
		hdr.Add("Vary", "Origin")
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			hdr.Add("Vary", "Access-Control-Request-Method, Access-Control-Request-Headers")
			hdr.Set("Access-Control-Allow-Methods", http.MethodPost)
			hdr.Set("Access-Control-Allow-Headers", corsAllowHeaders)
			hdr.Set("Access-Control-Max-Age", corsMaxAge)
			if r.Header.Get("Access-Control-Request-Private-Network") == "true" {
				// Chrome's Private Network Access: a listed public page may
				// reach an adapter on a private or loopback address.
				hdr.Set("Access-Control-Allow-Private-Network", "true")
			}
			w.WriteHeader(http.StatusNoContent)
			return
		}
		hdr.Set("Access-Control-Expose-Headers", corsExposeHeaders)
		next(w, r)
	}
}

// corsOrigin is the request's Origin when it is one the operator
// configured (AllowedOrigins), as the browser sent it. A same-origin page
// (the public URL, the loopback listener itself) needs no CORS, and any
// other origin gets none.
func (h *hosted) corsOrigin(r *http.Request) (string, bool) {
	vals := r.Header.Values("Origin")
	if len(vals) != 1 || vals[0] == "" || vals[0] == "null" {
		return "", false
	}
	o := strings.TrimRight(vals[0], "/")
	for _, a := range h.opts.AllowedOrigins {
		if strings.EqualFold(o, strings.TrimRight(a, "/")) {
			return vals[0], true
		}
	}
	return "", false
}
