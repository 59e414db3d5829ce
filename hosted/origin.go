package hosted

import (
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// origin is the public origin for this request: the configured PublicURL,
// else X-Forwarded-Proto/Host from a trusted proxy, else the request's own
// scheme and Host.
func (h *hosted) origin(r *http.Request) string {
	if h.opts.PublicURL != "" {
		return h.opts.PublicURL
	}
	scheme, host := "http", r.Host
	if r.TLS != nil {
		scheme = "https"
	}
	if h.fromTrustedProxy(r) {
		if p := firstForwarded(r.Header.Get("X-Forwarded-Proto")); p == "http" || p == "https" {
			scheme = p
		}
		if fh := firstForwarded(r.Header.Get("X-Forwarded-Host")); validHostPort(fh) {
			host = fh
		}
	}
	return scheme + "://" + host
}

func (h *hosted) metadataURL(r *http.Request) string { return h.origin(r) + prmPath + mcpPath }

// fromTrustedProxy reports whether the peer is inside a configured proxy
// network. Forwarded headers from anyone else are ignored: a client could
// otherwise choose the origin named in challenges and metadata.
func (h *hosted) fromTrustedProxy(r *http.Request) bool {
	if len(h.opts.TrustedProxies) == 0 {
		return false
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	return h.trusted(ip.Unmap())
}

// firstForwarded is the left-most (client-side) value of a forwarded list.
func firstForwarded(v string) string {
	first, _, _ := strings.Cut(v, ",")
	return strings.ToLower(strings.TrimSpace(first))
}

// validHostPort accepts host[:port] made of DNS or IP-literal characters
// only, so a forwarded value cannot inject quotes into the challenge.
func validHostPort(s string) bool {
	if s == "" || len(s) > 255 {
		return false
	}
	for _, c := range s {
		if !(c == '.' || c == '-' || c == ':' || c == '[' || c == ']' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
			return false
		}
	}
	return true
}

// originAllowed is the DNS-rebinding check. No Origin (non-browser
// clients) passes. A browser Origin passes when it is the configured
// public origin or in AllowedOrigins. Without a PublicURL, the origin
// derived from the request passes only when its host is loopback: a
// rebinding page controls the Host header, so matching it proves nothing
// elsewhere (and mcp-go rejects non-loopback Hosts on loopback listeners).
func (h *hosted) originAllowed(r *http.Request) bool {
	vals := r.Header.Values("Origin")
	if len(vals) == 0 {
		return true
	}
	if len(vals) > 1 {
		return false
	}
	o := strings.TrimRight(vals[0], "/")
	for _, a := range h.opts.AllowedOrigins {
		if strings.EqualFold(o, strings.TrimRight(a, "/")) {
			return true
		}
	}
	if h.opts.PublicURL != "" {
		return strings.EqualFold(o, h.opts.PublicURL)
	}
	self := h.origin(r)
	if !strings.EqualFold(o, self) {
		return false
	}
	host := self[strings.Index(self, "://")+3:]
	if hn, _, err := net.SplitHostPort(host); err == nil {
		host = hn
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// isJSONContentType accepts application/json with any parameters.
func isJSONContentType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// acceptsJSON applies Streamable HTTP's Accept rule leniently: a missing
// Accept is taken as */* (many simple clients omit it); a present one must
// admit application/json. Streaming is disabled, so text/event-stream
// alone cannot be served.
func acceptsJSON(values []string) bool {
	if len(values) == 0 {
		return true
	}
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			if q, ok := params["q"]; ok && (q == "0" || q == "0.0" || q == "0.00" || q == "0.000") {
				continue
			}
			if mt == "application/json" || mt == "application/*" || mt == "*/*" {
				return true
			}
		}
	}
	return false
}
