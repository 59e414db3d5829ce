package adapter_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

var (
	nextCursorRe   = regexp.MustCompile(`next_cursor=(\S+)`)
	nextChangesRe  = regexp.MustCompile(`next_changes_since=(\S+)`)
	countRe        = regexp.MustCompile(`count=exact:(\d+)`)
	recordLineIDRe = regexp.MustCompile(`(?m)^\d+\. (\S+) `)
)

// pageAll follows next_cursor read from content[] text alone and returns
// every record id seen.
func pageAll(t *testing.T, c *client, args map[string]any) []string {
	t.Helper()
	var ids []string
	for page := 0; page < 50; page++ {
		r := c.call("query_records", args)
		if r.IsError {
			t.Fatalf("page %d: %s", page, r.text())
		}
		var sc pageJSON
		if err := json.Unmarshal(r.StructuredContent, &sc); err != nil {
			t.Fatal(err)
		}
		for _, rec := range sc.Records {
			ids = append(ids, rec.ID)
		}
		m := nextCursorRe.FindStringSubmatch(r.text())
		if m == nil {
			if strings.Contains(r.text(), "has_more=true") {
				t.Fatalf("has_more without a cursor in text: %s", r.text())
			}
			return ids
		}
		args["cursor"] = m[1]
	}
	t.Fatal("paging did not finish in 50 pages")
	return nil
}

func TestQueryRecordsPagesByTextCursor(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.SlackToken)
	ids := pageAll(t, e.c, map[string]any{"stream": "messages", "limit": 7})
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Errorf("record %s seen twice", id)
		}
		seen[id] = true
	}
	agg := e.c.call("aggregate", map[string]any{"stream": "messages", "metric": "count"})
	m := regexp.MustCompile(`= (\d+) over`).FindStringSubmatch(agg.text())
	if m == nil {
		t.Fatalf("aggregate text: %s", agg.text())
	}
	if want := m[1]; want != strconv.Itoa(len(ids)) {
		t.Errorf("paged %d records; aggregate count says %s", len(ids), want)
	}
}

func TestQueryRecordsTextCarriesCountAndChanges(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken)
	r := e.c.call("query_records", map[string]any{"stream": "messages", "count": "exact", "limit": 3, "connection_id": demodata.GmailWorkConnectionID})
	if r.IsError {
		t.Fatal(r.text())
	}
	if !countRe.MatchString(r.text()) || !nextCursorRe.MatchString(r.text()) {
		t.Errorf("text lacks count or next_cursor:\n%s", r.text())
	}
	for _, id := range recordLineIDRe.FindAllStringSubmatch(r.text(), -1) {
		if !strings.HasPrefix(id[1], demodata.GmailWorkConnectionID+"/messages:") {
			t.Errorf("record line id %q is not a self-contained fetch handle", id[1])
		}
	}
	ch := e.c.call("query_records", map[string]any{"stream": "labels", "changes_since": "beginning", "connection_id": demodata.GmailWorkConnectionID, "limit": 100})
	if ch.IsError {
		t.Fatal(ch.text())
	}
	if !nextChangesRe.MatchString(ch.text()) {
		t.Errorf("changes page lacks next_changes_since:\n%s", ch.text())
	}
}

func TestQueryRecordsFanInSaysHowToPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken)
	r := e.c.call("query_records", map[string]any{"stream": "messages", "limit": 5})
	if r.IsError {
		t.Fatal(r.text())
	}
	containsAll(t, r.text(), "partial_results", "connection_id="+demodata.GmailPersonalConnectionID, demodata.GmailWorkConnectionID)
	if nextCursorRe.MatchString(r.text()) {
		t.Errorf("fan-in page must not invent a cursor:\n%s", r.text())
	}
}

// The RS applies limit per connection on a fan-in page (D10:
// asked 2, got 4). The header line and the structured page say so, for
// no limit too (the RS's default), and the paging instruction, followed
// as written, pages each connection.
func TestQueryRecordsFanInReportsPerConnectionLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken)
	for _, tc := range []struct {
		args map[string]any
		want int
	}{
		{map[string]any{"stream": "messages", "limit": 2}, 2},
		{map[string]any{"stream": "messages"}, 25},
	} {
		r := e.c.call("query_records", tc.args)
		if r.IsError {
			t.Fatal(r.text())
		}
		header, _, _ := strings.Cut(r.text(), "\n")
		if want := fmt.Sprintf(" limit_per_connection=%d", tc.want); !strings.HasSuffix(header, want) {
			t.Errorf("header %q does not end in %q", header, want)
		}
		var page struct {
			RecordsShown       int      `json:"records_shown"`
			LimitPerConnection int      `json:"limit_per_connection"`
			Warnings           []string `json:"warnings"`
		}
		if err := json.Unmarshal(r.StructuredContent, &page); err != nil {
			t.Fatal(err)
		}
		if page.LimitPerConnection != tc.want || page.RecordsShown <= tc.want {
			t.Errorf("structured: limit_per_connection %d, records %d; want %d and more records than that", page.LimitPerConnection, page.RecordsShown, tc.want)
		}
		if tc.want != 2 {
			continue
		}
		// Follow the warning: repeat the call with each connection_id,
		// then page with the cursor beside the same connection_id.
		conns := regexp.MustCompile(`connection_id=(cin_[0-9a-f]+)`).FindAllStringSubmatch(strings.Join(page.Warnings, " "), -1)
		if len(conns) != 2 {
			t.Fatalf("warning names %d connections: %q", len(conns), page.Warnings)
		}
		for _, c := range conns {
			args := map[string]any{"stream": "messages", "limit": 2, "connection_id": c[1]}
			first := e.c.call("query_records", args)
			m := nextCursorRe.FindStringSubmatch(first.text())
			if first.IsError || m == nil || strings.Contains(first.text(), "limit_per_connection") {
				t.Fatalf("connection page: %s", first.text())
			}
			args["cursor"] = m[1]
			if next := e.c.call("query_records", args); next.IsError || !strings.Contains(next.text(), "records=2") {
				t.Errorf("second page of %s: %s", c[1], next.text())
			}
		}
	}
}

// ignoreFields makes the RS ignore `fields`, as a lax RS might.
func ignoreFields(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		q.Del("fields")
		r.URL.RawQuery = q.Encode()
		next.ServeHTTP(w, r)
	})
}

func TestQueryRecordsProjectionLeaksNothing(t *testing.T) {
	t.Parallel()
	full := newEnv(t, testenv.Options{}, demodata.GmailToken)
	lax := newEnv(t, testenv.Options{Raw: ignoreFields}, demodata.GmailToken)
	args := func(fields []string) map[string]any {
		a := map[string]any{"stream": "messages", "limit": 10, "connection_id": demodata.GmailWorkConnectionID}
		if fields != nil {
			a["fields"] = fields
		}
		return a
	}
	all := full.c.call("query_records", args(nil))
	var sc pageJSON
	if err := json.Unmarshal(all.StructuredContent, &sc); err != nil {
		t.Fatal(err)
	}
	// Values of unrequested fields that are distinctive enough to grep for.
	var secrets []string
	for _, rec := range sc.Records {
		for _, k := range []string{"subject", "snippet", "from_email"} {
			if s, ok := rec.Data[k].(string); ok && len(s) > 12 {
				secrets = append(secrets, strings.TrimSuffix(s, "…"))
			}
		}
	}
	if len(secrets) == 0 {
		t.Fatal("fixture has no distinctive values to check")
	}
	for name, e := range map[string]*env{"honest RS": full, "RS ignoring fields": lax} {
		r := e.c.call("query_records", args([]string{"id", "received_at"}))
		if r.IsError {
			t.Fatalf("%s: %s", name, r.text())
		}
		whole := r.text() + string(r.StructuredContent)
		for _, s := range secrets {
			if strings.Contains(whole, jsonEscape(s)) || strings.Contains(whole, s) {
				t.Errorf("%s: unrequested value %q leaked", name, s)
			}
		}
		if strings.Contains(whole, `"subject"`) || strings.Contains(whole, `"snippet"`) {
			t.Errorf("%s: unrequested keys present", name)
		}
	}
}

func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return strings.Trim(string(b), `"`)
}

func TestQueryRecordsRejectsBadInputWithoutRSCalls(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.SlackToken)
	for name, args := range map[string]map[string]any{
		"limit over 100":  {"stream": "messages", "limit": 500},
		"string filter":   {"stream": "messages", "filter": "filter[user_id]=U1"},
		"bracket field":   {"stream": "messages", "filter": map[string]any{"filter[user_id]": "U1"}},
		"empty filter":    {"stream": "messages", "filter": map[string]any{}},
		"unknown op":      {"stream": "messages", "filter": map[string]any{"ts": map[string]any{"between": 1}}},
		"unknown arg":     {"stream": "messages", "bogus": 1},
		"traversal":       {"stream": "../v1/schema"},
		"bad count":       {"stream": "messages", "count": "lots"},
		"connector alias": {"stream": "messages", "connector_instance_id": "cin_x"},
	} {
		t.Run(name, func(t *testing.T) {
			before := e.rs.RSCalls()
			r := e.c.call("query_records", args)
			if !r.IsError {
				t.Fatalf("accepted: %s", r.text())
			}
			if n := e.rs.RSCalls() - before; n != 0 {
				t.Errorf("%d RS calls; want 0", n)
			}
		})
	}
}

func TestRSErrorsKeepEnvelopeAndStatus(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.SlackToken)
	r := e.c.call("query_records", map[string]any{"stream": "messages", "sort": "text"})
	var env struct {
		Error struct {
			Code      string `json:"code"`
			RequestID string `json:"request_id"`
		} `json:"error"`
		HTTPStatus int `json:"http_status"`
	}
	if err := json.Unmarshal([]byte(r.text()), &env); err != nil {
		t.Fatal(err)
	}
	if !r.IsError || env.Error.Code != "invalid_sort" || env.HTTPStatus != 400 || env.Error.RequestID == "" {
		t.Errorf("RS 400 not kept: %s", r.text())
	}
	if string(r.StructuredContent) != r.text() {
		t.Errorf("structuredContent differs from text:\n%s\n%s", r.StructuredContent, r.text())
	}
	filtered := e.c.call("query_records", map[string]any{"stream": "messages", "filter": map[string]any{"user_id": "U1"}})
	if got := filtered.errorCode(t); got != "invalid_request" {
		t.Errorf("client filter: code %q (the RS rejects client filters)", got)
	}
}

// An RS that answers /v1/schema with something that is not a schema gets a
// typed invalid_response, not an internal error.
func TestUnreadableSchemaIsTypedError(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Request-Id", "req_0000000000000003")
		_, _ = w.Write([]byte(`{"object":"list","data":[],"links":{"self":"/v1/schema"},"meta":{"count":{"kind":"none"},"warnings":[]}}`))
	}))
	t.Cleanup(srv.Close)
	c := newClient(t, newAdapterFor(t, srv.URL, "tok"))
	if got := c.call("schema", map[string]any{}).errorCode(t); got != "invalid_response" {
		t.Errorf("code %q", got)
	}
}
