package adapter_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/page"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

var firstFetchIDRe = regexp.MustCompile(`first_fetch_id=(\S+)`)

// searchResults is search's structuredContent as a model reads it, with
// each hit's identity parsed from its self-contained id.
type searchResults struct {
	Results      []hitRow    `json:"-"`
	FirstFetchID string      `json:"first_fetch_id"`
	How          string      `json:"how"`
	Hits         [][5]string `json:"hits"`
	HasMore      bool        `json:"has_more"`
	NextCursor   string      `json:"next_cursor"`
	SourceMix    string      `json:"source_mix"`
	Warnings     []string    `json:"warnings"`
}

func decodeSearch(t *testing.T, r toolResult) searchResults {
	t.Helper()
	if r.IsError {
		t.Fatalf("search failed: %s", r.text())
	}
	var sr searchResults
	if err := json.Unmarshal(r.StructuredContent, &sr); err != nil {
		t.Fatal(err)
	}
	if len(sr.Hits) > 0 && !strings.HasPrefix(sr.How, "hits are [id,title,source,field,snippet]") {
		t.Fatalf("hit rows unexplained: %q", sr.How)
	}
	for _, row := range sr.Hits {
		ref, _, err := contentladder.ParseID(row[0])
		if err != nil {
			t.Fatalf("hit id %q: %v", row[0], err)
		}
		sr.Results = append(sr.Results, hitRow{ID: row[0], Title: row[1], Source: row[2], Field: row[3], Snippet: row[4],
			ConnectionID: ref.ConnectionID, Stream: ref.Stream, RecordID: ref.RecordID})
	}
	return sr
}

// hitRow is one hit row of search's structuredContent, with its identity
// parsed from the self-contained id.
type hitRow struct {
	ID, Title, Source, Field, Snippet string
	ConnectionID, Stream, RecordID    string
}

// searchAll pages a search to the end, reading next_cursor from text.
// withGrants is a client of another adapter over e's mock RS.
func (e *env) withGrants(t *testing.T, bearers ...string) *client {
	t.Helper()
	rc, err := rsclient.New(rsclient.Config{BaseURL: e.rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	grants := make([]adapter.Grant, len(bearers))
	for i, b := range bearers {
		grants[i] = adapter.NewGrant(b)
	}
	srv, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Grants: grants, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return newClient(t, srv)
}

func searchAll(t *testing.T, c *client, args map[string]any) []string {
	t.Helper()
	var ids []string
	for page := 0; page < 100; page++ {
		r := c.call("search", args)
		sr := decodeSearch(t, r)
		if limit, ok := args["limit"].(int); ok && len(sr.Results) > limit {
			t.Fatalf("page has %d hits; limit %d", len(sr.Results), limit)
		}
		for _, h := range sr.Results {
			ids = append(ids, h.ID)
		}
		m := nextCursorRe.FindStringSubmatch(r.text())
		if m == nil {
			return ids
		}
		args["cursor"] = m[1]
	}
	t.Fatal("search paging did not end")
	return nil
}

func TestSearchFanInMergesGloballyWithIdentity(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, threeGrants...)
	r := e.c.call("search", map[string]any{"q": "invoice", "limit": 10})
	sr := decodeSearch(t, r)
	if len(sr.Results) != 10 {
		t.Fatalf("got %d hits, want 10 (limit is global)", len(sr.Results))
	}
	conns := map[string]bool{}
	for _, h := range sr.Results {
		if h.ConnectionID == "" || h.Source == "" || h.Stream == "" || h.RecordID == "" || h.Title == "" {
			t.Errorf("hit lacks identity: %+v", h)
		}
		if h.ID != h.ConnectionID+"/"+h.Stream+":"+h.RecordID {
			t.Errorf("id %q is not self-contained", h.ID)
		}
		if h.Title == page.StripMarks(h.Snippet) && h.Stream != "messages" {
			t.Errorf("title fell back to the snippet: %q", h.Title)
		}
		conns[h.ConnectionID] = true
	}
	if len(conns) < 2 {
		t.Fatalf("expected hits from several connections, got %v", conns)
	}
	lines := strings.Split(r.text(), "\n")
	if !strings.Contains(lines[0], "first_fetch_id="+sr.Results[0].ID) {
		t.Errorf("first line must carry first_fetch_id: %q", lines[0])
	}
	containsAll(t, r.text(), "source_mix:")
	if budget := 2000 + 250*10; len(r.text()) > budget {
		t.Errorf("search text %d bytes > %d", len(r.text()), budget)
	}
}

func TestSearchPagingVisitsMergedResultOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, threeGrants...)
	// 115 hits in pages of 12: ten page boundaries across three grants.
	// (Pages of 7 doubled the run time, the slowest adapter test, for no
	// boundary case more.)
	merged := searchAll(t, e.c, map[string]any{"q": "roadmap", "limit": 12})
	var union []string
	for _, tok := range threeGrants {
		// One grant at a time against the same mock RS: starting an RS per
		// grant cost more than the paging under test.
		single := e.withGrants(t, tok)
		union = append(union, searchAll(t, single, map[string]any{"q": "roadmap", "limit": 25})...)
	}
	sort.Strings(union)
	got := append([]string(nil), merged...)
	sort.Strings(got)
	if diff := cmp.Diff(union, got); diff != "" {
		t.Errorf("merged paging saw %d hits, per-grant union has %d; they must be the same set (-union +merged):\n%s", len(got), len(union), diff)
	}
	seen := map[string]bool{}
	for _, id := range merged {
		if seen[id] {
			t.Errorf("hit %s returned twice", id)
		}
		seen[id] = true
	}
	if len(merged) < 15 {
		t.Errorf("only %d hits; the fixture should page several times", len(merged))
	}
}

func TestSearchCursorIsBoundToArguments(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, threeGrants...)
	r := e.c.call("search", map[string]any{"q": "invoice", "limit": 3})
	m := nextCursorRe.FindStringSubmatch(r.text())
	if m == nil {
		t.Fatal("no cursor")
	}
	for name, args := range map[string]map[string]any{
		"other query":   {"q": "roadmap", "limit": 3, "cursor": m[1]},
		"other streams": {"q": "invoice", "streams": []string{"messages"}, "cursor": m[1]},
		"garbage":       {"q": "invoice", "limit": 3, "cursor": "not-a-cursor"},
		"tampered":      {"cursor": m[1][:12] + flip(m[1][12]) + m[1][13:]},
	} {
		r := e.c.call("search", args)
		if got := r.errorCode(t); got != "invalid_cursor" {
			t.Errorf("%s: code %q", name, got)
		}
		if name == "other query" && !strings.Contains(r.text(), "limit may change") {
			t.Errorf("the error does not say what the cursor is bound to: %s", r.text())
		}
	}
	// limit is not part of the binding: a later page may be larger.
	if r := e.c.call("search", map[string]any{"q": "invoice", "limit": 4, "cursor": m[1]}); r.IsError {
		t.Errorf("changing limit broke paging: %s", r.text())
	}
	// The cursor alone continues the search (it carries q and the rest);
	// a different limit only changes the page size.
	for _, args := range []map[string]any{{"cursor": m[1]}, {"cursor": m[1], "limit": 5}} {
		if r := e.c.call("search", args); r.IsError || !strings.Contains(r.text(), "first_fetch_id=") {
			t.Errorf("search %v: %s", args, r.text())
		}
	}
}

func TestSearchModes(t *testing.T) {
	t.Parallel()
	off := newEnv(t, testenv.Options{NoSemantic: true}, demodata.SlackToken)
	if got := off.c.call("search", map[string]any{"q": "invoice", "mode": "semantic"}).errorCode(t); got != "search_mode_unavailable" {
		t.Errorf("unadvertised mode: %q", got)
	}
	on := newEnv(t, testenv.Options{}, demodata.SlackToken)
	for _, mode := range []string{"semantic", "hybrid"} {
		sr := decodeSearch(t, on.c.call("search", map[string]any{"q": "vendor invoice", "mode": mode, "limit": 5}))
		if len(sr.Results) == 0 {
			t.Errorf("%s: no hits", mode)
		}
	}
}

func TestSearchOneSlowGrantDegradesToWarning(t *testing.T) {
	t.Parallel()
	slow := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/v1/search") && r.Header.Get("Authorization") == "Bearer "+demodata.SlackToken {
				// Never answers: only the adapter's per-source deadline
				// ends this request.
				<-r.Context().Done()
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	rs := testenv.StartRS(t, testenv.Options{Raw: slow})
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	var grants []adapter.Grant
	for _, tok := range threeGrants {
		grants = append(grants, adapter.NewGrant(tok))
	}
	// The source wait is the only thing that ends the silent grant; it is
	// far above what a healthy grant takes even on a loaded CI machine
	// under -race (the mock validates every answer against the contract),
	// so the healthy grants' hits never depend on the machine's speed.
	srv, err := adapter.New(adapter.Config{RS: rc, Grants: grants, Waits: adapter.Waits{Source: 15 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, srv)
	c.call("schema", map[string]any{}) // warm the schema cache
	start := time.Now()
	r := c.call("search", map[string]any{"q": "invoice", "limit": 10})
	elapsed := time.Since(start)
	sr := decodeSearch(t, r)
	t.Logf("fan-in with one silent grant and a 15s source wait answered in %v with %d hits", elapsed, len(sr.Results))
	if !strings.Contains(r.text(), "warning source_unavailable") {
		t.Errorf("no source_unavailable warning:\n%s", r.text())
	}
	for _, h := range sr.Results {
		if h.ConnectionID == demodata.SlackConnectionID {
			t.Errorf("slow grant's hit present: %s", h.ID)
		}
	}
	if len(sr.Results) == 0 {
		t.Error("healthy grants' hits missing")
	}
}

func TestContentOnlySearchThenFetch(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken)
	// The unscoped legacy read is ambiguous on this grant…
	if got := e.c.call("fetch", map[string]any{"id": "messages:" + demodata.SharedRecordID}).errorCode(t); got != "ambiguous_connection" {
		t.Fatalf("legacy id on a two-connection grant: %q", got)
	}
	// …but the id printed by search is self-contained.
	r := e.c.call("search", map[string]any{"q": "offsite agenda"})
	m := firstFetchIDRe.FindStringSubmatch(r.text())
	if m == nil {
		t.Fatalf("no first_fetch_id in text:\n%s", r.text())
	}
	f := e.c.call("fetch", map[string]any{"id": m[1]})
	if f.IsError {
		t.Fatalf("fetch(%s): %s", m[1], f.text())
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(f.text()), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["id"] != m[1] {
		t.Errorf("document id %v does not echo %s", doc["id"], m[1])
	}
}

func TestFetchDocumentContract(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken)
	id := demodata.GmailWorkConnectionID + "/message_bodies:" + demodata.LongBodyMessageID
	r := e.c.call("fetch", map[string]any{"id": id})
	if r.IsError {
		t.Fatal(r.text())
	}
	var text, structured map[string]any
	if err := json.Unmarshal([]byte(r.text()), &text); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(r.StructuredContent, &structured); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(text, structured); diff != "" {
		t.Errorf("content[0].text and structuredContent differ (-text +structured):\n%s", diff)
	}
	var keys []string
	for k := range structured {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if strings.Join(keys, ",") != "id,metadata,text,title,url" {
		t.Errorf("document keys = %v", keys)
	}
	meta := structured["metadata"].(map[string]any)
	for _, k := range []string{"connection_id", "connector_key", "stream", "record_id"} {
		if meta[k] == nil || meta[k] == "" {
			t.Errorf("metadata lacks %s", k)
		}
	}
	if n := len([]rune(text["text"].(string))); n > 4400 {
		t.Errorf("text is %d chars; it must be bounded", n)
	}
	// The continuation is usable from the document alone.
	next, _ := meta["next_read"].(string)
	argsJSON := strings.TrimPrefix(next, "read_record_field ")
	var args map[string]any
	if err := json.Unmarshal([]byte(argsJSON), &args); err != nil {
		t.Fatalf("next_read %q: %v", next, err)
	}
	w := e.c.call("read_record_field", args)
	if w.IsError {
		t.Fatalf("continuation failed: %s", w.text())
	}
	shown := strings.TrimSuffix(strings.SplitN(text["text"].(string), "\n[text cut", 2)[0], page.Ellipsis)
	next1 := w.text()[strings.Index(w.text(), "\n")+1:]
	// Reading from 0 across the boundary must equal shown text + continuation.
	whole := e.c.call("read_record_field", map[string]any{"id": id, "field_path": "body_text", "offset_chars": 0, "limit_chars": len([]rune(shown)) + 64})
	wholeText := whole.text()[strings.Index(whole.text(), "\n")+1:]
	if want := shown + string([]rune(next1)[:64]); wholeText != want {
		t.Errorf("document text + continuation is not contiguous with the field")
	}
}

func TestFetchProjectionLeaksNothing(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string]testenv.Options{"honest RS": {}, "RS ignoring fields": {Raw: ignoreFields}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, opts, demodata.GmailToken)
			id := demodata.GmailWorkConnectionID + "/message_bodies:" + demodata.LongBodyMessageID
			r := e.c.call("fetch", map[string]any{"id": id, "fields": []string{"id", "message_received_at"}})
			if r.IsError {
				t.Fatal(r.text())
			}
			for _, leak := range []string{demodata.LongBodyTerm, "body_text", "Hi Jordan", "body_source"} {
				if strings.Contains(r.text(), leak) || strings.Contains(string(r.StructuredContent), leak) {
					t.Errorf("unrequested %q leaked: %.300s", leak, r.text())
				}
			}
		})
	}
}

func TestRecordIDsRejectedBeforeRS(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken)
	for _, id := range []string{"", "noseparator", "orders:", ":o1", "cin_aaa/orders:../../etc/passwd", "../cin_aaa/orders:o1",
		"cin_aaa/", "/orders:o1", "cin_aaa/orders", "cin_aaa/extra/orders:o1", "orders:../../etc/passwd", "   ", "pdpp://record/%zz"} {
		before := e.rs.RSCalls()
		r := e.c.call("fetch", map[string]any{"id": id})
		if !r.IsError {
			t.Errorf("%q accepted", id)
		}
		if n := e.rs.RSCalls() - before; n != 0 {
			t.Errorf("%q cost %d RS calls", id, n)
		}
	}
	if got := e.c.call("fetch", map[string]any{"id": demodata.GmailWorkConnectionID + "/messages:x", "connection_id": demodata.GmailPersonalConnectionID}).errorCode(t); got != "conflicting_connection_id" {
		t.Errorf("conflict: %q", got)
	}
}

func TestSearchNeverSendsForeignStreamNames(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, threeGrants...)
	e.c.call("schema", map[string]any{})
	e.rs.Server.ResetRequests()
	decodeSearch(t, e.c.call("search", map[string]any{"q": "invoice", "streams": []string{"message_bodies", "conversations"}}))
	got := map[string][]string{}
	for _, req := range e.rs.Server.Requests() {
		if req.Path != "/v1/search" {
			continue
		}
		q, _ := url.ParseQuery(req.RawQuery)
		got[req.Bearer] = append(got[req.Bearer], q["streams"]...)
	}
	want := map[string][]string{
		demodata.GmailToken:   {"message_bodies"},
		demodata.ChatGPTToken: {"conversations"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("streams sent per grant (-want +got):\n%s", diff)
	}
}
