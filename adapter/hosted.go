package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/pdpp/pdpp-mcp/rsclient"
)

// Hosted HTTP defaults.
const (
	defaultMaxBodyBytes = 1 << 20 // 1 MiB of JSON-RPC is far more than any tool call needs
	maxBearerBytes      = 4096
	mcpPath             = "/mcp"
	prmPath             = "/.well-known/oauth-protected-resource"
)

// HostedOptions configures the hosted Streamable HTTP surface.
type HostedOptions struct {
	// PublicURL is the origin clients use (https://host[:port]); metadata
	// and challenges name it. Empty: derived from each request's Host.
	PublicURL string
	// AllowedOrigins are browser origins allowed to call /mcp besides the
	// public origin itself (DNS-rebinding protection).
	AllowedOrigins []string
	// MaxBodyBytes caps a request body; default 1 MiB.
	MaxBodyBytes int64
	// AuthorizationServers are advertised in the protected-resource
	// metadata; default: the RS's own.
	AuthorizationServers []string
}

// Hosted returns the hosted HTTP handler: /mcp (stateless Streamable HTTP,
// JSON responses), the RFC 9728 metadata, and health endpoints.
func (s *Server) Hosted(opts HostedOptions) http.Handler {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = defaultMaxBodyBytes
	}
	h := &hosted{s: s, opts: opts}
	h.stream = server.NewStreamableHTTPServer(s.mcp,
		server.WithStateLess(true),
		server.WithDisableStreaming(true),
		server.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
			if g, ok := r.Context().Value(requestGrantKey{}).(Grant); ok {
				return WithRequestGrant(ctx, g)
			}
			return ctx
		}),
	)
	mux := http.NewServeMux()
	mux.HandleFunc(mcpPath, h.serveMCP)
	mux.HandleFunc("GET "+prmPath+mcpPath, h.serveMetadata)
	mux.HandleFunc("GET "+prmPath, h.serveMetadata)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /readyz", h.serveReady)
	registerPages(mux, h)
	return mux
}

type hosted struct {
	s      *Server
	opts   HostedOptions
	stream *server.StreamableHTTPServer
}

// origin is the public origin for this request.
func (h *hosted) origin(r *http.Request) string {
	if h.opts.PublicURL != "" {
		return strings.TrimRight(h.opts.PublicURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func (h *hosted) metadataURL(r *http.Request) string { return h.origin(r) + prmPath + mcpPath }

func (h *hosted) serveMCP(w http.ResponseWriter, r *http.Request) {
	if !h.originAllowed(r) {
		writeHTTPError(w, http.StatusForbidden, "forbidden_origin", "this Origin may not call the MCP endpoint", nil)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeHTTPError(w, http.StatusMethodNotAllowed, "method_not_allowed", "this stateless endpoint accepts POST only", nil)
		return
	}
	if r.ContentLength > h.opts.MaxBodyBytes {
		writeHTTPError(w, http.StatusRequestEntityTooLarge, "request_too_large", "request body exceeds the limit", nil)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes)
	bearer, ok := bearerToken(r)
	if !ok {
		h.challenge(w, r, "Missing or malformed Bearer token")
		return
	}
	g := NewGrant(bearer)
	switch kind, err := h.s.tokenKind(r.Context(), g); {
	case err != nil:
		var rsErr *rsclient.Error
		if errors.As(err, &rsErr) && (rsErr.Status == http.StatusUnauthorized || rsErr.Status == http.StatusForbidden) {
			h.challenge(w, r, "Invalid or expired token")
			return
		}
		writeHTTPError(w, http.StatusServiceUnavailable, "rs_unavailable", "the resource server could not verify this token; retry later", nil)
		return
	case kind != "client":
		writeHTTPError(w, http.StatusForbidden, "permission_error",
			"MCP requires a grant-scoped client token; owner and control-plane tokens are refused", nil)
		return
	}
	h.stream.ServeHTTP(w, r.WithContext(WithRequestGrant(r.Context(), g)))
}

// tokenKind learns a bearer's kind from the RS schema `bearer` block,
// cached per token hash; token syntax is never trusted.
func (s *Server) tokenKind(ctx context.Context, g Grant) (string, error) {
	doc, err := s.schemas.get(ctx, s.rs, g)
	if err != nil {
		return "", err
	}
	return doc.Bearer.TokenKind, nil
}

// challenge answers 401 with the RFC 9728 pointer in header and body.
func (h *hosted) challenge(w http.ResponseWriter, r *http.Request, msg string) {
	md := h.metadataURL(r)
	w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+md+`"`)
	writeHTTPError(w, http.StatusUnauthorized, "authentication_error", msg, map[string]string{"resource_metadata": md})
}

func bearerToken(r *http.Request) (string, bool) {
	auth := r.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(auth, " ")
	tok = strings.TrimSpace(tok)
	if !ok || !strings.EqualFold(scheme, "Bearer") || tok == "" || len(tok) > maxBearerBytes || strings.ContainsAny(tok, " \t\r\n") {
		return "", false
	}
	return tok, true
}

// originAllowed rejects cross-site browser requests (DNS rebinding): no
// Origin (non-browser clients) or the public origin or an allowed one.
func (h *hosted) originAllowed(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	if strings.EqualFold(o, h.origin(r)) {
		return true
	}
	for _, a := range h.opts.AllowedOrigins {
		if strings.EqualFold(o, strings.TrimRight(a, "/")) {
			return true
		}
	}
	return false
}

func (h *hosted) serveMetadata(w http.ResponseWriter, r *http.Request) {
	servers := h.opts.AuthorizationServers
	if len(servers) == 0 {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		if prm, err := h.s.prm.get(ctx, h.s.rs); err == nil {
			servers = prm.AuthorizationServers
		}
	}
	if servers == nil {
		servers = []string{}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"resource":                   h.origin(r) + mcpPath,
		"resource_name":              "PDPP MCP adapter",
		"authorization_servers":      servers,
		"bearer_methods_supported":   []string{"header"},
		"pdpp_token_kinds_supported": []string{"client"},
		"mcp_endpoint":               h.origin(r) + mcpPath,
	})
}

func (h *hosted) serveReady(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	if _, _, err := h.s.rs.ProtectedResourceMetadata(ctx); err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "reason": errorCode(err)})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeHTTPError(w http.ResponseWriter, status int, code, msg string, extra map[string]string) {
	e := map[string]any{"type": code, "code": code, "message": msg}
	for k, v := range extra {
		e[k] = v
	}
	writeJSON(w, status, map[string]any{"error": e})
}
