package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pdpp/pdpp-mcp/internal/ritest"
)

// The RI tier: the real pdpp-mcp binary, `serve` (Streamable HTTP, the Go
// SDK client) and the stdio server, against the PDPP reference
// implementation's RS with client tokens its AS minted through the real
// OAuth flow (internal/ritest). Every RS exchange passes a proxy that
// validates it against openapi.yaml. The tests assert on what the model
// sees, in both channels: the text (textReader) and structuredContent
// (structuredReader), against the seeded data set's ground truth.
//
// Each RI test may take longer than 3 s: the first one of a test process
// waits for ritest.Shared to start the RI (seconds over the cached seeded
// database; a first build and seed on a machine takes minutes), and the
// rest run real node servers on a shared two-core machine.

// riSession is one adapter session on the RI in one mode.
type riSession struct {
	mode string
	open func(t *testing.T) *goSession
}

// riSessions are the two ways a host runs the adapter, over provider (the
// contract proxy in front of the RI's RS) with tok.
func riSessions(provider string, tok ritest.ClientToken) []riSession {
	return []riSession{
		{"serve", func(t *testing.T) *goSession {
			return connectHTTP(t, riServe(t, provider), tok.AccessToken, defaultProtocol)
		}},
		{"stdio", func(t *testing.T) *goSession { return riStdio(t, provider, tok) }},
	}
}

// riServe runs `pdpp-mcp serve` against provider and returns its MCP URL.
func riServe(t *testing.T, provider string) string {
	t.Helper()
	cmd := exec.Command(binPath, "serve", "--provider-url", provider, "--addr", "127.0.0.1:0")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), waitForDetails}
	cmd.Stderr = &testLogWriter{t: t, prefix: "serve: "}
	line := startReady(t, cmd, "serve")
	m := serveReady.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("serve ready line %q does not match %v", line, serveReady)
	}
	return m[1]
}

// riStdio runs the stdio server over a credential cache holding toks, as
// `pdpp connect` writes it, through the Go SDK's CommandTransport.
func riStdio(t *testing.T, provider string, toks ...ritest.ClientToken) *goSession {
	t.Helper()
	root := t.TempDir()
	if _, err := ritest.WriteCredentialCache(root, provider, toks...); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binPath, "--provider-url", provider, "--cache-root", root)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, waitForDetails}
	cmd.Stderr = &testLogWriter{t: t, prefix: "stdio: "}
	s := connect(t, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, defaultProtocol)
	watchProcess(t, cmd, false)
	return s
}

// riMint mints a client token of both seeded connections or fails t.
func riMint(t *testing.T, ri *ritest.RI, o ritest.MintOptions) ritest.ClientToken {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tok, err := ri.Mint(ctx, o)
	if err != nil {
		t.Fatalf("mint a client token: %v", err)
	}
	return tok
}

// forT is the client bound to a subtest (its session reports there).
func (c *textClient) forT(t *testing.T) *textClient {
	s := *c.s
	s.t = t
	return &textClient{t: t, s: &s, r: c.r}
}

// riViews are the two channels a model reads: the text, and the
// structuredContent a structured-first host hands it instead.
var riViews = []pageReader{textReader{}, structuredReader{}}

// TestRIJourneys walks the journeys in every mode and view.
func TestRIJourneys(t *testing.T) {
	t.Parallel()
	ri := ritest.Shared(t)
	tok := riMint(t, ri, ritest.MintOptions{})
	provider := riContractProxy(t, ri.RSURL)
	for _, sess := range riSessions(provider, tok) {
		for _, view := range riViews {
			t.Run(sess.mode+"/"+view.view(), func(t *testing.T) {
				t.Parallel()
				c := &textClient{t: t, s: sess.open(t), r: view}
				t.Run("changes_feed", func(t *testing.T) { riChangesFeed(c.forT(t), ri) })
				t.Run("fan_in_paging", func(t *testing.T) { riFanIn(c.forT(t), ri) })
				t.Run("aggregate", func(t *testing.T) { riAggregate(c.forT(t), ri) })
				t.Run("search_fetch", func(t *testing.T) { riSearchFetch(c.forT(t), ri) })
				t.Run("long_body", func(t *testing.T) { riLongBody(c.forT(t), ri) })
			})
		}
	}
}

// connTruth is the fetch ids of stream's records in one seeded connection.
func connTruth(ri *ritest.RI, key, stream string) []string {
	var out []string
	for _, id := range ri.Truth.PerConnection[key].MessageIDs {
		out = append(out, ri.Connections[key]+"/"+stream+":"+id)
	}
	return out
}

// riChangesFeed reads each connection's changes feed from the beginning
// to its end: every message exactly once, a bookmark on the last page,
// and nothing new behind the bookmark.
func riChangesFeed(c *textClient, ri *ritest.RI) {
	for _, key := range []string{"work", "personal"} {
		conn := ri.Connections[key]
		args := map[string]any{"stream": "messages", "connection_id": conn, "changes_since": "beginning", "limit": 10, "fields": []string{"id"}}
		var got []string
		bookmark, pages := "", 0
		for bookmark == "" {
			if pages++; pages > 20 {
				c.t.Fatalf("%s: the feed did not end in 20 pages", key)
			}
			page := c.must("query_records", args)
			for _, r := range c.r.records(page) {
				got = append(got, r.id)
			}
			if cursor := c.r.nextCursor(page); cursor != "" {
				args = map[string]any{"stream": "messages", "connection_id": conn, "cursor": cursor}
				continue
			}
			if c.r.hasMore(page) {
				c.t.Fatalf("%s: has_more without next_cursor:\n%s", key, page)
			}
			bookmark = c.need("next_changes_since on the last page", c.r.nextChanges(page), page)
		}
		if dup := duplicates(got); len(dup) > 0 {
			c.t.Errorf("%s: the feed repeats %v", key, dup)
		}
		sameSet(c.t, key+" changes feed", connTruth(ri, key, "messages"), got)
		if pages < 3 {
			c.t.Errorf("%s: %d pages of 10 for %d changes: the feed did not page", key, pages, len(got))
		}
		after := c.must("query_records", map[string]any{"stream": "messages", "connection_id": conn, "changes_since": bookmark})
		if rs := c.r.records(after); len(rs) != 0 || c.r.nextChanges(after) == "" {
			c.t.Errorf("%s: behind the bookmark: %d records, next_changes_since %q; want none and a bookmark:\n%s", key, len(rs), c.r.nextChanges(after), after)
		}
	}
}

func duplicates(ids []string) []string {
	seen, dup := map[string]bool{}, []string{}
	for _, id := range ids {
		if seen[id] {
			dup = append(dup, id)
		}
		seen[id] = true
	}
	return dup
}

// riFanIn: an unscoped page merges both connections, a few records each,
// and names both connection ids to page with; each connection then pages
// to its end.
func riFanIn(c *textClient, ri *ritest.RI) {
	page := c.must("query_records", map[string]any{"stream": "messages", "limit": 4})
	perConn := map[string]int{}
	for _, r := range c.r.records(page) {
		perConn[r.id[:strings.IndexByte(r.id, '/')]]++
	}
	want := map[string]int{ri.Connections["work"]: 4, ri.Connections["personal"]: 4}
	if diff := cmp.Diff(want, perConn); diff != "" {
		c.t.Errorf("fan-in page, records per connection (-want +got):\n%s\n%s", diff, page)
	}
	notes := c.r.notes(page)
	for _, key := range []string{"work", "personal"} {
		if !strings.Contains(notes, "connection_id="+ri.Connections[key]) {
			c.t.Errorf("the fan-in page's notes do not say how to page %s:\n%s", key, notes)
		}
	}
	for _, key := range []string{"work", "personal"} {
		got := recordIDs(c.pageRecords(map[string]any{"stream": "messages", "connection_id": ri.Connections[key], "limit": 7}))
		sameSet(c.t, key+" paged", connTruth(ri, key, "messages"), got)
	}
}

// riAggregate: count, sum, max and two groupings against the ground truth.
func riAggregate(c *textClient, ri *ritest.RI) {
	tr := ri.Truth
	for _, a := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"stream": "messages", "metric": "count"}, strconv.Itoa(tr.MessagesTotal)},
		{map[string]any{"stream": "messages", "metric": "sum", "field": "size_bytes"}, strconv.Itoa(tr.SizeBytesSum)},
		{map[string]any{"stream": "messages", "metric": "max", "field": "size_bytes"}, strconv.Itoa(tr.SizeBytesMax)},
		{map[string]any{"stream": "messages", "metric": "count", "connection_id": ri.Connections["personal"]},
			strconv.Itoa(len(tr.PerConnection["personal"].MessageIDs))},
	} {
		page := c.must("aggregate", a.args)
		if got := c.r.aggValue(page); got != a.want {
			c.t.Errorf("aggregate %v = %q, want %s:\n%s", a.args, got, a.want, page)
		}
	}
	months := map[string]int{}
	page := c.must("aggregate", map[string]any{"stream": "messages", "metric": "count", "group_by_time": "received_at", "granularity": "month"})
	for k, n := range c.r.buckets(page) {
		months[k[:min(7, len(k))]] += n
	}
	if diff := cmp.Diff(tr.MessagesPerMonth, months); diff != "" {
		c.t.Errorf("count by month (-want +got):\n%s\n%s", diff, page)
	}
	page = c.must("aggregate", map[string]any{"stream": "messages", "metric": "count", "group_by": "is_seen"})
	if diff := cmp.Diff(map[string]int{"true": tr.SeenTrue, "false": tr.SeenFalse}, c.r.buckets(page)); diff != "" {
		c.t.Errorf("count by is_seen (-want +got):\n%s\n%s", diff, page)
	}
}

// riSearchFetch: lexical "kayak itinerary" finds the five messages, and
// each hit's id fetches that message.
func riSearchFetch(c *textClient, ri *ritest.RI) {
	page := c.must("search", map[string]any{"q": "kayak itinerary"})
	hits := c.r.hits(page)
	var keys []string
	for _, h := range hits {
		keys = append(keys, recordKey(h.id))
	}
	sameSet(c.t, "kayak itinerary hits", slices.Clone(ri.Truth.KayakItinerary), keys)
	for _, h := range hits {
		doc := c.r.document(c.must("fetch", map[string]any{"id": h.id}))
		if doc.ID != h.id || !strings.Contains(strings.ToLower(doc.Title+"\n"+doc.Text), "kayak itinerary") {
			c.t.Errorf("fetch(%s) = id %q title %q: not the hit", h.id, doc.ID, doc.Title)
		}
	}
}

// riLongBody reassembles the 24,970-char body from read_record_field
// windows, following each window's next call, and finds "Paragraph 50."
// where the data set put it.
func riLongBody(c *textClient, ri *ritest.RI) {
	tr := ri.Truth
	id := ri.Connections["work"] + "/message_bodies:" + tr.LongBodyID
	h, body := c.r.window(c.must("read_record_field", map[string]any{"id": id, "field_path": "body_text"}))
	var text strings.Builder
	text.WriteString(body)
	for windows := 1; h.Next != nil; windows++ {
		if windows > 40 {
			c.t.Fatal("more than 40 windows: the continuation does not advance")
		}
		if h.Next.Tool != "read_record_field" {
			c.t.Fatalf("next.tool = %q", h.Next.Tool)
		}
		h, body = c.r.window(c.must(h.Next.Tool, h.Next.Args))
		text.WriteString(body)
	}
	if h.Total != tr.LongBodyChars || !h.Complete && h.End != tr.LongBodyChars {
		c.t.Errorf("last window: total_chars %d end %d, want %d", h.Total, h.End, tr.LongBodyChars)
	}
	if text.String() != tr.LongBodyText {
		c.t.Errorf("reassembled body: %d chars, want the seeded %d; first difference at %d", len([]rune(text.String())), tr.LongBodyChars, firstDiff(text.String(), tr.LongBodyText))
	}
	const term = "Paragraph 50."
	h, body = c.r.window(c.must("read_record_field", map[string]any{"id": id, "field_path": "body_text", "q": term}))
	if h.MatchStart == nil || *h.MatchStart != tr.Paragraph50At {
		c.t.Errorf("match_start_chars = %v, want %d", h.MatchStart, tr.Paragraph50At)
	} else if at := *h.MatchStart - h.Start; at < 0 || at > len(body) || !strings.HasPrefix(body[at:], term) {
		c.t.Errorf("window [%d,%d) does not hold %q at %d", h.Start, h.End, term, *h.MatchStart)
	}
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestRIWorkOnlyGrant: a token of the Work connection alone sees Work's
// records only, in both modes: three of the five kayak messages, Work's
// count, and a plain page that pages with its own cursor.
func TestRIWorkOnlyGrant(t *testing.T) {
	t.Parallel()
	ri := ritest.Shared(t)
	tok := riMint(t, ri, ritest.MintOptions{Connections: []string{ri.Connections["work"]}})
	provider := riContractProxy(t, ri.RSURL)
	var workKayak []string
	for _, id := range ri.Truth.KayakItinerary {
		if strings.HasPrefix(id, "work-") {
			workKayak = append(workKayak, id)
		}
	}
	for _, sess := range riSessions(provider, tok) {
		t.Run(sess.mode, func(t *testing.T) {
			t.Parallel()
			c := &textClient{t: t, s: sess.open(t), r: textReader{}}
			var keys []string
			for _, h := range c.r.hits(c.must("search", map[string]any{"q": "kayak itinerary"})) {
				keys = append(keys, recordKey(h.id))
			}
			sameSet(t, "work-only kayak hits", slices.Clone(workKayak), keys)
			n := c.r.aggValue(c.must("aggregate", map[string]any{"stream": "messages", "metric": "count"}))
			if want := strconv.Itoa(len(ri.Truth.PerConnection["work"].MessageIDs)); n != want {
				t.Errorf("work-only count = %q, want %s", n, want)
			}
			got := recordIDs(c.pageRecords(map[string]any{"stream": "messages", "limit": 8}))
			sameSet(t, "work-only pages", connTruth(ri, "work", "messages"), got)
		})
	}
}

// knownRIAdapterBugs are adapter defects the RI tests see today, by test,
// with what goes wrong; a test whose bug is listed logs it instead of
// failing, and fails once the bug is gone so the entry is removed.
var knownRIAdapterBugs = map[string]string{}

// knownBug reports a defect: logged when knownRIAdapterBugs lists it,
// an error otherwise. It returns whether the defect was seen.
func knownBug(t *testing.T, name string, seen bool, format string, args ...any) {
	t.Helper()
	reason, known := knownRIAdapterBugs[name]
	switch {
	case seen && known:
		t.Logf("known adapter bug %s (%s): %s", name, reason, fmt.Sprintf(format, args...))
	case seen:
		t.Errorf(format, args...)
	case known:
		t.Errorf("knownRIAdapterBugs[%q] no longer happens: remove it", name)
	}
}

// TestRIOverlappingGrants: the stdio server over a cache holding a grant
// of both connections and a narrower Work-only grant answers as the wider
// grant alone would: every kayak message once, the full count.
func TestRIOverlappingGrants(t *testing.T) {
	t.Parallel()
	ri := ritest.Shared(t)
	both := riMint(t, ri, ritest.MintOptions{})
	work := riMint(t, ri, ritest.MintOptions{Connections: []string{ri.Connections["work"]}, Streams: []string{"messages"}})
	provider := riContractProxy(t, ri.RSURL)
	c := &textClient{t: t, s: riStdio(t, provider, both, work), r: textReader{}}

	page := c.must("search", map[string]any{"q": "kayak itinerary"})
	var ids, keys []string
	for _, h := range c.r.hits(page) {
		ids = append(ids, h.id)
		keys = append(keys, recordKey(h.id))
	}
	dup := duplicates(ids)
	knownBug(t, "TestRIOverlappingGrants/search_duplicates", len(dup) > 0, "search lists %v more than once:\n%s", dup, page)
	slices.Sort(keys)
	sameSet(t, "kayak itinerary hits, once each", slices.Clone(ri.Truth.KayakItinerary), slices.Compact(keys))

	n := c.r.aggValue(c.must("aggregate", map[string]any{"stream": "messages", "metric": "count"}))
	if want := strconv.Itoa(ri.Truth.MessagesTotal); n != want {
		t.Errorf("count over overlapping grants = %q, want %s", n, want)
	}
}
