package hosted

import (
	"fmt"
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
		if fh := h.forwardedHost(r); validHostPort(fh) {
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

// forwardedHost is the X-Forwarded-Host entry written by the trusted proxy
// that faced the client, read right to left like X-Forwarded-For: each
// trusted proxy the request passed (the peer, and every trusted
// X-Forwarded-For hop right of the client's) added at most one entry, so
// the entry that many places from the right is the outermost proxy's.
// Entries further left are whatever the client sent: a proxy that appends
// would otherwise let a client choose the origin reflected to itself.
// Fewer entries than proxies (a proxy that sets rather than appends):
// the left-most, which then is a proxy's too.
func (h *hosted) forwardedHost(r *http.Request) string {
	var entries []string
	for _, v := range r.Header.Values("X-Forwarded-Host") {
		for e := range strings.SplitSeq(v, ",") {
			if entries = append(entries, e); len(entries) > 2*maxForwardHops {
				return "" // longer than any proxy chain: not believed
			}
		}
	}
	if len(entries) == 0 {
		return ""
	}
	i := max(len(entries)-1-h.trustedForwardHops(r), 0)
	return strings.ToLower(strings.TrimSpace(entries[i]))
}

// trustedForwardHops counts the trusted proxies right of the client in
// X-Forwarded-For (right to left, at most maxForwardHops): the proxies
// besides the peer that forwarded the request.
func (h *hosted) trustedForwardHops(r *http.Request) int {
	vals, n := r.Header.Values("X-Forwarded-For"), 0
	for v := len(vals) - 1; v >= 0; v-- {
		hops := strings.Split(vals[v], ",")
		for i := len(hops) - 1; i >= 0; i-- {
			ip, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
			if err != nil || !h.trusted(ip.Unmap()) || n >= maxForwardHops {
				return n
			}
			n++
		}
	}
	return n
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

// rejectDNSRebinding is the check mcp-go's ServeHTTP makes before any MCP
// method, which its Handle leaves to the caller, with the same answer: a
// request that arrived on a loopback listener must name a loopback Host,
// or a page that rebound its own name to 127.0.0.1 could drive a local
// server from a victim's browser.
func rejectDNSRebinding(w http.ResponseWriter, r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || local == nil {
		return false
	}
	onLoopback := false
	if tcp, ok := local.(*net.TCPAddr); ok {
		onLoopback = tcp.IP.IsLoopback() // what loopbackHost(local.String()) says, without the string
	} else {
		onLoopback = loopbackHost(local.String())
	}
	if onLoopback && !loopbackHost(r.Host) {
		http.Error(w, fmt.Sprintf("Forbidden: invalid Host header %q", r.Host), http.StatusForbidden)
		return true
	}
	return false
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
	if ct == "application/json" {
		return true // what clients send; parsed, it is the same answer
	}
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
		for part := range strings.SplitSeq(v, ",") {
			part = strings.TrimSpace(part)
			if acceptsJSONBare(part) {
				return true // no parameters to parse (and no map to allocate)
			}
			mt, params, err := mime.ParseMediaType(part)
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

// acceptsJSONBare is acceptsJSON's answer for a media range without
// parameters, the common case: ParseMediaType would lowercase it and
// find no q.
func acceptsJSONBare(part string) bool {
	return strings.EqualFold(part, "application/json") || strings.EqualFold(part, "application/*") || part == "*/*"
}
