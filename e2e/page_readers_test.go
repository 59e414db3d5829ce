package e2e

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A page reader is how a model reads the handles a journey needs out of one
// tool result in one view. Two views: the text (content[0].text, what a
// content-only client shows) and the host view (what Claude Code and Codex
// hand the model: the compact JSON of structuredContent plus one line per
// resource_link, or the text when there is no structuredContent). The
// host-view reader reads the structuredContent shapes the adapter emits; it
// reads no text, and the text reader reads no JSON but what the text itself
// prints as JSON (record lines, window headers, documents, errors).
type pageReader interface {
	// view names the view in test names and the report.
	view() string
	// page is what the model sees of a result in this view.
	page(r toolResult) string
	records(page string) []textRecord
	nextCursor(page string) string  // "" when none
	nextChanges(page string) string // "" when none
	hasMore(page string) bool
	count(page string) string    // the exact count, "" when none
	aggValue(page string) string // a single aggregate's value, "" when none
	buckets(page string) map[string]int
	hits(page string) []pageHit
	sourceMix(page string) string // "" when the page has none
	firstFetchID(page string) string
	// notes are the page's warnings and notes, one per line.
	notes(page string) string
	// fieldFlags are schema(stream)'s fields with their compact flags
	// ("t=integer,…,a=min|max"), by field name.
	fieldFlags(page string) map[string]string
	// fieldType tells whether schema(detail:"full") shows field name with
	// JSON Schema type typ ("string", or "string/date-time" with a format).
	fieldType(page, name, typ string) bool
	document(page string) pageDocument
	window(page string) (windowHeader, string)
}

// pageHit is one search hit: its fetch id, title and matched field.
type pageHit struct{ id, title, field string }

// pageDocument is fetch's document, the same in both views.
type pageDocument struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// textReader reads content[0].text with the patterns of the text grammar.
type textReader struct{}

func (textReader) view() string             { return "text" }
func (textReader) page(r toolResult) string { return r.Text }
func (textReader) records(p string) []textRecord {
	return recordLines(p)
}
func (textReader) nextCursor(p string) string   { return submatch(ctNextCursor, p) }
func (textReader) nextChanges(p string) string  { return submatch(ctNextChanges, p) }
func (textReader) hasMore(p string) bool        { return submatch(ctHasMore, p) == "true" }
func (textReader) count(p string) string        { return submatch(ctCount, p) }
func (textReader) aggValue(p string) string     { return submatch(ctAggValue, p) }
func (textReader) sourceMix(p string) string    { return submatch(ctSourceMix, p) }
func (textReader) firstFetchID(p string) string { return submatch(reFirstFetchID, p) }

func (textReader) buckets(p string) map[string]int {
	out := map[string]int{}
	for _, m := range ctBucketLine.FindAllStringSubmatch(p, -1) {
		out[strings.Trim(m[1], `"`)], _ = strconv.Atoi(m[2])
	}
	return out
}

func (textReader) hits(p string) []pageHit {
	var out []pageHit
	for _, m := range ctHitLine.FindAllStringSubmatch(p, -1) {
		title, err := strconv.Unquote(`"` + m[2] + `"`)
		if err != nil {
			title = m[2]
		}
		out = append(out, pageHit{id: m[1], title: title, field: m[4]})
	}
	return out
}

func (textReader) notes(p string) string {
	var out []string
	for _, l := range strings.Split(p, "\n") {
		if strings.HasPrefix(l, "note") || strings.HasPrefix(l, "warning") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func (textReader) fieldFlags(p string) map[string]string {
	out := map[string]string{}
	for _, m := range ctFieldFlags.FindAllStringSubmatch(p, -1) {
		out[m[1]] = m[2]
	}
	return out
}

func (textReader) fieldType(p, name, typ string) bool {
	return strings.Contains(p, name+" "+typ)
}

func (textReader) document(p string) pageDocument {
	var d pageDocument
	_ = json.Unmarshal([]byte(p), &d)
	return d
}

func (textReader) window(p string) (windowHeader, string) {
	head, body, _ := strings.Cut(p, "\n")
	var h windowHeader
	_ = json.Unmarshal([]byte(head), &h)
	return h, body
}

var (
	// ctBucketLine is one bucket line of an aggregate text: key = count.
	ctBucketLine = regexp.MustCompile(`(?m)^("[^"\n]*"|\S+) = (\d+)$`)
	// ctFieldFlags is one field of schema(stream)'s text: name[flags].
	ctFieldFlags = regexp.MustCompile(`\b(\w+)\[(t=[^\]]*)\]`)
)

// submatch is the first submatch of re in s, or "".
func submatch(re *regexp.Regexp, s string) string {
	if m := re.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return ""
}

// structuredReader is a structured-aware client: it reads the compact
// structuredContent JSON alone (no link lines), with the host view's
// readers; the text only where a result has no structuredContent.
type structuredReader struct{ hostReader }

func (structuredReader) view() string { return "structured" }

func (structuredReader) page(r toolResult) string {
	if r.Structured == nil {
		return r.Text
	}
	return string(r.Structured)
}

// hostReader reads the host view: the compact structuredContent JSON (the
// last line of the page; link lines come first).
type hostReader struct{}

func (hostReader) view() string { return "host view" }

// page is what a structuredContent-first host hands the model, as Claude
// Code 2.1 does (captured in TestHostCaptures): one line per resource link,
// "[Resource link: name] uri (description)", then the compact JSON of
// structuredContent; the text when there is no structuredContent.
func (hostReader) page(r toolResult) string {
	if r.Structured == nil {
		return r.Text
	}
	var b strings.Builder
	for _, l := range r.ResourceLinks {
		fmt.Fprintf(&b, "[Resource link: %s] %s", l.Name, l.URI)
		if l.Description != "" {
			fmt.Fprintf(&b, " (%s)", l.Description)
		}
		b.WriteByte('\n')
	}
	b.Write(r.Structured)
	return b.String()
}

// hostRaw is the structured part of a host-view page: its last line, after
// the resource-link lines (compact JSON holds no raw newline; a link's
// description may).
func hostRaw(p string) []byte {
	if strings.HasPrefix(p, "[Resource link") {
		p = p[strings.LastIndexByte(p, '\n')+1:]
	}
	return []byte(p)
}

// hostJSON is the structured part of a host-view page, decoded.
func hostJSON(p string) map[string]any {
	var v map[string]any
	_ = json.Unmarshal(hostRaw(p), &v)
	return v
}

// str is a JSON member as a string ("" when absent); numbers and booleans
// print as JSON writes them.
func str(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	default:
		return fmt.Sprint(v)
	}
}

// records are query_records' rows: [fetch id, fields(, deleted_at)].
func (hostReader) records(p string) []textRecord {
	var page struct {
		Records [][]json.RawMessage `json:"records"`
	}
	_ = json.Unmarshal(hostRaw(p), &page)
	var out []textRecord
	for _, r := range page.Records {
		var rec textRecord
		if len(r) >= 2 {
			_ = json.Unmarshal(r[0], &rec.id)
			_ = json.Unmarshal(r[1], &rec.fields)
		}
		out = append(out, rec)
	}
	return out
}

func (hostReader) nextCursor(p string) string  { return str(hostJSON(p)["next_cursor"]) }
func (hostReader) nextChanges(p string) string { return str(hostJSON(p)["next_changes_since"]) }
func (hostReader) hasMore(p string) bool       { return hostJSON(p)["has_more"] == true }
func (hostReader) count(p string) string {
	c := str(hostJSON(p)["count"])
	n, ok := strings.CutPrefix(c, "exact:")
	if !ok {
		return ""
	}
	return n
}

// aggValue is a single aggregate's value: the page's first member, keyed
// by what was asked ({"count(messages)":42,…}).
func (hostReader) aggValue(p string) string {
	_, v := firstMember(p)
	var n any
	if json.Unmarshal(v, &n) != nil {
		return ""
	}
	if _, grouped := n.(map[string]any); grouped {
		return ""
	}
	return str(n)
}

// firstMember is aggregate's answer: the member keyed by what was asked,
// "metric(stream…)" (a host may reorder members, so it is found by its
// name, not its place).
func firstMember(p string) (string, json.RawMessage) {
	var page map[string]json.RawMessage
	_ = json.Unmarshal(hostRaw(p), &page)
	for k, v := range page {
		if aggAnswerKey.MatchString(k) {
			return k, v
		}
	}
	return "", nil
}

// aggAnswerKey is the name of aggregate's answer member.
var aggAnswerKey = regexp.MustCompile(`^\w+\([\w.]+\)`)

func (hostReader) sourceMix(p string) string { return str(hostJSON(p)["source_mix"]) }

// firstFetchID is the first hit row's id.
func (r hostReader) firstFetchID(p string) string {
	if hs := r.hits(p); len(hs) > 0 {
		return hs[0].id
	}
	return ""
}

// buckets are a grouped aggregate's first member: {"<key>":count,…}.
func (hostReader) buckets(p string) map[string]int {
	out := map[string]int{}
	_, v := firstMember(p)
	var bs map[string]int
	if json.Unmarshal(v, &bs) == nil {
		for k, n := range bs {
			out[k] = n
		}
	}
	return out
}

// hits are search's rows under columns [id,title,source,field,snippet].
func (hostReader) hits(p string) []pageHit {
	var page struct {
		Columns []string    `json:"columns"`
		Hits    [][5]string `json:"hits"`
	}
	_ = json.Unmarshal(hostRaw(p), &page)
	var out []pageHit
	for _, h := range page.Hits {
		out = append(out, pageHit{id: h[0], title: h[1], field: h[3]})
	}
	return out
}

func (hostReader) notes(p string) string {
	v := hostJSON(p)
	var out []string
	for _, k := range []string{"warnings", "notes", "note", "recall"} {
		switch w := v[k].(type) {
		case string:
			out = append(out, w)
		case []any:
			for _, s := range w {
				out = append(out, str(s))
			}
		}
	}
	return strings.Join(out, "\n")
}

func (hostReader) fieldFlags(p string) map[string]string {
	out := map[string]string{}
	data, _ := hostJSON(p)["data"].(map[string]any)
	sources, _ := data["sources"].([]any)
	for _, s := range sources {
		m, _ := s.(map[string]any)
		fields, _ := m["fields"].(map[string]any)
		for name, flags := range fields {
			out[name] = str(flags)
		}
	}
	return out
}

// fieldType finds a member named name anywhere in the JSON whose value
// names the type (and the format, if any).
func (hostReader) fieldType(p, name, typ string) bool {
	var v any
	_ = json.Unmarshal(hostRaw(p), &v)
	// schema(detail:"full") carries the types as the text's own line
	// under data.json_schema_types: "name type/format; …".
	data, _ := hostJSON(p)["data"].(map[string]any)
	if types, ok := data["json_schema_types"].(string); ok {
		return regexp.MustCompile(`(?:^|[ :;])` + regexp.QuoteMeta(name+" "+typ) + `(?:[;|\n]|$)`).MatchString(types)
	}
	return findMember(v, name, func(m any) bool {
		raw, _ := json.Marshal(m)
		for _, part := range strings.Split(typ, "/") {
			if !strings.Contains(string(raw), part) {
				return false
			}
		}
		return true
	})
}

// findMember tells whether some member named name in v has a value ok
// accepts.
func findMember(v any, name string, ok func(any) bool) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, m := range v {
			if (k == name && ok(m)) || findMember(m, name, ok) {
				return true
			}
		}
	case []any:
		for _, m := range v {
			if findMember(m, name, ok) {
				return true
			}
		}
	}
	return false
}

func (hostReader) document(p string) pageDocument {
	var d pageDocument
	_ = json.Unmarshal(hostRaw(p), &d)
	return d
}

// window reads read_record_field's structured window: the header members
// and the window text under "text".
func (hostReader) window(p string) (windowHeader, string) {
	var h windowHeader
	_ = json.Unmarshal(hostRaw(p), &h)
	var body struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(hostRaw(p), &body)
	return h, body.Text
}
