package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/internal/ritest"
)

// The hint executor: every tool call the adapter's pages name — next
// steps of a refusal, "did you mean", footers, checked calls of schema,
// retries, continuation calls — is a promise that the call works. This
// test makes a set of ordinary and refused calls on the RI, collects every
// call their text and structuredContent name, runs each exactly as
// written, and reports a table: where it was seen, whether it worked, and
// whether it holds a placeholder for the model to fill (`<words>`).

// hintTools are the tools a hint may name.
var hintTools = []string{"schema", "query_records", "aggregate", "search", "fetch", "read_record_field"}

// hintCallStart finds `tool {` or `tool({` in prose: the way the adapter
// writes a call for the model.
var hintCallStart = regexp.MustCompile(`\b(` + strings.Join(hintTools, "|") + `)\(?\s?\{`)

// hintPlaceholder is a value the model must replace: <words>, <the value
// you filtered on>.
var hintPlaceholder = regexp.MustCompile(`<[a-z][a-z _-]*>`)

// knownBadHints are the hints that fail on today's adapter, each matched
// by a substring of its normalized call (hintCall.key) with the reason.
// Each is reported but does not fail the test; shrink the list as the
// fixes land.
var knownBadHints = []struct{ match, reason string }{}

// hintCall is one call a page names.
type hintCall struct {
	Tool string
	Args map[string]any
	// Raw is the call as written, when it did not parse.
	Raw string
}

// key is the call with its run-specific values (connection ids, cursors)
// normalized, so a known-bad entry matches it on every run.
func (h hintCall) key() string {
	if h.Args == nil {
		return h.Tool + " " + h.Raw
	}
	s := regexp.MustCompile(`cin_[0-9a-f]+`).ReplaceAllString(h.argsJSON(), "cin_…")
	s = regexp.MustCompile(`"cursor":"[^"]*"`).ReplaceAllString(s, `"cursor":"…"`)
	return h.Tool + " " + s
}

// exact is the call with its real values, the dedup key.
func (h hintCall) exact() string {
	if h.Args == nil {
		return h.Tool + " " + h.Raw
	}
	return h.Tool + " " + h.argsJSON()
}

// argsJSON is the arguments as compact JSON with sorted keys and without
// HTML escapes, as a model would read them.
func (h hintCall) argsJSON() string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(h.Args)
	return strings.TrimSuffix(b.String(), "\n")
}

// hintsIn collects the calls a result names, in the text and in the
// structuredContent.
func hintsIn(r toolResult) []hintCall {
	var out []hintCall
	var v any
	if json.Unmarshal([]byte(r.Text), &v) == nil {
		out = append(out, hintsInJSON(v)...)
	} else {
		for _, line := range strings.Split(r.Text, "\n") {
			if json.Unmarshal([]byte(line), &v) == nil {
				out = append(out, hintsInJSON(v)...)
			} else {
				out = append(out, hintsInProse(line)...)
			}
		}
	}
	if r.Structured != nil && json.Unmarshal(r.Structured, &v) == nil {
		out = append(out, hintsInJSON(v)...)
	}
	return out
}

// hintsInJSON walks a JSON value: an object {"tool","args"} is a call, and
// every string is prose that may name calls.
func hintsInJSON(v any) []hintCall {
	var out []hintCall
	switch v := v.(type) {
	case map[string]any:
		if tool, ok := v["tool"].(string); ok && slices.Contains(hintTools, tool) {
			if args, ok := v["args"].(map[string]any); ok {
				out = append(out, hintCall{Tool: tool, Args: args})
			}
		}
		for _, x := range v {
			out = append(out, hintsInJSON(x)...)
		}
	case []any:
		for _, x := range v {
			out = append(out, hintsInJSON(x)...)
		}
	case string:
		out = append(out, hintsInProse(v)...)
	}
	return out
}

// hintsInProse finds `tool {json}` calls in a line of prose; the JSON
// object is read with a decoder, so braces inside strings are no trouble.
func hintsInProse(s string) []hintCall {
	var out []hintCall
	for _, m := range hintCallStart.FindAllStringSubmatchIndex(s, -1) {
		tool, obj := s[m[2]:m[3]], s[m[1]-1:]
		dec := json.NewDecoder(strings.NewReader(obj))
		dec.UseNumber()
		var args map[string]any
		if err := dec.Decode(&args); err != nil {
			end := min(len(obj), 160)
			out = append(out, hintCall{Tool: tool, Raw: obj[:end]})
			continue
		}
		out = append(out, hintCall{Tool: tool, Args: args})
	}
	return out
}

// hintRow is one line of the report.
type hintRow struct {
	call        hintCall
	from        string // the call whose page named it
	ok          bool
	placeholder bool
	answer      string // the start of an error answer
}

func (r hintRow) bad() bool { return !r.ok || r.placeholder }

// TestRIHintExecutor runs every hint the pages of a set of calls name,
// on the RI, and fails on each that does not work as written (unless
// knownBadHints names it).
func TestRIHintExecutor(t *testing.T) {
	t.Parallel()
	ri := ritest.Shared(t)
	tok := riMint(t, ri, ritest.MintOptions{})
	provider := riContractProxy(t, ri.RSURL)
	s := connectHTTP(t, riServe(t, provider), tok.AccessToken, defaultProtocol)
	work := ri.Connections["work"]
	longBody := work + "/message_bodies:" + ri.Truth.LongBodyID
	seeds := []hintCall{
		{Tool: "schema", Args: map[string]any{}},
		{Tool: "schema", Args: map[string]any{"stream": "messages"}},
		{Tool: "schema", Args: map[string]any{"stream": "message_bodies", "connection_id": work}},
		{Tool: "query_records", Args: map[string]any{"stream": "messages", "limit": 3}},
		{Tool: "query_records", Args: map[string]any{"stream": "messages", "connection_id": work, "limit": 3}},
		{Tool: "query_records", Args: map[string]any{"stream": "message_bodies", "connection_id": work, "limit": 2}},
		{Tool: "search", Args: map[string]any{"q": "xylophone quasar nebula"}},
		{Tool: "search", Args: map[string]any{"q": "kayak itinerary", "limit": 2}},
		{Tool: "query_records", Args: map[string]any{"stream": "messages", "connection_id": work, "sort": "-recieved_at"}},
		{Tool: "query_records", Args: map[string]any{"stream": "messages", "connection_id": work, "filter": map[string]any{"subjet": "budget"}}},
		{Tool: "query_records", Args: map[string]any{"stream": "messages", "connection_id": work, "filter": map[string]any{"from_email": "ada@work.example"}}},
		{Tool: "query_records", Args: map[string]any{"stream": "messages", "connection_id": work, "expand": []string{"thread"}}},
		{Tool: "query_records", Args: map[string]any{"stream": "labels"}},
		{Tool: "aggregate", Args: map[string]any{"stream": "messages", "metric": "sum", "field": "subject"}},
		{Tool: "read_record_field", Args: map[string]any{"id": longBody, "field_path": "body_text"}},
		{Tool: "fetch", Args: map[string]any{"id": "messages:work-m000"}},
	}
	rows := runHints(t, s, seeds)
	t.Logf("hint table (%d hints from %d calls):\n%s", len(rows), len(seeds), hintTable(rows))
	for _, r := range rows {
		if !r.bad() {
			continue
		}
		if reason := knownBadHint(r.call.key()); reason != "" {
			t.Logf("known bad hint (%s): %s", reason, r.call.key())
			continue
		}
		t.Errorf("hint does not work as written: %s\n  named by: %s\n  ok=%v placeholder=%v %s", r.call.key(), r.from, r.ok, r.placeholder, r.answer)
	}
	for _, k := range knownBadHints {
		if !slices.ContainsFunc(rows, func(r hintRow) bool { return r.bad() && strings.Contains(r.call.key(), k.match) }) {
			t.Errorf("knownBadHints entry %q (%s) no longer matches a bad hint: remove it", k.match, k.reason)
		}
	}
}

// runHints runs the seed calls, then every hint they name, then the hints
// those name (two levels, at most 150 calls), each once.
func runHints(t *testing.T, s *goSession, seeds []hintCall) []hintRow {
	t.Helper()
	type pending struct {
		call hintCall
		from string
	}
	var queue []pending
	seen := map[string]bool{}
	collect := func(from hintCall, r toolResult) {
		for _, h := range hintsIn(r) {
			if !seen[h.exact()] {
				seen[h.exact()] = true
				queue = append(queue, pending{h, from.key()})
			}
		}
	}
	for _, c := range seeds {
		seen[c.exact()] = true
		r := s.call(c.Tool, c.Args)
		if r.IsError && len(hintsIn(r)) == 0 {
			// Not a failure here: a refusal that names no call leaves the
			// model with the RS's words alone, which the table should show.
			t.Logf("refusal names no next call: %s\n  answer: %s", c.key(), firstLine(r.Text, 300))
		}
		collect(c, r)
	}
	var rows []hintRow
	for level := 0; level < 2 && len(queue) > 0; level++ {
		next := queue
		queue = nil
		for _, p := range next {
			if len(rows) >= 150 {
				t.Errorf("more than 150 hints: stopped")
				return rows
			}
			row := hintRow{call: p.call, from: p.from}
			row.placeholder = hintPlaceholder.MatchString(p.call.argsJSON()) || hintPlaceholder.MatchString(p.call.Raw)
			if p.call.Args != nil {
				r := s.call(p.call.Tool, p.call.Args)
				row.ok = !r.IsError
				if r.IsError {
					row.answer = firstLine(r.Text, 300)
				}
				collect(p.call, r)
			} else {
				row.answer = "does not parse as a JSON object"
			}
			rows = append(rows, row)
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].call.key() < rows[j].call.key() })
	return rows
}

func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

func knownBadHint(key string) string {
	for _, k := range knownBadHints {
		if strings.Contains(key, k.match) {
			return k.reason
		}
	}
	return ""
}

// hintTable is the report: one hint a line, its verdict and its source.
func hintTable(rows []hintRow) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%-4s %-11s %s  <-  %s\n", "ok", "placeholder", "hint", "named by")
	for _, r := range rows {
		fmt.Fprintf(&b, "%-4v %-11v %s  <-  %s\n", r.ok, r.placeholder, r.call.key(), r.from)
		if r.answer != "" {
			fmt.Fprintf(&b, "     answer: %s\n", r.answer)
		}
	}
	return b.String()
}

// TestHintsInProse pins how hints are read from the adapter's prose.
func TestHintsInProse(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		line string
		want []string // exact() of each hint
	}{
		{`every option of the stream: schema {"stream":"messages"}`, []string{`schema {"stream":"messages"}`}},
		{`Retry: search {"q":"a } b","mode":"semantic"} then fetch {"id":"x"}`,
			[]string{`search {"mode":"semantic","q":"a } b"}`, `fetch {"id":"x"}`}},
		{`read one whole with read_record_field {"id":"c/s:k","field_path":"to"} (any listed id and field)`,
			[]string{`read_record_field {"field_path":"to","id":"c/s:k"}`}},
		{`a cut call query_records {"stream":"mess…`, []string{`query_records {"stream":"mess…`}},
		{`no call here: schematic {"x":1}`, nil},
	} {
		var got []string
		for _, h := range hintsInProse(c.line) {
			got = append(got, h.exact())
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", c.line, diff)
		}
	}
}

// FuzzHintsInProse: any line reads without panicking, and every hint
// names one of the tools.
func FuzzHintsInProse(f *testing.F) {
	f.Add(`Retry: search {"q":"x","mode":"semantic"}`)
	f.Add(`schema {"stream":"messages"} and query_records({"stream":"a"})`)
	f.Fuzz(func(t *testing.T, line string) {
		for _, h := range hintsInProse(line) {
			if !slices.Contains(hintTools, h.Tool) {
				t.Fatalf("hint names tool %q", h.Tool)
			}
		}
	})
}
