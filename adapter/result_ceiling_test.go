package adapter_test

import (
	"encoding/json"
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
