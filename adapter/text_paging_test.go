package adapter_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// rsRecordIDs is the ground truth: every record id of a stream, read from
// the mock RS's REST API directly (never through the adapter).
func rsRecordIDs(t *testing.T, rsURL, token, stream, connectionID string) []string {
	t.Helper()
	var ids []string
	cursor := ""
	for range 100 {
		q := url.Values{"limit": {"100"}, "connection_id": {connectionID}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		req, _ := http.NewRequest(http.MethodGet, rsURL+"/v1/streams/"+stream+"/records?"+q.Encode(), nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var page struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
			NextCursor string `json:"next_cursor"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		_ = resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("RS %d: %v", resp.StatusCode, err)
		}
		for _, r := range page.Data {
			ids = append(ids, connectionID+"/"+stream+":"+r.ID)
		}
		if page.NextCursor == "" {
			return ids
		}
		cursor = page.NextCursor
	}
	t.Fatal("RS paging did not end")
	return nil
}

// pageByText follows next_cursor read from content[] text alone, collecting
// the record ids the text lines show.
func pageByText(t *testing.T, c *client, args map[string]any) (ids []string, pages int) {
	t.Helper()
	for pages = 1; pages <= 100; pages++ {
		r := c.call("query_records", args)
		if r.IsError {
			t.Fatalf("page %d: %s", pages, r.text())
		}
		for _, m := range recordLineIDRe.FindAllStringSubmatch(r.text(), -1) {
			ids = append(ids, m[1])
		}
		if budget := 2000 + 300*len(recordLineIDRe.FindAllString(r.text(), -1)); len(r.text()) > budget {
			t.Errorf("page %d: text %d B > %d", pages, len(r.text()), budget)
		}
		m := nextCursorRe.FindStringSubmatch(r.text())
		if m == nil {
			if strings.Contains(r.text(), "has_more=true") {
				t.Fatalf("has_more without a cursor in text: %s", r.text())
			}
			return ids, pages
		}
		args["cursor"] = m[1]
	}
	t.Fatal("paging did not finish in 100 pages")
	return nil, 0
}

// Paging by the cursor printed in the text visits every record of the
// stream exactly once — the page text never holds back a record its
// cursor skips — for whole and projected records and any page size.
func TestTextPagingVisitsEveryRecordOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken)
	for _, tc := range []struct {
		name, stream string
		limit        int
		fields       []string
	}{
		{"messages default page", "messages", 0, nil},
		{"messages limit 100", "messages", 100, nil},
		{"long bodies limit 7", "message_bodies", 7, nil},
		{"projected limit 100", "messages", 100, []string{"id", "subject"}},
		{"projected bodies", "message_bodies", 40, []string{"id", "body_text"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			want := rsRecordIDs(t, e.rs.URL, demodata.GmailToken, tc.stream, demodata.GmailWorkConnectionID)
			args := map[string]any{"stream": tc.stream, "connection_id": demodata.GmailWorkConnectionID}
			if tc.limit > 0 {
				args["limit"] = tc.limit
			}
			if tc.fields != nil {
				args["fields"] = tc.fields
			}
			got, pages := pageByText(t, e.c, args)
			t.Logf("%d records in %d pages", len(got), pages)
			sort.Strings(got)
			sort.Strings(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("records seen by text paging differ from the RS (-rs +text):\n%s", diff)
			}
		})
	}
}

// rsSearchIDs is the ground truth of a search: every hit id the mock RS
// returns over REST for one grant, following its own cursor.
func rsSearchIDs(t *testing.T, rsURL, token, q string) []string {
	t.Helper()
	var ids []string
	cursor := ""
	for range 100 {
		v := url.Values{"q": {q}, "limit": {"100"}}
		if cursor != "" {
			v.Set("cursor", cursor)
		}
		req, _ := http.NewRequest(http.MethodGet, rsURL+"/v1/search?"+v.Encode(), nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var page struct {
			Data []struct {
				ConnectionID string `json:"connection_id"`
				Stream       string `json:"stream"`
				RecordKey    string `json:"record_key"`
			} `json:"data"`
			NextCursor string `json:"next_cursor"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		_ = resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("RS %d: %v", resp.StatusCode, err)
		}
		for _, h := range page.Data {
			ids = append(ids, h.ConnectionID+"/"+h.Stream+":"+h.RecordKey)
		}
		if page.NextCursor == "" {
			return ids
		}
		cursor = page.NextCursor
	}
	t.Fatal("RS search paging did not end")
	return nil
}

var hitLineIDRe = regexp.MustCompile(`(?m)^\d+\. (\S+) "`)

// Paging a merged multi-grant search by the cursor printed in the text —
// changing limit between pages, with the query alias — visits exactly the
// hits the RS has for each grant, once each.
func TestTextSearchPagingVisitsEveryHitOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, threeGrants...)
	var want []string
	for _, tok := range threeGrants {
		want = append(want, rsSearchIDs(t, e.rs.URL, tok, "roadmap")...)
	}
	limits := []int{3, 10, 1, 25, 7}
	args := map[string]any{"query": "roadmap"}
	var got []string
	for page := 0; ; page++ {
		if page == 200 {
			t.Fatal("search paging did not end")
		}
		args["limit"] = limits[page%len(limits)]
		r := e.c.call("search", args)
		if r.IsError {
			t.Fatalf("page %d: %s", page, r.text())
		}
		ids := hitLineIDRe.FindAllStringSubmatch(r.text(), -1)
		if len(ids) > limits[page%len(limits)] {
			t.Fatalf("page %d: %d hits over limit", page, len(ids))
		}
		if budget := 2000 + 250*len(ids); len(r.text()) > budget {
			t.Errorf("page %d: text %d B > %d", page, len(r.text()), budget)
		}
		for _, m := range ids {
			got = append(got, m[1])
		}
		m := nextCursorRe.FindStringSubmatch(r.text())
		if m == nil {
			break
		}
		args["cursor"] = m[1]
	}
	sort.Strings(got)
	sort.Strings(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hits seen by text paging differ from the RS (-rs +text):\n%s", diff)
	}
	t.Logf("%d hits", len(got))
}

// q and query are one argument under two names: exactly one is accepted.
func TestSearchQueryAlias(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.SlackToken)
	byQ := e.c.call("search", map[string]any{"q": "invoice", "limit": 5})
	byQuery := e.c.call("search", map[string]any{"query": "invoice", "limit": 5})
	if byQ.IsError || byQuery.IsError {
		t.Fatalf("q: %s\nquery: %s", byQ.text(), byQuery.text())
	}
	if diff := cmp.Diff(byQ.text(), byQuery.text()); diff != "" {
		t.Errorf("query is not an alias of q:\n%s", diff)
	}
	for name, args := range map[string]map[string]any{
		"both":    {"q": "invoice", "query": "invoice"},
		"neither": {"limit": 5},
		"blank":   {"query": "   "},
	} {
		r := e.c.call("search", args)
		if got := r.errorCode(t); got != "invalid_request" && got != "invalid_arguments" {
			t.Errorf("%s: code %q", name, got)
		}
		if !strings.Contains(r.text(), "query") {
			t.Errorf("%s: the error does not name query: %s", name, r.text())
		}
	}
}
