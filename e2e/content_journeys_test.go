package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pdpp/pdpp-mcp/internal/credcache"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// The content-only battery: journeys a model could walk seeing nothing but
// one view of each result. Every journey runs twice: in the text view (the
// client keeps content[0].text) and in the host view (what Claude Code and
// Codex hand the model: the compact JSON of structuredContent plus one line
// per resource link; see TestHostCaptures). The client (the official Go SDK
// over stdio) reads every handle through its view's pageReader
// (page_readers_test.go), never from the other channel. Ground truth comes
// from the mock RS's REST API directly.
var (
	ctRecordLine  = regexp.MustCompile(`(?m)^\d+\. (cin_[0-9a-f]+/[a-z_]+:\S+)(?: (.*))?$`)
	ctHitLine     = regexp.MustCompile(`(?m)^\d+\. (cin_[0-9a-f]+/[a-z_]+:\S+) "((?:[^"\\]|\\.)*)"(?: \(([^)]*)\))?(?: ([a-z_.]+): )?`)
	ctCount       = regexp.MustCompile(`\bcount=exact:(\d+)`)
	ctNextCursor  = regexp.MustCompile(`\bnext_cursor=(\S+)`)
	ctNextChanges = regexp.MustCompile(`\bnext_changes_since=(\S+)`)
	ctHasMore     = regexp.MustCompile(`\bhas_more=(true|false)`)
	ctAggValue    = regexp.MustCompile(`(?m)^aggregate \S+ (?:connection_id=\S+ )?= (\S+) over (\d+) records$`)
	ctMonthKey    = regexp.MustCompile(`^(\d{4}-\d{2})-01`)
	ctConnection  = regexp.MustCompile(`"connection_id":"(cin_[0-9a-f]+)"`)
	ctPartialConn = regexp.MustCompile(`connection_id=(cin_[0-9a-f]+)`)
	ctCutBody     = regexp.MustCompile(`\[text cut at \d+ of (\d+) chars; continue with read_record_field (\{[^}]*\})\]`)
	ctSourceMix   = regexp.MustCompile(`(?m)^source_mix:(.*)$`)
	ctMaxFlag     = regexp.MustCompile(`^t=integer.*\ba=[a-z_|]*\bmax\b`)
	ctNotGranted  = regexp.MustCompile(`\bfrom_email\b.*not granted`)
	ctTimestamp   = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z`)
)

// textClient is a journey's client in one view: it reads each result as
// its pageReader shows it to the model and counts the calls and the bytes
// of that view a journey costs.
type textClient struct {
	t     *testing.T
	s     *goSession
	r     pageReader
	calls int
	bytes int
	// bare counts the host view without link lines (what Codex hands the
	// model: it drops resource links), to tell where a host view's cost is.
	bare int
}

// call returns the page of a tools/call in the client's view and whether
// it is an error.
func (c *textClient) call(tool string, args map[string]any) (string, bool) {
	c.t.Helper()
	r := c.s.call(tool, args)
	page := c.r.page(r)
	c.calls++
	c.bytes += len(page)
	c.bare += len(hostRaw(page))
	return page, r.IsError
}

// must is call for a step that has to succeed.
func (c *textClient) must(tool string, args map[string]any) string {
	c.t.Helper()
	page, isErr := c.call(tool, args)
	if isErr {
		c.t.Fatalf("%s(%v): error:\n%s", tool, args, page)
	}
	return page
}

// need is a handle the journey cannot go on without; it fails the journey
// when the page does not show it.
func (c *textClient) need(what, v, page string) string {
	c.t.Helper()
	if v == "" {
		c.t.Fatalf("%s view: the page shows no %s:\n%.1500s", c.r.view(), what, page)
	}
	return v
}

// firstMatch is the first submatch of re, or fails the journey.
func (c *textClient) firstMatch(re *regexp.Regexp, text string) string {
	c.t.Helper()
	m := re.FindStringSubmatch(text)
	if m == nil {
		c.t.Fatalf("text has no %v:\n%.1500s", re, text)
	}
	return m[1]
}

// textRecord is one record as a model reads it: the fetch id and, when
// whole, the fields as JSON.
type textRecord struct {
	id     string
	fields map[string]any // nil when the line is cut
}

func recordLines(text string) []textRecord {
	var out []textRecord
	for _, m := range ctRecordLine.FindAllStringSubmatch(text, -1) {
		r := textRecord{id: m[1]}
		_ = json.Unmarshal([]byte(m[2]), &r.fields)
		out = append(out, r)
	}
	return out
}

// pageRecords follows next_cursor to the end and returns every record it
// saw.
func (c *textClient) pageRecords(args map[string]any) []textRecord {
	c.t.Helper()
	var out []textRecord
	for range 100 {
		page := c.must("query_records", args)
		out = append(out, c.r.records(page)...)
		cursor := c.r.nextCursor(page)
		if cursor == "" {
			if c.r.hasMore(page) {
				c.t.Fatalf("has_more without next_cursor:\n%s", page)
			}
			return out
		}
		args["cursor"] = cursor
	}
	c.t.Fatal("paging did not end in 100 pages")
	return nil
}

func recordIDs(rs []textRecord) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.id
	}
	sort.Strings(out)
	return out
}

func truthIDs(conn, stream string, rs []truthRecord) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = conn + "/" + stream + ":" + r.ID
	}
	sort.Strings(out)
	return out
}

func recordKey(id string) string { return id[strings.Index(id, ":")+1:] }

// sameSet fails the journey when two id lists differ as sets or repeat.
func sameSet(t *testing.T, what string, want, got []string) {
	t.Helper()
	sort.Strings(want)
	sort.Strings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s (-rs +page):\n%s", what, diff)
	}
}

// contentJourney is one journey of the battery and the session it runs on.
type contentJourney struct {
	name    string
	session string // "gmail", "multi" or "restricted"
	run     func(t *testing.T, c *textClient)
}

// journeyViews are the views every journey runs in: the text, the host
// view (what Claude Code hands the model), and a structured-aware client
// that reads structuredContent alone, as an SDK program does (what Codex
// hands the model, without its frame). The cost checks compare the host
// view (index 1) with the text (index 0).
var journeyViews = []pageReader{textReader{}, hostReader{}, structuredReader{}}

// hostViewSlack is how much more than the text the host view may cost a
// journey (the target is host-view bytes ≤ 1.1 × text bytes; 1.15 since a
// search page's structuredContent names its first_fetch_id as the text
// does, ~75 B, which took journeys of one small search page to 1.13 ×).
// The total over all journeys stays near 1.03 ×.
const hostViewSlack = 1.15

// journeyResult is one row of the battery's report: per view, whether the
// journey passed and what it cost.
type journeyResult struct {
	name  string
	pass  []bool
	calls []int
	bytes []int
	bare  []int
}

func TestContentOnlyJourneys(t *testing.T) {
	t.Parallel()
	gmail := mockRS.bearer(t, demodata.GmailGrantID)
	slack := mockRS.bearer(t, demodata.SlackGrantID)
	chatgpt := mockRS.bearer(t, demodata.ChatGPTGrantID)
	github := mockRS.bearer(t, demodata.GitHubGrantID)
	restricted := mockRS.bearer(t, demodata.GmailRestrictedGrantID)
	sessions := map[string]*goSession{
		"gmail":      connectStdio(t, defaultProtocol, gmail),
		"multi":      connectStdio(t, defaultProtocol, gmail, slack, chatgpt, github),
		"restricted": connectStdio(t, defaultProtocol, restricted),
	}
	tokens := map[string]string{"gmail": gmail, "slack": slack, "chatgpt": chatgpt, "github": github, "restricted": restricted}
	var results []journeyResult
	for _, j := range contentJourneys(tokens) {
		res := journeyResult{name: j.name}
		t.Run(j.name, func(t *testing.T) {
			for _, r := range journeyViews {
				c := &textClient{r: r}
				pass := t.Run(r.view(), func(t *testing.T) {
					c.t, c.s = t, &goSession{t: t, cs: sessions[j.session].cs, schemas: sessions[j.session].schemas}
					j.run(t, c)
				})
				res.pass, res.calls, res.bytes = append(res.pass, pass), append(res.calls, c.calls), append(res.bytes, c.bytes)
				res.bare = append(res.bare, c.bare)
			}
			// Costs compare only when both views walked the whole journey;
			// the structured view is the host view less its link lines.
			if text, host := res.bytes[0], res.bytes[1]; res.pass[0] && res.pass[1] && float64(host) > hostViewSlack*float64(text) {
				t.Errorf("the host view costs %d B, over %.1f × the text's %d B", host, hostViewSlack, text)
			}
		})
		results = append(results, res)
	}
	if len(results) < 25 {
		t.Errorf("%d journeys; the battery needs at least 25", len(results))
	}
	t.Log("\n" + journeyTable(results))
}

// journeyTable renders the report: one row per journey with each view's
// pass, calls and bytes, then the totals and the median per view.
func journeyTable(rs []journeyResult) string {
	var b strings.Builder
	b.WriteString("| journey |")
	for _, r := range journeyViews {
		fmt.Fprintf(&b, " %s pass | calls | bytes |", r.view())
	}
	b.WriteString(" host/text | host view without link lines |\n|---|" + strings.Repeat("---|---:|---:|", len(journeyViews)) + "---:|---:|\n")
	totals := make([]int, len(journeyViews))
	bare := 0
	perView := make([][]int, len(journeyViews))
	for _, r := range rs {
		fmt.Fprintf(&b, "| %s |", r.name)
		for v := range journeyViews {
			fmt.Fprintf(&b, " %t | %d | %d |", r.pass[v], r.calls[v], r.bytes[v])
			totals[v] += r.bytes[v]
			perView[v] = append(perView[v], r.bytes[v])
		}
		fmt.Fprintf(&b, " %.2f | %d |\n", ratio(r.bytes[1], r.bytes[0]), r.bare[1])
		bare += r.bare[1]
	}
	for v, r := range journeyViews {
		fmt.Fprintf(&b, "%s: total %d B, median %d B per journey (%d journeys)\n", r.view(), totals[v], median(perView[v]), len(rs))
	}
	fmt.Fprintf(&b, "host view without link lines: total %d B\n", bare)
	fmt.Fprintf(&b, "host view / text: %.2f; without link lines: %.2f", ratio(totals[1], totals[0]), ratio(bare, totals[0]))
	return b.String()
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func median(xs []int) int {
	xs = append([]int(nil), xs...)
	sort.Ints(xs)
	n := len(xs)
	switch {
	case n == 0:
		return 0
	case n%2 == 0:
		return (xs[n/2-1] + xs[n/2]) / 2
	default:
		return xs[n/2]
	}
}

func contentJourneys(tok map[string]string) []contentJourney {
	work, personal := demodata.GmailWorkConnectionID, demodata.GmailPersonalConnectionID
	return []contentJourney{
		{"count messages (count:exact)", "gmail", func(t *testing.T, c *textClient) {
			text := c.must("query_records", map[string]any{"stream": "messages", "connection_id": work, "count": "exact", "limit": 1})
			if got, want := c.need("count", c.r.count(text), text), strconv.Itoa(len(rsRecords(t, tok["gmail"], "messages", work))); got != want {
				t.Errorf("count %s, RS has %s", got, want)
			}
		}},
		{"count messages (aggregate)", "gmail", func(t *testing.T, c *textClient) {
			text := c.must("aggregate", map[string]any{"stream": "messages", "metric": "count", "connection_id": personal})
			if got, want := c.need("aggregate value", c.r.aggValue(text), text), strconv.Itoa(len(rsRecords(t, tok["gmail"], "messages", personal))); got != want {
				t.Errorf("count %s, RS has %s", got, want)
			}
		}},
		{"list every work message (default pages)", "gmail", func(t *testing.T, c *textClient) {
			got := c.pageRecords(map[string]any{"stream": "messages", "connection_id": work})
			sameSet(t, "records", truthIDs(work, "messages", rsRecords(t, tok["gmail"], "messages", work)), recordIDs(got))
		}},
		{"page to the end, limit 7 (slack)", "multi", func(t *testing.T, c *textClient) {
			got := c.pageRecords(map[string]any{"stream": "messages", "connection_id": demodata.SlackConnectionID, "limit": 7})
			sameSet(t, "records", truthIDs(demodata.SlackConnectionID, "messages", rsRecords(t, tok["slack"], "messages", demodata.SlackConnectionID)), recordIDs(got))
		}},
		{"page long bodies, limit 100", "gmail", func(t *testing.T, c *textClient) {
			got := c.pageRecords(map[string]any{"stream": "message_bodies", "connection_id": work, "limit": 100})
			sameSet(t, "records", truthIDs(work, "message_bodies", rsRecords(t, tok["gmail"], "message_bodies", work)), recordIDs(got))
		}},
		{"projection paging fields [id,subject]", "gmail", func(t *testing.T, c *textClient) {
			got := c.pageRecords(map[string]any{"stream": "messages", "connection_id": personal, "fields": []string{"id", "subject"}, "limit": 100})
			truth := rsRecords(t, tok["gmail"], "messages", personal)
			sameSet(t, "records", truthIDs(personal, "messages", truth), recordIDs(got))
			subject := map[string]any{}
			for _, r := range truth {
				subject[r.ID] = r.Data["subject"]
			}
			for _, r := range got {
				if r.fields == nil || r.fields["subject"] != subject[recordKey(r.id)] || len(r.fields) != 2 {
					t.Errorf("%s: line fields %v, RS subject %v", r.id, r.fields, subject[recordKey(r.id)])
				}
			}
		}},
		{"projection shows only the asked field", "gmail", func(t *testing.T, c *textClient) {
			text := c.must("query_records", map[string]any{"stream": "messages", "connection_id": work, "fields": []string{"subject"}, "limit": 25})
			for _, f := range []string{"from_email", "snippet", "labels", "to"} {
				if strings.Contains(text, `"`+f+`"`) {
					t.Errorf("unrequested %s in text", f)
				}
			}
			if n := len(c.r.records(text)); n != 25 {
				t.Errorf("%d of 25 records in text", n)
			}
		}},
		{"per-month counts", "gmail", func(t *testing.T, c *textClient) {
			text := c.must("aggregate", map[string]any{"stream": "messages", "metric": "count", "group_by_time": "received_at",
				"granularity": "month", "connection_id": work, "limit": 100})
			got := map[string]int{}
			for key, n := range c.r.buckets(text) {
				if m := ctMonthKey.FindStringSubmatch(key); m != nil {
					got[m[1]] = n
				}
			}
			want := map[string]int{}
			for _, r := range rsRecords(t, tok["gmail"], "messages", work) {
				if s, ok := r.Data["received_at"].(string); ok && len(s) >= 7 {
					want[s[:7]]++
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("per-month counts (-rs +text):\n%s\n%s", diff, text)
			}
		}},
		{"newest 5 messages", "gmail", func(t *testing.T, c *textClient) {
			text := c.must("query_records", map[string]any{"stream": "messages", "connection_id": work, "limit": 5, "fields": []string{"id", "received_at"}})
			var got []string
			for _, r := range c.r.records(text) {
				got = append(got, fmt.Sprint(r.fields["received_at"]))
			}
			var all []string
			for _, r := range rsRecords(t, tok["gmail"], "messages", work) {
				all = append(all, fmt.Sprint(r.Data["received_at"]))
			}
			sort.Sort(sort.Reverse(sort.StringSlice(all)))
			if diff := cmp.Diff(all[:5], got); diff != "" {
				t.Errorf("newest 5 (-rs +text):\n%s", diff)
			}
		}},
		{"a 100-record wide page shows every record's title", "multi", func(t *testing.T, c *textClient) {
			// Slack messages are wide (many members); without fields a page
			// of 100 still shows each record's text first, whole or cut
			// with …, never dropped for empty members.
			// Within the result ceiling it shows the messages that fit
			// with their text whole, and leaves the rest for next_cursor.
			conn := demodata.SlackConnectionID
			truth := map[string]string{}
			for _, r := range rsRecords(t, tok["slack"], "messages", conn) {
				if s, ok := r.Data["text"].(string); ok {
					truth[conn+"/messages:"+r.ID] = s
				}
			}
			recs := c.r.records(c.must("query_records", map[string]any{"stream": "messages", "connection_id": conn, "limit": 100}))
			if len(recs) < 40 {
				t.Fatalf("%d records on the page; the journey needs a wide page", len(recs))
			}
			for _, r := range recs {
				want, ok := truth[r.id]
				if !ok {
					continue
				}
				got, _ := r.fields["text"].(string)
				if got == "" || !strings.HasPrefix(strings.Join(strings.Fields(want), " "), strings.TrimSuffix(strings.Join(strings.Fields(got), " "), "…")) {
					t.Errorf("%s: text shown %q, record text %q", r.id, got, want)
				}
				// Cut, it still says something: never a stub of a few letters.
				if n := len([]rune(got)); n < min(24, len([]rune(want))) {
					t.Errorf("%s: text cut to %d runes: %q", r.id, n, got)
				}
				// A chat message is shown whole: the page leaves records
				// for the next rather than cut what people read.
				if len([]rune(want)) <= 400 && strings.HasSuffix(got, "…") {
					t.Errorf("%s: a %d-rune text is cut: %q", r.id, len([]rune(want)), got)
				}
			}
		}},
		{"refused filter → the search it names → the record", "gmail", func(t *testing.T, c *textClient) {
			// A client-token filter is refused by the RS (D14); the refusal
			// names a search that works, and it finds the record.
			sender, _ := rareSender(rsRecords(t, tok["gmail"], "messages", work))
			if sender == "" {
				t.Fatal("no sender with 1 to 5 messages in the Work connection")
			}
			page, isErr := c.call("query_records", map[string]any{"stream": "messages", "connection_id": work,
				"filter": map[string]any{"from_name": sender}})
			if !isErr {
				t.Fatalf("want the RS's filter refusal:\n%s", page)
			}
			args := namedStep(t, page, "search ")
			hits := c.r.hits(c.must("search", args))
			want := map[string]bool{}
			for _, r := range rsRecords(t, tok["gmail"], "messages", work) {
				if r.Data["from_name"] == sender {
					want[work+"/messages:"+r.ID] = true
				}
			}
			found := 0
			for _, h := range hits {
				if want[h.id] {
					found++
				}
			}
			if found == 0 {
				t.Errorf("the named search %v finds none of %s's %d messages", args, sender, len(want))
			}
		}},
		{"misspelt field → the name the refusal offers → the values", "gmail", func(t *testing.T, c *textClient) {
			page, isErr := c.call("query_records", map[string]any{"stream": "messages", "connection_id": work,
				"fields": []string{"subjet"}, "limit": 3})
			if !isErr {
				t.Fatalf("want an unknown-field refusal:\n%s", page)
			}
			var env struct {
				NextSteps []string `json:"next_steps"`
			}
			_ = json.Unmarshal(hostRaw(page), &env)
			m := regexp.MustCompile(`did you mean "([^"]+)"`).FindStringSubmatch(strings.Join(env.NextSteps, "\n"))
			if m == nil || m[1] != "subject" {
				t.Fatalf("the refusal offers no field, or not subject:\n%s", page)
			}
			recs := c.r.records(c.must("query_records", map[string]any{"stream": "messages", "connection_id": work,
				"fields": []string{m[1]}, "limit": 3}))
			if len(recs) != 3 || recs[0].fields["subject"] == nil {
				t.Errorf("the corrected call's records lack subjects: %+v", recs)
			}
		}},
		{"when did X email me? (from the hit list alone)", "gmail", func(t *testing.T, c *textClient) {
			sender, dates := rareSender(rsRecords(t, tok["gmail"], "messages", work))
			if sender == "" {
				t.Fatal("no sender with 1 to 5 messages in the Work connection")
			}
			hits := c.must("search", map[string]any{"q": sender, "streams": []string{"messages"}, "connection_id": work})
			shown := map[string]string{}
			for _, h := range c.r.hits(hits) {
				shown[recordKey(h.id)] = h.title
			}
			for id, date := range dates {
				if title, ok := shown[id]; !ok || !strings.HasSuffix(title, " — "+date) {
					t.Errorf("message %s from %s (sent %s): hit title %q does not say when", id, sender, date, title)
				}
			}
		}},
		{"find and quote", "gmail", func(t *testing.T, c *textClient) {
			hits := c.must("search", map[string]any{"q": demodata.LongBodyTerm})
			hs := c.r.hits(hits)
			if len(hs) == 0 || hs[0].field == "" {
				t.Fatalf("no hit with a matched field:\n%s", hits)
			}
			hit := hs[0]
			_, body := c.r.window(c.must("read_record_field", map[string]any{"id": hit.id, "field_path": hit.field, "q": demodata.LongBodyTerm, "before_chars": 40, "after_chars": 40}))
			truth := rsRecords(t, tok["gmail"], "message_bodies", work)
			for _, r := range truth {
				if r.ID == recordKey(hit.id) {
					s := r.Data[hit.field].(string)
					quote := s[demodata.LongBodyTermOffset-40 : demodata.LongBodyTermOffset+len(demodata.LongBodyTerm)+40]
					if !strings.Contains(body, quote) {
						t.Errorf("window does not quote the RS text around the term:\n%q\nwant %q", body, quote)
					}
					return
				}
			}
			t.Errorf("hit %s is not a work message body", hit.id)
		}},
		{"the whole 50,000-char body", "gmail", func(t *testing.T, c *textClient) {
			hits := c.must("search", map[string]any{"q": demodata.LongBodyTerm, "streams": []string{"message_bodies"}})
			id := c.need("first_fetch_id", c.r.firstFetchID(hits), hits)
			d := c.r.document(c.must("fetch", map[string]any{"id": id}))
			m := ctCutBody.FindStringSubmatch(d.Text)
			if m == nil {
				t.Fatalf("fetch text has no continuation:\n%.300s", d.Text[len(d.Text)-300:])
			}
			whole := d.Text[:strings.LastIndex(d.Text, "…\n[text cut at")]
			var args map[string]any
			if err := json.Unmarshal([]byte(m[2]), &args); err != nil {
				t.Fatal(err)
			}
			for range 20 {
				args["limit_chars"] = 16384
				h, body := c.r.window(c.must("read_record_field", args))
				whole += body
				if h.Next == nil {
					break
				}
				args = h.Next.Args
			}
			var want truthRecord
			rsGet(t, tok["gmail"], "/v1/streams/message_bodies/records/"+recordKey(id), url.Values{"connection_id": {work}}, &want)
			if body := want.Data["body_text"].(string); whole != body {
				t.Errorf("reassembled %d chars, RS body %d chars; equal=%t", len(whole), len(body), whole == body)
			}
		}},
		{"changes bookmark", "gmail", func(t *testing.T, c *textClient) {
			args := map[string]any{"stream": "labels", "connection_id": work, "changes_since": "beginning", "limit": 3}
			var ids []string
			var last string
			for range 50 {
				last = c.must("query_records", args)
				ids = append(ids, recordIDs(c.r.records(last))...)
				cursor := c.r.nextCursor(last)
				if cursor == "" {
					break
				}
				delete(args, "changes_since")
				args["cursor"] = cursor
			}
			sameSet(t, "changes", truthIDs(work, "labels", rsRecords(t, tok["gmail"], "labels", work)), ids)
			bookmark := c.need("next_changes_since", c.r.nextChanges(last), last)
			after := c.must("query_records", map[string]any{"stream": "labels", "connection_id": work, "changes_since": bookmark})
			if n := len(c.r.records(after)); n != 0 {
				t.Errorf("%d changes after the bookmark with no writes:\n%s", n, after)
			}
		}},
		{"largest message via the schema's max field", "gmail", func(t *testing.T, c *textClient) {
			schema := c.must("schema", map[string]any{"stream": "messages", "connection_id": work})
			field := c.need("integer field with max", maxField(c.r.fieldFlags(schema)), schema)
			text := c.must("aggregate", map[string]any{"stream": "messages", "metric": "max", "field": field, "connection_id": work})
			largest := 0.0
			for _, r := range rsRecords(t, tok["gmail"], "messages", work) {
				if v, ok := r.Data[field].(float64); ok && v > largest {
					largest = v
				}
			}
			if got := c.need("aggregate value", c.r.aggValue(text), text); got != strconv.FormatFloat(largest, 'f', -1, 64) {
				t.Errorf("max(%s) %s, RS max %v", field, got, largest)
			}
		}},
		{"distinct senders (projection)", "gmail", func(t *testing.T, c *textClient) {
			got := map[any]bool{}
			for _, r := range c.pageRecords(map[string]any{"stream": "messages", "connection_id": personal, "fields": []string{"from_email"}, "limit": 100}) {
				got[r.fields["from_email"]] = true
			}
			want := map[any]bool{}
			for _, r := range rsRecords(t, tok["gmail"], "messages", personal) {
				want[r.Data["from_email"]] = true
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("senders (-rs +text):\n%s", diff)
			}
		}},
		{"multi-grant merged search", "multi", func(t *testing.T, c *textClient) {
			text := c.must("search", map[string]any{"q": "invoice", "limit": 20})
			hits := c.r.hits(text)
			if len(hits) != 20 {
				t.Fatalf("%d of 20 hits in text", len(hits))
			}
			truth := map[string]bool{}
			for _, g := range []string{"gmail", "slack", "chatgpt", "github"} {
				for _, id := range rsSearch(t, tok[g], "invoice") {
					truth[id] = true
				}
			}
			conns := map[string]bool{}
			for _, h := range hits {
				if !truth[h.id] {
					t.Errorf("hit %s is no RS hit of any grant", h.id)
				}
				conns[h.id[:strings.Index(h.id, "/")]] = true
			}
			if mix := c.r.sourceMix(text); len(conns) < 2 || mix == "" || strings.Count(mix, "cin_") != len(conns) {
				t.Errorf("source mix does not name the %d connections:\n%s", len(conns), text)
			}
		}},
		{"search paging to the end (limit changes)", "multi", func(t *testing.T, c *textClient) {
			args := map[string]any{"query": "roadmap"}
			var got []string
			for page := 0; page < 100; page++ {
				args["limit"] = []int{5, 25, 2, 10}[page%4]
				text := c.must("search", args)
				for _, h := range c.r.hits(text) {
					got = append(got, h.id)
				}
				cursor := c.r.nextCursor(text)
				if cursor == "" {
					break
				}
				args["cursor"] = cursor
			}
			var want []string
			for _, g := range []string{"gmail", "slack", "chatgpt", "github"} {
				want = append(want, rsSearch(t, tok[g], "roadmap")...)
			}
			sameSet(t, "hits", want, got)
		}},
		{"ambiguity retry from error text (fetch)", "gmail", func(t *testing.T, c *textClient) {
			text, isErr := c.call("fetch", map[string]any{"id": "messages:" + demodata.SharedRecordID})
			if !isErr || !strings.Contains(text, `"retry_with":"connection_id"`) {
				t.Fatalf("want an ambiguity error:\n%s", text)
			}
			conn := c.firstMatch(ctConnection, text)
			doc := c.must("fetch", map[string]any{"id": "messages:" + demodata.SharedRecordID, "connection_id": conn})
			var want truthRecord
			rsGet(t, tok["gmail"], "/v1/streams/messages/records/"+demodata.SharedRecordID, url.Values{"connection_id": {conn}}, &want)
			if d := c.r.document(doc); d.Title != want.Data["subject"] {
				t.Errorf("title %q, RS subject %v", d.Title, want.Data["subject"])
			}
		}},
		{"ambiguity retry from error text (schema full)", "multi", func(t *testing.T, c *textClient) {
			text, isErr := c.call("schema", map[string]any{"stream": "messages", "detail": "full"})
			if !isErr {
				t.Fatalf("want an ambiguity error:\n%s", text)
			}
			var env struct {
				Error struct {
					Available []struct {
						ConnectorKey string `json:"connector_key"`
						ConnectionID string `json:"connection_id"`
					} `json:"available_connections"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(text), &env); err != nil {
				t.Fatal(err)
			}
			conn := ""
			for _, a := range env.Error.Available {
				if a.ConnectorKey == "slack" {
					conn = a.ConnectionID
				}
			}
			if conn != demodata.SlackConnectionID {
				t.Fatalf("error text does not offer the slack connection:\n%s", text)
			}
			full := c.must("schema", map[string]any{"stream": "messages", "detail": "full", "connection_id": conn})
			checkFullTypes(t, c, full, tok["slack"], "messages", conn)
			if strings.Contains(full, "structuredContent") {
				t.Errorf("the full schema page names structuredContent:\n%.600s", full)
			}
		}},
		{"ungranted field", "restricted", func(t *testing.T, c *textClient) {
			text := c.must("query_records", map[string]any{"stream": "messages", "fields": []string{"subject", "from_email"}})
			if !ctNotGranted.MatchString(c.r.notes(text)) {
				t.Errorf("the page does not say from_email is missing:\n%.800s", text)
			}
			lines := c.r.records(text)
			if len(lines) == 0 {
				t.Fatal("no records")
			}
			for _, r := range lines {
				if _, ok := r.fields["from_email"]; ok {
					t.Errorf("%s shows an ungranted field", r.id)
				}
			}
			// Reading it directly is refused with the RS's own code.
			errText, isErr := c.call("read_record_field", map[string]any{"id": lines[0].id, "field_path": "from_email"})
			code := rsError(t, tok["restricted"], "/v1/streams/messages/records/"+recordKey(lines[0].id)+"/field-window", url.Values{"field": {"from_email"}, "connection_id": {work}})
			if !isErr || code == "" || !strings.Contains(errText, `"code":"`+code+`"`) {
				t.Errorf("want the RS's %q, got isError=%t:\n%s", code, isErr, errText)
			}
		}},
		{"restricted window count", "restricted", func(t *testing.T, c *textClient) {
			text := c.must("query_records", map[string]any{"stream": "messages", "count": "exact", "limit": 1})
			if got, want := c.need("count", c.r.count(text), text), strconv.Itoa(len(rsRecords(t, tok["restricted"], "messages", work))); got != want {
				t.Errorf("count %s, RS has %s", got, want)
			}
		}},
		{"fetch(fields) shows each value", "gmail", func(t *testing.T, c *textClient) {
			fields := []string{"subject", "from_name", "received_at"}
			d := c.r.document(c.must("fetch", map[string]any{"id": work + "/messages:" + demodata.SharedRecordID, "fields": fields}))
			var want truthRecord
			rsGet(t, tok["gmail"], "/v1/streams/messages/records/"+demodata.SharedRecordID, url.Values{"connection_id": {work}}, &want)
			for _, f := range fields {
				if line := f + ": " + fmt.Sprint(want.Data[f]); !strings.Contains(d.Text, line) {
					t.Errorf("document lacks %q:\n%s", line, d.Text)
				}
			}
		}},
		{"search then fetch", "multi", func(t *testing.T, c *textClient) {
			hits := c.must("search", map[string]any{"q": sharedSubject, "streams": []string{"messages"}, "limit": 5})
			id := c.need("first_fetch_id", c.r.firstFetchID(hits), hits)
			d := c.r.document(c.must("fetch", map[string]any{"id": id}))
			conn := id[:strings.Index(id, "/")]
			var want truthRecord
			rsGet(t, tok["gmail"], "/v1/streams/messages/records/"+recordKey(id), url.Values{"connection_id": {conn}}, &want)
			if d.ID != id || d.Title != want.Data["subject"] {
				t.Errorf("fetch %s: id %q title %q, RS subject %v", id, d.ID, d.Title, want.Data["subject"])
			}
		}},
		{"schema index names every granted stream", "multi", func(t *testing.T, c *textClient) {
			text := c.must("schema", map[string]any{})
			for _, g := range []string{"gmail", "slack", "chatgpt", "github"} {
				var doc struct {
					Connectors []struct {
						Streams []struct {
							Name string `json:"name"`
						} `json:"streams"`
					} `json:"connectors"`
				}
				rsGet(t, tok[g], "/v1/schema", nil, &doc)
				for _, cn := range doc.Connectors {
					for _, s := range cn.Streams {
						if !regexp.MustCompile(`\b` + regexp.QuoteMeta(s.Name) + `\b`).MatchString(text) {
							t.Errorf("%s stream %s missing from the index", g, s.Name)
						}
					}
				}
			}
		}},
		{"schema full carries types and formats", "gmail", func(t *testing.T, c *textClient) {
			text := c.must("schema", map[string]any{"stream": "messages", "connection_id": work, "detail": "full"})
			checkFullTypes(t, c, text, tok["gmail"], "messages", work)
		}},
		{"fan-in page says how to page, then pages each", "gmail", func(t *testing.T, c *textClient) {
			text := c.must("query_records", map[string]any{"stream": "messages", "limit": 5})
			var conns []string
			for _, m := range ctPartialConn.FindAllStringSubmatch(c.r.notes(text), -1) {
				conns = append(conns, m[1])
			}
			if len(conns) != 2 {
				t.Fatalf("want two connections to page:\n%s", text)
			}
			var got, want []string
			for _, conn := range conns {
				got = append(got, recordIDs(c.pageRecords(map[string]any{"stream": "messages", "connection_id": conn, "limit": 100}))...)
				want = append(want, truthIDs(conn, "messages", rsRecords(t, tok["gmail"], "messages", conn))...)
			}
			sameSet(t, "records", want, got)
		}},
		{"list slack channels by name", "multi", func(t *testing.T, c *textClient) {
			got := map[any]bool{}
			for _, r := range c.pageRecords(map[string]any{"stream": "channels", "fields": []string{"name"}, "limit": 100}) {
				got[r.fields["name"]] = true
			}
			want := map[any]bool{}
			for _, r := range rsRecords(t, tok["slack"], "channels", demodata.SlackConnectionID) {
				want[r.Data["name"]] = true
			}
			if diff := cmp.Diff(want, got); diff != "" || len(want) == 0 {
				t.Errorf("channels (-rs +text):\n%s", diff)
			}
		}},
		{"count chatgpt conversations", "multi", func(t *testing.T, c *textClient) {
			text := c.must("aggregate", map[string]any{"stream": "conversations", "metric": "count"})
			if got, want := c.need("aggregate value", c.r.aggValue(text), text), strconv.Itoa(len(rsRecords(t, tok["chatgpt"], "conversations", demodata.ChatGPTConnectionID))); got != want {
				t.Errorf("count %s, RS has %s", got, want)
			}
		}},
		{"grouped buckets add up", "gmail", func(t *testing.T, c *textClient) {
			text := c.must("aggregate", map[string]any{"stream": "messages", "metric": "count", "group_by": "is_seen", "connection_id": work})
			want := map[string]int{}
			for _, r := range rsRecords(t, tok["gmail"], "messages", work) {
				want[fmt.Sprint(r.Data["is_seen"])]++
			}
			got := c.r.buckets(text)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("buckets (-rs +text):\n%s", diff)
			}
		}},
		{"no ingest time shown as a date", "multi", func(t *testing.T, c *textClient) {
			text := c.must("search", map[string]any{"q": "invoice", "limit": 25})
			emitted := map[string]bool{}
			for _, g := range []string{"gmail", "slack", "chatgpt", "github"} {
				var page struct {
					Data []struct {
						EmittedAt string `json:"emitted_at"`
					} `json:"data"`
				}
				rsGet(t, tok[g], "/v1/search", url.Values{"q": {"invoice"}, "limit": {"100"}}, &page)
				for _, h := range page.Data {
					emitted[h.EmittedAt] = true
				}
			}
			for _, h := range c.r.hits(text) {
				for _, ts := range ctTimestamp.FindAllString(h.title, -1) {
					if emitted[ts] && !strings.Contains(h.title, "ingested "+ts) {
						t.Errorf("hit %s title presents its ingest time as a date: %q", h.id, h.title)
					}
				}
			}
		}},
	}
}

// namedStep is the first of an error page's next_steps that calls tool
// (its prefix, e.g. "search "), as arguments; the journey fails without
// one. Both views carry the same error object.
func namedStep(t *testing.T, page, prefix string) map[string]any {
	t.Helper()
	var env struct {
		NextSteps []string `json:"next_steps"`
	}
	if err := json.Unmarshal(hostRaw(page), &env); err != nil {
		t.Fatalf("error page is not JSON: %v\n%s", err, page)
	}
	for _, step := range env.NextSteps {
		if i := strings.Index(step, prefix+"{"); i >= 0 {
			var args map[string]any
			if err := json.NewDecoder(strings.NewReader(step[i+len(prefix):])).Decode(&args); err != nil {
				t.Fatalf("next step %q: %v", step, err)
			}
			return args
		}
	}
	t.Fatalf("no %q step among %v", prefix, env.NextSteps)
	return nil
}

// maxField is the first integer field (by name) whose flags offer max.
func maxField(flags map[string]string) string {
	names := make([]string, 0, len(flags))
	for name, f := range flags {
		if ctMaxFlag.MatchString(f) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return ""
	}
	return names[0]
}

// checkFullTypes: schema(detail:"full") shows every property the RS types,
// with its type and format.
func checkFullTypes(t *testing.T, c *textClient, page, token, stream, conn string) {
	t.Helper()
	var doc struct {
		Connectors []struct {
			Streams []struct {
				Schema struct {
					Properties map[string]struct {
						Type   any    `json:"type"`
						Format string `json:"format"`
					} `json:"properties"`
				} `json:"schema"`
			} `json:"streams"`
		} `json:"connectors"`
	}
	rsGet(t, token, "/v1/schema", url.Values{"stream": {stream}, "connection_id": {conn}, "detail": {"full"}}, &doc)
	n := 0
	for _, cn := range doc.Connectors {
		for _, s := range cn.Streams {
			for name, p := range s.Schema.Properties {
				typ, ok := p.Type.(string)
				if !ok {
					continue
				}
				if p.Format != "" {
					typ += "/" + p.Format
				}
				if !c.r.fieldType(page, name, typ) {
					t.Errorf("the page lacks %s %s", name, typ)
				}
				n++
			}
		}
	}
	if n == 0 {
		t.Fatal("RS declares no types; nothing checked")
	}
}

// The journeys below read across time: a host refreshes its
// token every 600 s on the real RS and may restart the stdio server
// between turns, and a long read must carry on where it was. They run on
// their own sessions (a credential cache each test rewrites), reading
// only content[] text.

// stdioAt starts the stdio server over the credential cache in root,
// written to hold bearers (what `pdpp connect` leaves there).
func stdioAt(t *testing.T, root string, bearers ...string) *goSession {
	t.Helper()
	writeStdioCache(t, root, bearers...)
	cmd := exec.Command(binPath, "--provider-url", mockRS.RSURL, "--cache-root", root)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, waitForDetails}
	cmd.Stderr = &testLogWriter{t: t, prefix: "stdio: "}
	s := connect(t, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, defaultProtocol)
	watchProcess(t, cmd, false)
	return s
}

// writeStdioCache (re)writes root's credential cache with bearers, as a
// `pdpp connect` (or a host's refresh) does.
func writeStdioCache(t *testing.T, root string, bearers ...string) {
	t.Helper()
	path, err := credcache.CacheFilePath(root, mockRS.RSURL)
	if err != nil {
		t.Fatal(err)
	}
	creds := make([]map[string]string, len(bearers))
	for i, b := range bearers {
		creds[i] = map[string]string{"access_token": b, "token_type": "Bearer"}
	}
	raw, _ := json.Marshal(map[string]any{"provider_url": mockRS.RSURL, "credentials": creds})
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
}

// refreshedToken is a new client token of grantID, minted by the mock RS
// as the authorization server's refresh would (the old one stays valid).
func refreshedToken(t *testing.T, grantID string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, mockRS.RSURL+"/_mockrs/grants/"+grantID+"/token", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+mockRS.OwnerBearer)
	resp, err := truthClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || m.AccessToken == "" {
		t.Fatalf("mint a token for %s: HTTP %d, %v", grantID, resp.StatusCode, err)
	}
	return m.AccessToken
}

// rsChangeIDs is the whole changes feed of a stream in one connection,
// read from the RS as D3 says a session continues (its next_cursor).
func rsChangeIDs(t *testing.T, bearer, stream, conn string) []string {
	t.Helper()
	var out []string
	q := url.Values{"limit": {"100"}, "connection_id": {conn}, "changes_since": {"beginning"}}
	for range 200 {
		var page struct {
			Data       []truthRecord `json:"data"`
			HasMore    bool          `json:"has_more"`
			NextCursor string        `json:"next_cursor"`
		}
		if st := rsGet(t, bearer, "/v1/streams/"+stream+"/records", q, &page); st != http.StatusOK {
			t.Fatalf("RS changes %s: HTTP %d", stream, st)
		}
		for _, r := range page.Data {
			out = append(out, conn+"/"+stream+":"+r.ID)
		}
		if !page.HasMore {
			return out
		}
		q = url.Values{"limit": {"100"}, "connection_id": {conn}, "cursor": {page.NextCursor}}
	}
	t.Fatal("RS changes paging did not end")
	return nil
}

// readChanges reads changes pages through the text, from args, for at
// most pages pages (0 = to the end); it returns the change ids in order
// and the next args ("" cursor at the end).
func (c *textClient) readChanges(args map[string]any, pages int) ([]string, map[string]any) {
	c.t.Helper()
	var got []string
	for n := 0; pages == 0 || n < pages; n++ {
		text := c.must("query_records", args)
		for _, r := range recordLines(text) {
			got = append(got, r.id)
		}
		m := ctNextCursor.FindStringSubmatch(text)
		if m == nil {
			return got, nil
		}
		args = map[string]any{"stream": args["stream"], "connection_id": args["connection_id"], "cursor": m[1]}
	}
	return got, args
}

func TestContentJourneysAcrossTime(t *testing.T) {
	t.Parallel()
	work := demodata.GmailWorkConnectionID
	gmail := mockRS.bearer(t, demodata.GmailGrantID)
	feed := rsChangeIDs(t, gmail, "messages", work)
	if len(feed) < 20 {
		t.Fatalf("the feed has %d changes; the journeys need at least 20", len(feed))
	}
	first := map[string]any{"stream": "messages", "connection_id": work, "changes_since": "beginning", "limit": 5}
	client := func(t *testing.T, s *goSession) *textClient {
		return &textClient{t: t, s: &goSession{t: t, cs: s.cs, schemas: s.schemas}, r: textReader{}} // these journeys read the text
	}

	t.Run("changes feed across a token refresh", func(t *testing.T) {
		t.Parallel()
		root := t.TempDir()
		c := client(t, stdioAt(t, root, gmail))
		before, next := c.readChanges(first, 2)
		if next == nil {
			t.Fatal("the feed ended in 2 pages; the journey needs more")
		}
		writeStdioCache(t, root, refreshedToken(t, demodata.GmailGrantID)) // the host refreshed: only the new token is cached
		after, _ := c.readChanges(next, 0)
		if diff := cmp.Diff(feed, append(before, after...)); diff != "" {
			t.Errorf("every change exactly once, in order, across the refresh (-rs +text):\n%s", diff)
		}
		t.Logf("%d changes before the refresh, %d after, in %d calls", len(before), len(after), c.calls)
	})

	t.Run("changes feed across a token refresh (hosted)", func(t *testing.T) {
		t.Parallel()
		endpoint := startServe(t)
		c := client(t, connectHTTP(t, endpoint, gmail, defaultProtocol))
		before, next := c.readChanges(first, 2)
		if next == nil {
			t.Fatal("the feed ended in 2 pages; the journey needs more")
		}
		// The host refreshed: every later request carries the new token.
		c2 := client(t, connectHTTP(t, endpoint, refreshedToken(t, demodata.GmailGrantID), defaultProtocol))
		after, _ := c2.readChanges(next, 0)
		if diff := cmp.Diff(feed, append(before, after...)); diff != "" {
			t.Errorf("every change exactly once, in order, across the refresh (-rs +text):\n%s", diff)
		}
		// Another grant's token cannot continue it, and is told why.
		other := client(t, connectHTTP(t, endpoint, mockRS.bearer(t, demodata.GmailRestrictedGrantID), defaultProtocol))
		if text, isErr := other.call("query_records", next); !isErr || !strings.Contains(text, "another grant") {
			t.Errorf("another grant's token must be refused naming the grant mismatch:\n%s", text)
		}
	})

	t.Run("changes feed across a stdio restart", func(t *testing.T) {
		t.Parallel()
		root := t.TempDir()
		s1 := stdioAt(t, root, gmail)
		c1 := client(t, s1)
		before, next := c1.readChanges(first, 2)
		if next == nil {
			t.Fatal("the feed ended in 2 pages; the journey needs more")
		}
		_ = s1.cs.Close() // the host stops the server between turns
		c2 := client(t, stdioAt(t, root, gmail))
		after, _ := c2.readChanges(next, 0)
		if diff := cmp.Diff(feed, append(before, after...)); diff != "" {
			t.Errorf("every change exactly once, in order, across the restart (-rs +text):\n%s", diff)
		}
		t.Logf("%d changes before the restart, %d after", len(before), len(after))
	})

	t.Run("search and field window across a token refresh (hosted)", func(t *testing.T) {
		t.Parallel()
		endpoint := startServe(t)
		c := client(t, connectHTTP(t, endpoint, gmail, defaultProtocol))
		truth := rsSearch(t, gmail, "invoice")
		page := c.must("search", map[string]any{"q": "invoice", "limit": 3})
		cursor := c.firstMatch(ctNextCursor, page)
		var hits []string
		for _, m := range ctHitLine.FindAllStringSubmatch(page, -1) {
			hits = append(hits, m[1])
		}
		window := c.must("read_record_field", map[string]any{"connection_id": work, "stream": "message_bodies",
			"record_id": demodata.LongBodyMessageID, "field_path": "body_text", "limit_chars": 4000})
		wcursor := c.firstMatch(regexp.MustCompile(`"next":\{"tool":"read_record_field","args":\{[^}]*"cursor":"([^"]+)"`), window)

		c = client(t, connectHTTP(t, endpoint, refreshedToken(t, demodata.GmailGrantID), defaultProtocol)) // the host refreshed
		for range 100 {
			page = c.must("search", map[string]any{"cursor": cursor})
			for _, m := range ctHitLine.FindAllStringSubmatch(page, -1) {
				hits = append(hits, m[1])
			}
			m := ctNextCursor.FindStringSubmatch(page)
			if m == nil {
				break
			}
			cursor = m[1]
		}
		sameSet(t, "search hits across the refresh", truth, hits)
		next := c.must("read_record_field", map[string]any{"connection_id": work, "stream": "message_bodies",
			"record_id": demodata.LongBodyMessageID, "field_path": "body_text", "cursor": wcursor})
		if !strings.Contains(next, `"start_chars":4000`) {
			t.Errorf("the field window did not continue at 4000 after the refresh:\n%.300s", next)
		}
	})
}

// rareSender is a sender of 1 to 5 of the messages, with each message's
// id and date: the answers to "when did they email me?".
func rareSender(msgs []truthRecord) (string, map[string]string) {
	by := map[string]map[string]string{}
	var order []string
	for _, m := range msgs {
		name, _ := m.Data["from_name"].(string)
		date, _ := m.Data["date"].(string)
		if name == "" || date == "" {
			continue
		}
		if by[name] == nil {
			by[name] = map[string]string{}
			order = append(order, name)
		}
		by[name][m.ID] = date
	}
	for _, name := range order {
		if n := len(by[name]); n >= 1 && n <= 5 {
			return name, by[name]
		}
	}
	return "", nil
}
