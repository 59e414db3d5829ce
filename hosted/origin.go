package hosted

import (
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// origin is the public origin for this request: the configured PublicURL,
// else X-Forwarded-Proto/Host from a trusted proxy, else the address the
// connection arrived on (the listener's, e.g. 127.0.0.1:8080). The Host
// header is never used: a client, or a DNS-rebinding page, chooses it, and
// it would then be named in the metadata and challenges as the resource.
func (h *hosted) origin(r *http.Request) string {
	if h.opts.PublicURL != "" {
		return h.opts.PublicURL
	}
	scheme, host := "http", localHost(r)
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

// localHost is host:port of the listener that accepted r's connection
// (net/http always records it); "localhost" for a handler driven without
// a server.
func localHost(r *http.Request) string {
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		if ap, err := netip.ParseAddrPort(a.String()); err == nil {
			return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()).String()
		}
	}
	return "localhost"
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
// public origin or in AllowedOrigins. Without a PublicURL, a loopback
// Origin (localhost or a loopback IP) on the listener's own port passes
// when the derived origin is loopback too: a rebinding page's Origin names
// its own (non-loopback) host.
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
	selfScheme, selfHost, _ := strings.Cut(h.origin(r), "://")
	oScheme, oHost, ok := strings.Cut(o, "://")
	if !ok || !strings.EqualFold(oScheme, selfScheme) || !loopbackHost(selfHost) || !loopbackHost(oHost) {
		return false
	}
	return port(oHost, oScheme) == port(selfHost, selfScheme)
}

// loopbackHost reports whether host[:port] names this machine.
func loopbackHost(hostport string) bool {
	host := hostport
	if hn, _, err := net.SplitHostPort(hostport); err == nil {
		host = hn
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// port is the port of host[:port], or the scheme's default.
func port(hostport, scheme string) string {
	if _, p, err := net.SplitHostPort(hostport); err == nil {
		return p
	}
	if strings.EqualFold(scheme, "https") {
		return "443"
	}
	return "80"
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
