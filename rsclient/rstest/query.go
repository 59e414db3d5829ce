package rstest

import (
	"net/url"
	"strings"
)

// Bounds on what the query parser accepts, mirroring qs's arrayLimit and
// keeping a hostile query string cheap to reject.
const (
	maxQueryParams = 256
	maxQueryBytes  = 16 << 10
)

// query is a parsed query string in the reference RS's `qs` model: plain and
// `key[]` forms collapse into vals, `filter[f]` / `filter[f][op]` into
// filters, `expand_limit[rel]` into expandLimit.
type query struct {
	vals map[string][]string
	// filters maps field → operator ("" for exact match) → values.
	filters     map[string]map[string][]string
	filterOrder []string
	expandLimit map[string][]string
	// names are the distinct top-level parameter names in order of first
	// appearance, used by the strict allowlists.
	names []string
}

// queryError is a malformed query string; it becomes 400 invalid_request.
type queryError struct {
	Param string
	Msg   string
}

func (e *queryError) Error() string { return e.Msg }

// parseQuery parses a raw query string.
func parseQuery(raw string) (*query, *queryError) {
	q := &query{vals: map[string][]string{}, filters: map[string]map[string][]string{}, expandLimit: map[string][]string{}}
	if len(raw) > maxQueryBytes {
		return nil, &queryError{Msg: "Query string is too long"}
	}
	if raw == "" {
		return q, nil
	}
	parts := strings.Split(raw, "&")
	if len(parts) > maxQueryParams {
		return nil, &queryError{Msg: "Too many query parameters"}
	}
	seen := map[string]bool{}
	for _, part := range parts {
		if part == "" {
			continue
		}
		if err := q.addPart(part, seen); err != nil {
			return nil, err
		}
	}
	return q, nil
}

// addPart decodes one `key=value` pair and files it under its base name;
// seen tracks which base names q.names already lists.
func (q *query) addPart(part string, seen map[string]bool) *queryError {
	key, val, err := unescapePart(part)
	if err != nil {
		return err
	}
	base, segs, ok := splitBrackets(key)
	if !ok || base == "" {
		return &queryError{Param: key, Msg: "Malformed query parameter: " + key}
	}
	if !seen[base] {
		seen[base] = true
		q.names = append(q.names, base)
	}
	switch base {
	case "filter":
		return q.addFilter(segs, val)
	case "expand_limit":
		return q.addExpandLimit(segs, val)
	default:
		return q.addPlain(base, key, segs, val)
	}
}

// unescapePart splits a pair at its first '=' and percent-decodes both
// halves; a bad key is reported without a param because it has no name yet.
func unescapePart(part string) (string, string, *queryError) {
	k, v, _ := strings.Cut(part, "=")
	key, err := url.QueryUnescape(k)
	if err != nil {
		return "", "", &queryError{Msg: "Malformed query parameter encoding"}
	}
	val, err := url.QueryUnescape(v)
	if err != nil {
		return "", "", &queryError{Param: key, Msg: "Malformed query parameter encoding: " + key}
	}
	return key, val, nil
}

// addFilter files `filter[f]` (exact match, op "") or `filter[f][op]`.
func (q *query) addFilter(segs []string, val string) *queryError {
	if len(segs) < 1 || len(segs) > 2 || segs[0] == "" || (len(segs) == 2 && segs[1] == "") {
		return &queryError{Param: "filter", Msg: "filter must be filter[<field>] or filter[<field>][<op>]"}
	}
	op := ""
	if len(segs) == 2 {
		op = segs[1]
	}
	f := q.filters[segs[0]]
	if f == nil {
		f = map[string][]string{}
		q.filters[segs[0]] = f
		q.filterOrder = append(q.filterOrder, segs[0])
	}
	f[op] = append(f[op], val)
	return nil
}

// addExpandLimit files `expand_limit[rel]`.
func (q *query) addExpandLimit(segs []string, val string) *queryError {
	if len(segs) != 1 || segs[0] == "" {
		return &queryError{Param: "expand_limit", Msg: "expand_limit must be expand_limit[<relation>]"}
	}
	q.expandLimit[segs[0]] = append(q.expandLimit[segs[0]], val)
	return nil
}

// addPlain files a plain parameter. qs turns `k[]` and `k[0]` into arrays;
// deeper nesting is an object the RS would not understand for these keys.
func (q *query) addPlain(base, key string, segs []string, val string) *queryError {
	if len(segs) > 1 || (len(segs) == 1 && !isIndex(segs[0])) {
		return &queryError{Param: base, Msg: "Malformed query parameter: " + key}
	}
	q.vals[base] = append(q.vals[base], val)
	return nil
}

// splitBrackets splits `a[b][c]` into "a", ["b","c"].
func splitBrackets(key string) (string, []string, bool) {
	i := strings.IndexByte(key, '[')
	if i < 0 {
		return key, nil, !strings.Contains(key, "]")
	}
	base, rest := key[:i], key[i:]
	var segs []string
	for rest != "" {
		if rest[0] != '[' {
			return "", nil, false
		}
		j := strings.IndexByte(rest, ']')
		if j < 0 {
			return "", nil, false
		}
		seg := rest[1:j]
		if strings.ContainsAny(seg, "[") {
			return "", nil, false
		}
		segs = append(segs, seg)
		rest = rest[j+1:]
		if len(segs) > 8 {
			return "", nil, false
		}
	}
	return base, segs, true
}

// isIndex reports whether a bracket segment is an array marker.
func isIndex(s string) bool {
	if s == "" {
		return true
	}
	if len(s) > 2 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// has reports whether name appeared in any form.
func (q *query) has(name string) bool {
	for _, n := range q.names {
		if n == name {
			return true
		}
	}
	return false
}

// one returns the last value of a plain parameter (qs keeps the last
// scalar when a key repeats for a scalar option) and whether it was set.
func (q *query) one(name string) (string, bool) {
	v := q.vals[name]
	if len(v) == 0 {
		return "", false
	}
	return v[len(v)-1], true
}

// list returns every value of name, splitting CSV items.
func (q *query) list(name string) []string {
	var out []string
	for _, v := range q.vals[name] {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// checkAllowed enforces a strict allowlist (§2.4, §2.7, §2.8).
func (q *query) checkAllowed(allowed ...string) *apiError {
	for _, n := range q.names {
		ok := false
		for _, a := range allowed {
			if a == n {
				ok = true
				break
			}
		}
		if !ok {
			return newErr("invalid_request", n, "Unsupported query parameter: %s", n)
		}
	}
	return nil
}

// rejectClientExtras rejects owner-only parameters on client-token reads.
func (q *query) rejectClientExtras() *apiError {
	for _, n := range []string{"filter", "expand", "expand_limit", "view"} {
		if q.has(n) {
			// The reference's words: filter[...] (captures 0096, 0102) and
			// expand[] (0107).
			label := n
			switch n {
			case "filter", "expand_limit":
				label = n + "[...]"
			case "expand":
				label = "expand[]"
			}
			return newErr("invalid_request", n, "%s is not supported for client-token reads in PDPP v0.1", label)
		}
	}
	return nil
}
