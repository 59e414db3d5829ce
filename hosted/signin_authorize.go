package hosted

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"
)

// The authorize step of the sign-in front. The RS's AS does not read a
// query the way Go does: the reference server parses it with qs
// (reference-implementation/server/transport.ts), where bracket keys
// (authorization_details[0][source][id]=…, also %5B…%5D) build a
// selection of their own, a repeated or bracketed connector_id becomes an
// array (the generic picker), only the first 1,000 parameters count, and
// authorization_details wins over connector_id. A query forwarded as the
// host sent it could therefore rewrite or drop the operator's selection.
// So the front forwards only what it understood: it parses the host's
// query, refuses anything qs would read differently (bracket keys, a raw
// '#', more than maxAuthorizeParams parameters, any key starting with
// authorization_details or connector_id but the exact names), and builds
// a new query from the parsed values, the operator's selection first and
// then the known OAuth parameters, each once, every value percent-encoded.

// Authorize request bounds.
const (
	// maxAuthorizeQuery bounds the query a host's authorize request may
	// carry (PKCE, state, scope, resource, redirect_uri, …).
	maxAuthorizeQuery = 8 << 10
	// maxAuthorizeParams bounds its parameters: far below qs's 1,000, and
	// more than any host sends.
	maxAuthorizeParams = 64
)

// forwardedAuthorizeParams are the parameters the front forwards, in this
// order after the selection: OAuth 2.1's authorization request (with PKCE)
// and RFC 8707's resource. Anything else is not forwarded: the AS reads
// none of it.
var forwardedAuthorizeParams = []string{"response_type", "client_id", "redirect_uri", "code_challenge",
	"code_challenge_method", "state", "scope", "resource"}

// selectionParams are the parameter names that select sources at the AS.
var selectionParams = []string{"authorization_details", "connector_id"}

// authorizeError is a refused authorize request. The front never
// redirects to the host's redirect_uri itself: only the AS knows whether
// the client registered it, so refusals are a plain JSON 400 (as the real
// AS answers an unregistered redirect_uri).
func authorizeError(w http.ResponseWriter, desc string) {
	writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request", "error_description": desc})
}

// serveAuthorize redirects a host's authorize request to the RS's AS with
// a query rebuilt from the host's understood parameters and the
// operator's selection. It refuses what would make the redirect something
// other than the host's own sign-in: no PKCE S256, a response type other
// than code, repeated parameters, a query the AS would parse differently,
// or a selection of the request's own that differs from the operator's.
func (h *hosted) serveAuthorize(w http.ResponseWriter, r *http.Request) {
	sel := h.opts.SignIn.selection
	q, err := parseAuthorizeQuery(r.URL.RawQuery, sel)
	if err != nil {
		authorizeError(w, err.Error())
		return
	}
	if err := checkAuthorizeQuery(q); err != nil {
		authorizeError(w, err.Error())
		return
	}
	target := h.opts.SignIn.as.AuthorizationEndpoint
	sep := "?"
	if strings.Contains(target, "?") {
		sep = "&"
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, target+sep+forwardQuery(q, sel), http.StatusFound)
}

// forwardQuery is the query sent on: the operator's selection first (so no
// parameter limit can drop it), then the known parameters the host gave.
func forwardQuery(q url.Values, sel SignInSelection) string {
	var b strings.Builder
	add := func(k, v string) {
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(url.QueryEscape(v))
	}
	for _, k := range selectionParams {
		if v := sel.params().Get(k); v != "" {
			add(k, v)
		}
	}
	for _, k := range forwardedAuthorizeParams {
		if v, ok := q[k]; ok {
			add(k, v[0])
		}
	}
	return b.String()
}

// parseAuthorizeQuery parses a host's raw authorize query, refusing what
// the AS's parser (qs) would read otherwise than this one. A parameter
// carrying exactly the operator's selection is dropped (it is sent once,
// from the configuration); a different one is refused.
func parseAuthorizeQuery(raw string, sel SignInSelection) (url.Values, error) {
	if len(raw) > maxAuthorizeQuery {
		return nil, fmt.Errorf("the authorize request is longer than %d bytes", maxAuthorizeQuery)
	}
	if strings.ContainsRune(raw, '#') {
		return nil, errors.New("the authorize query holds a raw '#': percent-encode it (%23)")
	}
	q := url.Values{}
	n := 0
	for part := range strings.SplitSeq(raw, "&") {
		if part == "" {
			continue
		}
		if n++; n > maxAuthorizeParams {
			return nil, fmt.Errorf("the authorize request has more than %d parameters", maxAuthorizeParams)
		}
		k, v, err := parseAuthorizeParam(part)
		if err != nil {
			return nil, err
		}
		if _, dup := q[k]; dup {
			return nil, fmt.Errorf("parameter %s is repeated", k)
		}
		q[k] = []string{v}
	}
	for _, k := range selectionParams {
		v, ok := q[k]
		if !ok {
			continue
		}
		if v[0] != sel.params().Get(k) {
			return nil, errors.New("this adapter's operator fixed the sources a sign-in asks for; send no authorization_details or connector_id of your own")
		}
		delete(q, k)
	}
	return q, nil
}

// parseAuthorizeParam decodes one key=value, refusing keys the AS would
// read as nested (brackets, raw or encoded), keys that merely start with
// a selection parameter's name, bad escapes and invalid UTF-8.
func parseAuthorizeParam(part string) (key, val string, err error) {
	rawKey, rawVal, _ := strings.Cut(part, "=")
	if strings.ContainsAny(rawKey, "[]") || strings.Contains(strings.ToLower(rawKey), "%5b") || strings.Contains(strings.ToLower(rawKey), "%5d") {
		return "", "", fmt.Errorf("parameter name %q holds a bracket: the authorization server would read it as a nested parameter", rawKey)
	}
	key, errK := url.QueryUnescape(rawKey)
	val, errV := url.QueryUnescape(rawVal)
	if errK != nil || errV != nil || !utf8.ValidString(key) || !utf8.ValidString(val) {
		return "", "", errors.New("the authorize query is not well formed")
	}
	if strings.ContainsAny(key, "[]") {
		return "", "", fmt.Errorf("parameter name %q holds a bracket: the authorization server would read it as a nested parameter", key)
	}
	for _, p := range selectionParams {
		if strings.HasPrefix(key, p) && key != p {
			return "", "", fmt.Errorf("parameter %q is not one this sign-in takes: the operator fixed the sources", key)
		}
	}
	return key, val, nil
}

// checkAuthorizeQuery checks a host's authorize parameters.
func checkAuthorizeQuery(q url.Values) error {
	for _, k := range []string{"client_id", "redirect_uri", "code_challenge"} {
		if q.Get(k) == "" {
			return fmt.Errorf("%s is required", k)
		}
	}
	switch {
	case q.Get("response_type") != "code":
		return errors.New("response_type must be code")
	case q.Get("code_challenge_method") != "S256":
		return errors.New("PKCE with code_challenge_method=S256 is required")
	}
	if u, err := url.Parse(q.Get("redirect_uri")); err != nil || !u.IsAbs() || u.Fragment != "" {
		return errors.New("redirect_uri must be an absolute URI without a fragment")
	}
	return nil
}
