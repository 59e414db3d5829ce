package adapter_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// rsSlackMessages is the RS's first page (limit 100) of Slack messages:
// who, when and what of each, keyed by fetch id.
func rsSlackMessages(t *testing.T, rsURL string) map[string][3]string {
	t.Helper()
	q := url.Values{"limit": {"100"}, "connection_id": {demodata.SlackConnectionID}}
	req, _ := http.NewRequest(http.MethodGet, rsURL+"/v1/streams/messages/records?"+q.Encode(), nil)
	req.Header.Set("Authorization", "Bearer "+demodata.SlackToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var page struct {
		Data []struct {
			ID   string `json:"id"`
			Data struct {
				UserID string `json:"user_id"`
				SentAt string `json:"sent_at"`
				Text   string `json:"text"`
			} `json:"data"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("RS %d: %v", resp.StatusCode, err)
	}
	out := map[string][3]string{}
	for _, r := range page.Data {
		out[demodata.SlackConnectionID+"/messages:"+r.ID] = [3]string{r.Data.UserID, r.Data.SentAt, r.Data.Text}
	}
	return out
}

// A limit-100 Slack page (61 messages) without fields passes the result ceiling: it
// shows the messages that fit with who (user_id), when (sent_at) and what
// (text) whole — identifiers such as team_id and client_msg_id are the
// first to go — within the ceiling in both channels, says how many it
// left, and its cursor reads on through every message exactly once.
func TestSlackPageShowsWhoWhenWhatWhole(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.SlackToken)
	want := rsSlackMessages(t, e.rs.URL)
	if len(want) < 50 {
		t.Fatalf("the demo RS has %d Slack messages on its first page; the test needs a page the ceiling cuts", len(want))
	}
	args := map[string]any{"stream": "messages", "connection_id": demodata.SlackConnectionID, "limit": 100}
	seen := map[string]bool{}
	for page := 1; ; page++ {
		r := e.c.call("query_records", args)
		if r.IsError {
			t.Fatalf("page %d: %s", page, r.text())
		}
		if len(r.text()) > adapter.DefaultMaxResultBytes || len(hostJSON(t, r.StructuredContent)) > adapter.DefaultMaxResultBytes {
			t.Fatalf("page %d: text %d B, structuredContent %d B: over the %d B ceiling",
				page, len(r.text()), len(hostJSON(t, r.StructuredContent)), adapter.DefaultMaxResultBytes)
		}
		var sc struct {
			HasMore    bool                `json:"has_more"`
			NextCursor string              `json:"next_cursor"`
			Records    [][]json.RawMessage `json:"records"`
		}
		if err := json.Unmarshal(r.StructuredContent, &sc); err != nil {
			t.Fatal(err)
		}
		if page == 1 {
			if len(sc.Records) >= len(want) || !sc.HasMore || !strings.Contains(r.text(), "more records of this RS page did not fit this result") {
				t.Fatalf("page 1 shows %d of %d messages, has_more=%t, and does not say it left some:\n%.600s", len(sc.Records), len(want), sc.HasMore, r.text())
			}
			t.Logf("page 1: %d of %d messages, text %d B", len(sc.Records), len(want), len(r.text()))
		}
		for _, rec := range sc.Records {
			var id string
			_ = json.Unmarshal(rec[0], &id)
			if seen[id] {
				t.Fatalf("page %d: %s shown twice", page, id)
			}
			seen[id] = true
			w, ok := want[id]
			if !ok {
				continue // past the RS's first 100
			}
			var data map[string]any
			if err := json.Unmarshal(rec[1], &data); err != nil {
				t.Fatalf("%s: fields %s: %v", id, rec[1], err)
			}
			if data["user_id"] != w[0] || data["sent_at"] != w[1] {
				t.Errorf("%s: who/when %v %v, want %q %q", id, data["user_id"], data["sent_at"], w[0], w[1])
			}
			text, _ := data["text"].(string)
			if utf8.RuneCountInString(w[2]) <= 400 && text != w[2] {
				t.Errorf("%s: text %q, want it whole: %q", id, text, w[2])
			}
			for _, ident := range []string{"team_id", "client_msg_id"} {
				if _, shown := data[ident]; shown && strings.Contains(string(rec[1]), "…") {
					t.Errorf("%s: %s shown while the record is cut: %s", id, ident, rec[1])
				}
			}
		}
		if sc.NextCursor == "" {
			break
		}
		if page > 50 {
			t.Fatal("paging did not end")
		}
		args = map[string]any{"stream": "messages", "connection_id": demodata.SlackConnectionID, "cursor": sc.NextCursor}
	}
	for id := range want {
		if !seen[id] {
			t.Errorf("%s never shown", id)
		}
	}
}

// A body whose characters take several bytes each in JSON (emoji, quotes,
// line breaks) read whole through fetch and then read_record_field
// windows, as a model continues it: every result stays within the
// ceiling in both channels, each continuation starts exactly where the
// last result stopped, the body comes back exactly, and the last window
// says it is complete.
func TestFetchAndWindowsStayWithinTheCeiling(t *testing.T) {
	t.Parallel()
	body := strings.Repeat("😀😀😀😀😀\"é\n", 3000) // 24,000 chars, 3.5 bytes each as JSON
	e := newEnv(t, testenv.Options{Dataset: datasetWithBodies(t, map[string]string{"wide": body})}, demodata.GmailToken)
	id := demodata.GmailWorkConnectionID + "/message_bodies:wide"
	within := func(what string, r toolResult) {
		t.Helper()
		if r.IsError {
			t.Fatalf("%s: %s", what, r.text())
		}
		if n, m := len(r.text()), len(hostJSON(t, r.StructuredContent)); n > adapter.DefaultMaxResultBytes || m > adapter.DefaultMaxResultBytes {
			t.Fatalf("%s: text %d B, structuredContent %d B: over the %d B ceiling", what, n, m, adapter.DefaultMaxResultBytes)
		}
	}
	f := e.c.call("fetch", map[string]any{"id": id, "fields": []string{"body_text"}})
	within("fetch", f)
	var doc struct {
		Text     string `json:"text"`
		Metadata struct {
			NextRead string `json:"next_read"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(f.StructuredContent, &doc); err != nil {
		t.Fatal(err)
	}
	_, next, ok := strings.Cut(doc.Metadata.NextRead, "read_record_field ")
	if !ok {
		t.Fatalf("fetch of a %d-char body names no next read: %.300s", utf8.RuneCountInString(body), f.text())
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(next), &args); err != nil {
		t.Fatalf("next_read %q: %v", doc.Metadata.NextRead, err)
	}
	shown := int(args["offset_chars"].(float64))
	if !strings.HasPrefix(doc.Text, string([]rune(body)[:shown])) || shown >= 4095 {
		t.Fatalf("fetch text is not the body's first %d chars, cut shorter than 4,095 to fit: %q", shown, doc.Text[:80])
	}
	got := string([]rune(body)[:shown])
	windows := 0
	for {
		windows++
		if windows > 40 {
			t.Fatal("windows do not end")
		}
		w := e.c.call("read_record_field", args)
		within(fmt.Sprintf("window %d", windows), w)
		var page struct {
			Text     string `json:"text"`
			Complete bool   `json:"complete"`
			Next     *struct {
				Args map[string]any `json:"args"`
			} `json:"next"`
		}
		if err := json.Unmarshal(w.StructuredContent, &page); err != nil {
			t.Fatal(err)
		}
		got += page.Text
		if page.Next == nil {
			if !page.Complete {
				t.Errorf("the last window says complete=false with no next call")
			}
			break
		}
		args = page.Next.Args
	}
	if got != body {
		t.Fatalf("fetch and %d windows rebuild %d chars, want the %d-char body exactly", windows, utf8.RuneCountInString(got), utf8.RuneCountInString(body))
	}
	t.Logf("fetch showed %d chars; %d windows", shown, windows)
}

// The last window of a body that took several windows has no next call
// and says complete: nothing of the field is left to read.
func TestLastWindowSaysComplete(t *testing.T) {
	t.Parallel()
	body := strings.Repeat("plain words of a long body. ", 400) // 11,200 chars
	e := newEnv(t, testenv.Options{Dataset: datasetWithBodies(t, map[string]string{"long": body})}, demodata.GmailToken)
	args := map[string]any{"id": demodata.GmailWorkConnectionID + "/message_bodies:long", "field_path": "body_text"}
	for step := 1; step < 10; step++ {
		var w struct {
			Complete bool `json:"complete"`
			Next     *struct {
				Args map[string]any `json:"args"`
			} `json:"next"`
		}
		r := e.c.call("read_record_field", args)
		if err := json.Unmarshal(r.StructuredContent, &w); err != nil || r.IsError {
			t.Fatalf("window %d: %v %s", step, err, r.text())
		}
		if !strings.Contains(r.text(), fmt.Sprintf(`"complete":%t`, w.Complete)) {
			t.Fatalf("window %d: text and structuredContent disagree on complete", step)
		}
		if w.Next == nil {
			if step == 1 || !w.Complete {
				t.Fatalf("window %d is the last (no next call) and says complete=%t", step, w.Complete)
			}
			return
		}
		if w.Complete {
			t.Fatalf("window %d says complete with a next call", step)
		}
		args = w.Next.Args
	}
	t.Fatal("windows do not end")
}

// Several cached grants hold `messages` (stdio with a Gmail and a Slack
// grant): the refusal's next_steps hold one call per listed source, the
// very call made with that source's connection_id, and each of them reads.
func TestAmbiguousStreamStepsPickASource(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken, demodata.SlackToken)
	r := e.c.call("query_records", map[string]any{"stream": "messages", "limit": 3})
	if code := r.errorCode(t); code != "ambiguous_connection" {
		t.Fatalf("code %q: %s", code, r.text())
	}
	var body struct {
		Error struct {
			Available []struct {
				ConnectionID string `json:"connection_id"`
			} `json:"available_connections"`
		} `json:"error"`
		NextSteps []string `json:"next_steps"`
	}
	if err := json.Unmarshal([]byte(r.text()), &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Error.Available) < 2 || len(body.NextSteps) != len(body.Error.Available) {
		t.Fatalf("%d sources listed, %d next steps: %s", len(body.Error.Available), len(body.NextSteps), r.text())
	}
	for i, step := range body.NextSteps {
		_, call, ok := strings.Cut(step, ": query_records ")
		var args map[string]any
		if !ok || json.Unmarshal([]byte(call), &args) != nil {
			t.Fatalf("step %q is no query_records call", step)
		}
		if args["connection_id"] != body.Error.Available[i].ConnectionID || args["limit"] != float64(3) {
			t.Errorf("step %q: want the same call with connection_id %s", step, body.Error.Available[i].ConnectionID)
		}
		if res := e.c.call("query_records", args); res.IsError {
			t.Errorf("step %q fails: %s", step, res.text())
		}
	}
}

// A changes feed read at limit 100 passes the ceiling on its first page:
// the page holds records back, its cursor resumes the same feed past them,
// next_changes_since appears only on the last page, and every record of
// the feed is read exactly once.
func TestHeldChangesPageContinuesTheFeed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.SlackToken)
	want := rsSlackMessages(t, e.rs.URL)
	args := map[string]any{"stream": "messages", "connection_id": demodata.SlackConnectionID, "limit": 100, "changes_since": "beginning"}
	seen := map[string]bool{}
	held := false
	for page := 1; page < 20; page++ {
		r := e.c.call("query_records", args)
		if r.IsError {
			t.Fatalf("page %d: %s", page, r.text())
		}
		var sc struct {
			HasMore          bool                `json:"has_more"`
			NextCursor       string              `json:"next_cursor"`
			NextChangesSince string              `json:"next_changes_since"`
			Records          [][]json.RawMessage `json:"records"`
		}
		if err := json.Unmarshal(r.StructuredContent, &sc); err != nil {
			t.Fatal(err)
		}
		held = held || strings.Contains(r.text(), "did not fit this result")
		for _, rec := range sc.Records {
			var id string
			_ = json.Unmarshal(rec[0], &id)
			if seen[id] {
				t.Fatalf("page %d: %s read twice", page, id)
			}
			seen[id] = true
		}
		if sc.NextCursor == "" {
			if sc.NextChangesSince == "" {
				t.Errorf("the feed's last page has no next_changes_since bookmark")
			}
			if !held {
				t.Error("no page held records back: the test needs a page past the ceiling")
			}
			for id := range want {
				if !seen[id] {
					t.Errorf("%s never read", id)
				}
			}
			return
		}
		if sc.NextChangesSince != "" {
			t.Errorf("page %d: next_changes_since before the feed's last page", page)
		}
		args = map[string]any{"stream": "messages", "connection_id": demodata.SlackConnectionID, "cursor": sc.NextCursor}
	}
	t.Fatal("the feed did not end")
}

// A fan-in page (two Gmail connections merged by the RS, limit 100 each)
// passes the ceiling: its cursor reads the same merged page again past
// the records shown, so paging reaches every message of both connections
// exactly once; a different limit beside that cursor is refused, since it
// would be another page.
func TestHeldFanInPageReadsEveryRecordOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken)
	want := map[string]bool{}
	for _, conn := range []string{demodata.GmailWorkConnectionID, demodata.GmailPersonalConnectionID} {
		for _, id := range rsRecordIDs(t, e.rs.URL, demodata.GmailToken, "messages", conn) {
			want[id] = true
		}
	}
	args := map[string]any{"stream": "messages", "limit": 100}
	seen := map[string]bool{}
	for page := 1; page < 20; page++ {
		r := e.c.call("query_records", args)
		if r.IsError {
			t.Fatalf("page %d: %s", page, r.text())
		}
		var sc struct {
			NextCursor string              `json:"next_cursor"`
			Records    [][]json.RawMessage `json:"records"`
		}
		if err := json.Unmarshal(r.StructuredContent, &sc); err != nil {
			t.Fatal(err)
		}
		for _, rec := range sc.Records {
			var id string
			_ = json.Unmarshal(rec[0], &id)
			if seen[id] {
				t.Fatalf("page %d: %s read twice", page, id)
			}
			seen[id] = true
		}
		if sc.NextCursor == "" {
			if page == 1 {
				t.Fatal("the fan-in page held nothing back: the test needs a page past the ceiling")
			}
			break
		}
		if page == 1 {
			other := e.c.call("query_records", map[string]any{"stream": "messages", "cursor": sc.NextCursor, "limit": 50})
			if code := other.errorCode(t); code != "invalid_cursor" || !strings.Contains(other.text(), `"param":"limit"`) {
				t.Errorf("another limit beside a resuming cursor: %s", other.text())
			}
		}
		args = map[string]any{"stream": "messages", "cursor": sc.NextCursor}
	}
	if len(seen) != len(want) || len(want) < 50 {
		t.Fatalf("paging read %d records; the two connections hold %d", len(seen), len(want))
	}
	for id := range want {
		if !seen[id] {
			t.Errorf("%s never read", id)
		}
	}
}
