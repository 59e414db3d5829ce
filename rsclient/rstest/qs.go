package rstest

import (
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The reference server parses every query string with the npm package qs
// (`qs.parse(str, {arrayLimit: 64, depth: 8})`,
// reference-implementation/server/transport.ts), not with a flat
// URL-query parser: bracket keys build nested objects and arrays
// (`a[0][b]=x`), `%5B`/`%5D` count as brackets, a repeated key becomes an
// array, and only the first 1,000 parameters are read. ParseQS models that
// parse (qs 6.15) so the mock AS sees an authorize request as the real one
// does, and tests can read a redirect the way the real AS will.

// qs options of the reference server, and qs's own defaults.
const (
	qsArrayLimit     = 64
	qsDepth          = 8
	qsParameterLimit = 1000
)

// ParseQS parses a raw query string (without the leading "?") as the
// reference server does. Values are string, []any or map[string]any.
func ParseQS(raw string) map[string]any {
	if raw == "" {
		return map[string]any{}
	}
	flat, order := qsParseValues(raw)
	var out any = newQSObject()
	for _, k := range order {
		if v := qsParseKeys(k, flat[k]); v != nil {
			out = qsMerge(out, v)
		}
	}
	if m, ok := qsPlain(out).(map[string]any); ok {
		return m
	}
	return map[string]any{}
}

// qsArray is a JS array, holes (nil) included until the final compaction.
type qsArray struct{ items []any }

// qsObject is a JS object; overflow marks qs's stand-in for an array past
// arrayLimit (an object with numeric keys that later values append to).
type qsObject struct {
	keys     []string
	vals     map[string]any
	overflow bool
	maxIndex int
}

func newQSObject() *qsObject { return &qsObject{vals: map[string]any{}} }

func (o *qsObject) has(k string) bool { _, ok := o.vals[k]; return ok }

func (o *qsObject) set(k string, v any) {
	if !o.has(k) {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// qsParseValues splits the query into key → value (string, or an array
// of strings for repeated keys), in first-seen order.
func qsParseValues(raw string) (map[string]any, []string) {
	clean := qsBracketEscapes.ReplaceAllStringFunc(raw, func(s string) string {
		if strings.EqualFold(s, "%5B") {
			return "["
		}
		return "]"
	})
	// JS split with a limit: everything past the limit is dropped.
	parts := strings.Split(clean, "&")
	if len(parts) > qsParameterLimit {
		parts = parts[:qsParameterLimit]
	}
	flat := map[string]any{}
	var order []string
	for _, part := range parts {
		pos := strings.Index(part, "]=")
		if pos >= 0 {
			pos++
		} else {
			pos = strings.IndexByte(part, '=')
		}
		var key string
		var val any = ""
		if pos < 0 {
			key = qsDecode(part)
		} else {
			key = qsDecode(part[:pos])
			val = qsDecode(part[pos+1:])
		}
		if old, ok := flat[key]; ok {
			flat[key] = qsCombine(old, val)
			continue
		}
		flat[key] = val
		order = append(order, key)
	}
	return flat, order
}

var qsBracketEscapes = regexp.MustCompile(`(?i)%5[bd]`)

// qsDecode is qs's decoder: '+' is a space, then decodeURIComponent; a
// string it cannot decode (a bad escape, invalid UTF-8) stays as it is.
func qsDecode(s string) string {
	s = strings.ReplaceAll(s, "+", " ")
	if !strings.Contains(s, "%") {
		return s
	}
	d, err := url.PathUnescape(s)
	if err != nil || !utf8.ValidString(d) {
		return s
	}
	return d
}

// qsCombine is utils.combine: [].concat(a, b), an overflow object past
// arrayLimit.
func qsCombine(a, b any) any {
	if o, ok := a.(*qsObject); ok && o.overflow {
		o.maxIndex++
		o.set(strconv.Itoa(o.maxIndex), b)
		return o
	}
	items := append(qsSpread(a), qsSpread(b)...)
	if len(items) > qsArrayLimit {
		return qsOverflowOf(items)
	}
	return &qsArray{items: items}
}

// qsSpread is what concat adds for v: an array's items, else v itself.
func qsSpread(v any) []any {
	if a, ok := v.(*qsArray); ok {
		return slices.Clone(a.items)
	}
	return []any{v}
}

// qsOverflowOf is arrayToObject marked as overflow.
func qsOverflowOf(items []any) *qsObject {
	o := qsArrayToObject(items)
	o.overflow, o.maxIndex = true, len(items)-1
	return o
}

func qsArrayToObject(items []any) *qsObject {
	o := newQSObject()
	for i, v := range items {
		if v != nil {
			o.set(strconv.Itoa(i), v)
		}
	}
	return o
}

// objectPrototype lists Object.prototype's own properties: a key or
// bracket segment naming one is dropped (qs's prototype guard).
var objectPrototype = []string{"constructor", "__defineGetter__", "__defineSetter__", "hasOwnProperty",
	"__lookupGetter__", "__lookupSetter__", "isPrototypeOf", "propertyIsEnumerable", "toString",
	"valueOf", "__proto__", "toLocaleString"}

// qsSegments splits "a[b][c]" into "a", "[b]", "[c]" (depth 8, the rest
// as one literal segment); nil when a segment names a prototype property.
func qsSegments(key string) []string {
	first := strings.IndexByte(key, '[')
	parent := key
	if first >= 0 {
		parent = key[:first]
	}
	var segs []string
	if parent != "" {
		if slices.Contains(objectPrototype, parent) {
			return nil
		}
		segs = append(segs, parent)
	}
	open, collected := first, 0
	for open >= 0 && collected < qsDepth {
		level, closeAt := 1, -1
		for i := open + 1; i < len(key) && closeAt < 0; i++ {
			switch key[i] {
			case '[':
				level++
			case ']':
				if level--; level == 0 {
					closeAt = i
				}
			}
		}
		if closeAt < 0 {
			return append(segs, "["+key[open:]+"]")
		}
		seg := key[open : closeAt+1]
		if slices.Contains(objectPrototype, seg[1:len(seg)-1]) {
			return nil
		}
		segs = append(segs, seg)
		collected++
		next := strings.IndexByte(key[closeAt+1:], '[')
		if next < 0 {
			open = -1
		} else {
			open = closeAt + 1 + next
		}
	}
	if open >= 0 {
		segs = append(segs, "["+key[open:]+"]")
	}
	return segs
}

// qsParseKeys builds the nested value one flat key stands for.
func qsParseKeys(key string, val any) any {
	if key == "" {
		return nil
	}
	segs := qsSegments(key)
	if segs == nil {
		return nil
	}
	leaf := val
	for i := len(segs) - 1; i >= 0; i-- {
		root := segs[i]
		if root == "[]" {
			if o, ok := leaf.(*qsObject); ok && o.overflow {
				continue
			}
			leaf = qsCombine(&qsArray{}, leaf)
			continue
		}
		clean := root
		if len(root) >= 2 && root[0] == '[' && root[len(root)-1] == ']' {
			clean = root[1 : len(root)-1]
		}
		idx, isIndex := qsArrayIndex(root, clean)
		switch {
		case isIndex && idx < qsArrayLimit:
			items := make([]any, idx+1)
			items[idx] = leaf
			leaf = &qsArray{items: items}
		case isIndex:
			o := newQSObject()
			o.set(clean, leaf)
			o.overflow, o.maxIndex = true, idx
			leaf = o
		case clean != "__proto__":
			o := newQSObject()
			o.set(clean, leaf)
			leaf = o
		default:
			leaf = newQSObject()
		}
	}
	return leaf
}

// qsArrayIndex reports whether a bracketed segment is a canonical
// non-negative decimal index (String(parseInt(x)) === x).
func qsArrayIndex(root, clean string) (int, bool) {
	if root == clean || clean == "" || len(clean) > 15 || (len(clean) > 1 && clean[0] == '0') {
		return 0, false
	}
	n, err := strconv.Atoi(clean)
	if err != nil || n < 0 || strconv.Itoa(n) != clean {
		return 0, false
	}
	return n, true
}

// qsIsObject is JS `v && typeof v === 'object'`.
func qsIsObject(v any) bool {
	switch v.(type) {
	case *qsArray, *qsObject:
		return true
	}
	return false
}

// qsMerge is utils.merge with qs 6.15's defaults (strictMerge on).
func qsMerge(target, source any) any {
	if s, ok := source.(string); ok || source == nil {
		if !ok || s == "" {
			return target
		}
		return qsMergePrimitive(target, s)
	}
	if !qsIsObject(target) {
		return qsMergeIntoPrimitive(target, source)
	}
	ta, tIsArr := target.(*qsArray)
	if sa, sIsArr := source.(*qsArray); tIsArr && sIsArr {
		return qsMergeArrays(ta, sa)
	}
	acc, _ := target.(*qsObject)
	if tIsArr {
		acc = qsArrayToObject(ta.items)
	}
	return qsMergeIntoObject(acc, source)
}

// qsMergeIntoPrimitive merges an array or object into a string target:
// [target].concat(source), or the overflow object shifted by one.
func qsMergeIntoPrimitive(target, source any) any {
	if so, ok := source.(*qsObject); ok && so.overflow {
		o := newQSObject()
		o.set("0", target)
		for _, k := range so.keys {
			n, _ := strconv.Atoi(k)
			o.set(strconv.Itoa(n+1), so.vals[k])
		}
		o.overflow, o.maxIndex = true, so.maxIndex+1
		return o
	}
	items := append([]any{target}, qsSpread(source)...)
	if len(items) > qsArrayLimit {
		return qsOverflowOf(items)
	}
	return &qsArray{items: items}
}

// qsMergeArrays merges source into ta index by index (holes skipped);
// an item that cannot merge with the one at its index is appended.
func qsMergeArrays(ta, sa *qsArray) any {
	for i, item := range sa.items {
		if item == nil {
			continue // forEach skips holes
		}
		switch {
		case i < len(ta.items) && ta.items[i] != nil:
			if qsIsObject(ta.items[i]) && qsIsObject(item) {
				ta.items[i] = qsMerge(ta.items[i], item)
			} else {
				ta.items = append(ta.items, item)
			}
		default:
			for len(ta.items) <= i {
				ta.items = append(ta.items, nil)
			}
			ta.items[i] = item
		}
	}
	if len(ta.items) > qsArrayLimit {
		return qsOverflowOf(ta.items)
	}
	return ta
}

// qsMergePrimitive merges a non-empty string into target.
func qsMergePrimitive(target any, s string) any {
	switch t := target.(type) {
	case *qsArray:
		if len(t.items) >= qsArrayLimit {
			return qsOverflowOf(append(t.items, s))
		}
		t.items = append(t.items, s)
		return t
	case *qsObject:
		if t.overflow {
			t.maxIndex++
			t.set(strconv.Itoa(t.maxIndex), s)
			return t
		}
		return &qsArray{items: []any{t, s}}
	}
	return &qsArray{items: []any{target, s}}
}

// qsMergeIntoObject merges source's own keys into acc.
func qsMergeIntoObject(acc *qsObject, source any) any {
	var keys []string
	var get func(string) any
	overflow, maxIndex := false, 0
	switch s := source.(type) {
	case *qsArray:
		for i, v := range s.items {
			if v != nil {
				keys = append(keys, strconv.Itoa(i))
			}
		}
		get = func(k string) any { n, _ := strconv.Atoi(k); return s.items[n] }
	case *qsObject:
		keys, get, overflow, maxIndex = s.keys, func(k string) any { return s.vals[k] }, s.overflow, s.maxIndex
	}
	for _, k := range keys {
		if acc.has(k) {
			acc.set(k, qsMerge(acc.vals[k], get(k)))
		} else {
			acc.set(k, get(k))
		}
		if overflow && !acc.overflow {
			acc.overflow, acc.maxIndex = true, maxIndex
		}
		if acc.overflow {
			if n, err := strconv.Atoi(k); err == nil && n >= 0 && strconv.Itoa(n) == k && n > acc.maxIndex {
				acc.maxIndex = n
			}
		}
	}
	return acc
}

// qsPlain converts the parse to plain Go values, compacting arrays (qs
// drops the holes of sparse arrays).
func qsPlain(v any) any {
	switch t := v.(type) {
	case *qsArray:
		out := []any{}
		for _, it := range t.items {
			if it != nil {
				out = append(out, qsPlain(it))
			}
		}
		return out
	case *qsObject:
		out := make(map[string]any, len(t.vals))
		for k, val := range maps.All(t.vals) {
			out[k] = qsPlain(val)
		}
		return out
	}
	return v
}
