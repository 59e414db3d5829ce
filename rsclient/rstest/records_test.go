package rstest

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// pageAll follows next_cursor and returns the ids in order.
func pageAll(t *testing.T, base, path, tok string) []string {
	t.Helper()
	var ids []string
	next := path
	for i := 0; i < 100 && next != ""; i++ {
		r := get(t, base, next, tok)
		if r.status != 200 {
			t.Fatalf("%s: %d %s", next, r.status, r.raw)
		}
		for _, d := range r.body["data"].([]any) {
			ids = append(ids, d.(map[string]any)["id"].(string))
		}
		next = ""
		if r.body["has_more"] == true {
			cur, _ := r.body["next_cursor"].(string)
			if cur == "" || at(r.body, "links", "next") == nil {
				t.Fatalf("has_more without cursor/links.next: %s", r.raw)
			}
			next = path + "&cursor=" + url.QueryEscape(cur)
		}
	}
	return ids
}

func TestRecordsPagingVisitsEveryRecordOnce(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, testDataset(), Options{})
	for _, tc := range []struct{ name, q string }{
		{"default desc", ""}, {"asc", "&order=asc"}, {"sort asc", "&sort=received_at"}, {"sort desc", "&sort=-received_at"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ids := pageAll(t, ts.URL, "/v1/streams/messages/records?limit=7&connection_id="+connA+tc.q, gmailTok)
			seen := map[string]int{}
			for _, id := range ids {
				seen[id]++
			}
			if len(ids) != 30 || len(seen) != 30 {
				t.Fatalf("visited %d records (%d distinct), want 30", len(ids), len(seen))
			}
			// Nulls come last in both directions.
			if tail := ids[28:]; !(contains(tail, "m028") && contains(tail, "m029")) {
				t.Errorf("null cursor values not last: %v", tail)
			}
		})
	}
}

func TestRecordsFanIn(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, testDataset(), Options{})
	r := get(t, ts.URL, "/v1/streams/messages/records?limit=3&count=exact", gmailTok)
	if r.status != 200 || len(r.body["data"].([]any)) != 6 || r.body["has_more"] != true || r.body["next_cursor"] != nil {
		t.Fatalf("fan-in page: %s", r.raw)
	}
	if at(r.body, "meta", "warnings", 0, "code") != "partial_results" || at(r.body, "meta", "count", "value") != float64(35) {
		t.Errorf("meta = %v", r.body["meta"])
	}
	if at(r.body, "links", "next") != nil {
		t.Error("links.next under fan-in")
	}
	rec := at(r.body, "data", 0).(map[string]any)
	for _, k := range []string{"object", "id", "stream", "data", "emitted_at", "connection_id", "connector_instance_id", "display_name"} {
		if _, ok := rec[k]; !ok {
			t.Errorf("record lacks %s", k)
		}
	}
	if _, ok := rec["data"].(map[string]any)["bcc"]; ok {
		t.Error("ungranted field bcc leaked")
	}
}

func TestRecordsRules(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, testDataset(), Options{})
	a := "/v1/streams/messages/records?connection_id=" + connA
	tests := []statusCase{
		{"unknown param", a + "&bogus=1", gmailTok, 400, "invalid_request", "bogus"},
		{"client filter", a + "&filter[subject]=x", gmailTok, 400, "invalid_request", "filter"},
		{"client filter op", a + "&filter[size_bytes][gte]=1", gmailTok, 400, "invalid_request", "filter"},
		{"client expand", a + "&expand=message_bodies", gmailTok, 400, "invalid_request", "expand"},
		{"client expand[]", a + "&expand[]=message_bodies", gmailTok, 400, "invalid_request", "expand"},
		{"client expand_limit", a + "&expand_limit[attachments]=2", gmailTok, 400, "invalid_request", "expand_limit"},
		{"client view", a + "&view=envelope", gmailTok, 400, "invalid_request", "view"},
		{"bad order", a + "&order=up", gmailTok, 400, "invalid_request", "order"},
		{"sort other field", a + "&sort=subject", gmailTok, 400, "invalid_sort", "sort"},
		{"sort empty", a + "&sort=-", gmailTok, 400, "invalid_sort", "sort"},
		{"sort conflict", a + "&sort=received_at,-received_at", gmailTok, 400, "invalid_sort", "sort"},
		{"sort vs order", a + "&sort=received_at&order=desc", gmailTok, 400, "invalid_sort", "sort"},
		{"bad count", a + "&count=maybe", gmailTok, 400, "invalid_request", "count"},
		{"unknown field", a + "&fields=id,nope", gmailTok, 400, "unknown_field", ""},
		{"garbage cursor", a + "&cursor=%%%", gmailTok, 400, "invalid_request", "cursor"},
		{"garbage cursor b64", a + "&cursor=bm9wZQ==", gmailTok, 400, "invalid_cursor", ""},
		{"connection not in grant", "/v1/streams/messages/records?connection_id=" + connSlack, gmailTok, 401, "context.instance_mismatch", ""},
		{"owner connection unknown", "/v1/streams/messages/records?connection_id=cin_nope&connector_id=gmail", ownerTok, 404, "connection_not_found", "connection_id"},
		{"alias conflict", a + "&connector_instance_id=" + connB, gmailTok, 400, "invalid_argument", "connector_instance_id"},
		{"changes with sort", a + "&changes_since=beginning&sort=received_at", gmailTok, 400, "invalid_request", ""},
		{"changes with count", a + "&changes_since=beginning&count=exact", gmailTok, 400, "invalid_request", ""},
		{"changes with order", a + "&changes_since=beginning&order=asc", gmailTok, 400, "invalid_request", ""},
		{"changes fan-in", "/v1/streams/messages/records?changes_since=beginning", gmailTok, 400, "invalid_argument", "changes_since"},
		{"changes garbage", a + "&changes_since=xyz", gmailTok, 400, "invalid_cursor", ""},
		{"owner filter unknown", a + "&filter[nope]=1", ownerTok, 400, "unknown_field", ""},
		{"owner range undeclared", a + "&filter[subject][gte]=a", ownerTok, 400, "invalid_request", "filter"},
		{"owner exact non-scalar", a + "&filter[labels]=INBOX", ownerTok, 400, "invalid_request", "filter"},
		{"owner bad number", a + "&filter[size_bytes]=abc", ownerTok, 400, "invalid_request", "filter"},
		{"owner view+fields", a + "&view=envelope&fields=id", ownerTok, 400, "invalid_request", "view"},
		{"owner bad expand", a + "&expand=threads", ownerTok, 400, "invalid_expand", "expand"},
		{"owner ok", a + "&filter[is_flagged]=true&view=envelope", ownerTok, 200, "", ""},
	}
	checkStatusCases(t, ts.URL, tests)
	t.Run("fan-in changes lists connections", func(t *testing.T) {
		t.Parallel()
		r := get(t, ts.URL, "/v1/streams/messages/records?changes_since=beginning", gmailTok)
		if at(r.body, "error", "retry_with") != "connection_id" || len(at(r.body, "error", "available_connections").([]any)) != 2 {
			t.Errorf("%s", r.raw)
		}
	})
}

func TestRecordsResults(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, testDataset(), Options{})
	a := "/v1/streams/messages/records?connection_id=" + connA
	t.Run("limit clamp", func(t *testing.T) {
		t.Parallel()
		r := get(t, ts.URL, a+"&limit=500", gmailTok)
		want := map[string]any{"requested_limit": float64(500), "max_limit": float64(100)}
		if d := cmp.Diff(want, at(r.body, "meta", "warnings", 0, "detail")); d != "" || at(r.body, "meta", "warnings", 0, "code") != "limit_clamped" {
			t.Errorf("(-want +got):\n%s", d)
		}
	})
	t.Run("non-positive limit", func(t *testing.T) {
		t.Parallel()
		r := get(t, ts.URL, a+"&limit=-3", gmailTok)
		if n := len(r.body["data"].([]any)); n != 25 || len(at(r.body, "meta", "warnings").([]any)) != 0 {
			t.Errorf("len = %d", n)
		}
	})
	t.Run("fields projection", func(t *testing.T) {
		t.Parallel()
		r := get(t, ts.URL, a+"&fields=id,subject&fields=bcc&limit=1", gmailTok)
		if d := cmp.Diff([]string{"id", "subject"}, keys(at(r.body, "data", 0, "data"))); d != "" {
			t.Errorf("(-want +got):\n%s", d)
		}
	})
	t.Run("owner filter", func(t *testing.T) {
		t.Parallel()
		r := get(t, ts.URL, a+"&filter[size_bytes][gte]=120&filter[size_bytes][lt]=125&count=exact", ownerTok)
		if at(r.body, "meta", "count", "value") != float64(5) {
			t.Errorf("count = %v", at(r.body, "meta", "count"))
		}
		r = get(t, ts.URL, a+"&filter[received_at][lt]=2026-04-01T01:00:00Z&count=exact", ownerTok)
		if at(r.body, "meta", "count", "value") != float64(3) {
			t.Errorf("date range count = %v", at(r.body, "meta", "count"))
		}
	})
	t.Run("owner expand", func(t *testing.T) {
		t.Parallel()
		r := get(t, ts.URL, a+"&order=asc&limit=1&expand=message_bodies&expand=attachments", ownerTok)
		if at(r.body, "data", 0, "expanded", "message_bodies", "id") != "19659a5b3c1d4e2f" ||
			at(r.body, "data", 0, "expanded", "attachments", "object") != "list" {
			t.Errorf("%s", r.raw)
		}
	})
	t.Run("direction-bound cursor", func(t *testing.T) {
		t.Parallel()
		r := get(t, ts.URL, a+"&limit=2", gmailTok)
		cur := url.QueryEscape(r.body["next_cursor"].(string))
		r = get(t, ts.URL, a+"&limit=2&order=asc&cursor="+cur, gmailTok)
		if code, _ := r.errCode(); code != "invalid_cursor" || at(r.body, "error", "message") != "Cursor order does not match request order" {
			t.Errorf("%s", r.raw)
		}
		// The reference's cursor names no connection (D4, capture 0093):
		// replayed on another connection it is a position there.
		r = get(t, ts.URL, "/v1/streams/messages/records?connection_id="+connB+"&limit=2&cursor="+cur, gmailTok)
		if r.status != 200 {
			t.Errorf("cross-connection cursor: %s", r.raw)
		}
	})
	t.Run("window exact", func(t *testing.T) {
		t.Parallel()
		r := get(t, ts.URL, "/v1/streams/messages/records?connection_id="+connB+"&window=exact", gmailTok)
		want := map[string]any{"total": float64(5), "earliest_at": "2026-04-01T00:00:00.000Z", "latest_at": "2026-04-05T00:00:00.000Z"}
		if d := cmp.Diff(want, at(r.body, "meta", "window")); d != "" {
			t.Errorf("(-want +got):\n%s", d)
		}
	})
}

// keys lists a decoded object's keys sorted.
func keys(v any) []string {
	m, _ := v.(map[string]any)
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sortStrings(out)
	return out
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// changesPage reads one changes page and returns its ids and body.
func changesPage(t *testing.T, base, path string) ([]string, resp) {
	t.Helper()
	r := get(t, base, path, gmailTok)
	if r.status != 200 {
		t.Fatalf("%s: %s", path, r.raw)
	}
	var ids []string
	for _, d := range r.body["data"].([]any) {
		ids = append(ids, d.(map[string]any)["id"].(string))
	}
	return ids, r
}

// TestChangesSince pins the reference's changes paging (D3, captures
// 0099/0100, 0161–0164): a has_more page carries next_cursor (continues the
// session) and next_changes_since (the session's high-water mark); resuming
// from the mark mid-session skips the rest; cursor + changes_since restarts.
func TestChangesSince(t *testing.T) {
	t.Parallel()
	s, ts := newTestServer(t, testDataset(), Options{})
	a := "/v1/streams/messages/records?connection_id=" + connA + "&limit=8"
	first, r1 := changesPage(t, ts.URL, a+"&changes_since=beginning")
	mark, _ := r1.body["next_changes_since"].(string)
	cur, _ := r1.body["next_cursor"].(string)
	if r1.body["has_more"] != true || mark == "" || cur == "" {
		t.Fatalf("has_more page must carry both tokens: %s", r1.raw)
	}
	next, _ := at(r1.body, "links", "next").(string)
	if !strings.Contains(next, "cursor="+url.QueryEscape(cur)) || !strings.Contains(next, "changes_since="+url.QueryEscape(mark)) {
		t.Errorf("links.next = %q; want cursor and changes_since", next)
	}
	all := append([]string(nil), first...)
	for page := 0; cur != ""; page++ {
		if page > 10 {
			t.Fatal("session does not end")
		}
		ids, r := changesPage(t, ts.URL, a+"&cursor="+url.QueryEscape(cur))
		all = append(all, ids...)
		if got, _ := r.body["next_changes_since"].(string); got != mark {
			t.Errorf("high-water mark moved within a session: %q vs %q", got, mark)
		}
		cur, _ = r.body["next_cursor"].(string)
		if (cur != "") != (r.body["has_more"] == true) {
			t.Errorf("next_cursor iff has_more: %s", r.raw)
		}
	}
	seen := map[string]bool{}
	for _, id := range all {
		if seen[id] {
			t.Errorf("%s twice", id)
		}
		seen[id] = true
	}
	// From the beginning a tombstone is skipped: the record was not
	// visible at version 0.
	if len(all) != 30 || seen["gone"] {
		t.Errorf("session returned %d records (gone: %v); want the 30 live ones", len(all), seen["gone"])
	}
	skipped, r := changesPage(t, ts.URL, a+"&changes_since="+url.QueryEscape(mark))
	if len(skipped) != 0 || r.body["has_more"] != false || r.body["next_changes_since"] != mark {
		t.Errorf("resuming from the mark mid-session: %s", r.raw)
	}
	restart, _ := changesPage(t, ts.URL, a+"&changes_since=beginning&cursor="+url.QueryEscape(r1.body["next_cursor"].(string)))
	if d := cmp.Diff(first, restart); d != "" {
		t.Errorf("cursor + changes_since=beginning must restart (-page1 +got):\n%s", d)
	}
	// A session opened after the record was created sees its deletion.
	gone := s.ix.recs[csKey{connA, "messages"}].byID["gone"]
	ids, r := changesPage(t, ts.URL, "/v1/streams/messages/records?connection_id="+connA+"&limit=100&changes_since="+url.QueryEscape(encodeChangesSince(gone.createV)))
	if len(ids) != 31 || ids[30] != "gone" || at(r.body, "data", 30, "deleted") != true || at(r.body, "data", 30, "data") != nil {
		t.Errorf("tombstone after creation: %d ids %v", len(ids), ids)
	}
}

func TestChangesRetention(t *testing.T) {
	t.Parallel()
	now := base.Add(50 * time.Hour)
	_, ts := newTestServer(t, testDataset(), Options{Now: func() time.Time { return now }, ChangesRetention: 49*time.Hour + 55*time.Minute})
	a := "/v1/streams/messages/records?connection_id=" + connA
	r := get(t, ts.URL, a+"&changes_since=beginning", gmailTok)
	if code, _ := r.errCode(); r.status != 410 || code != "cursor_expired" || !strings.Contains(string(r.raw), "gone_error") {
		t.Errorf("compacted log: %d %s", r.status, r.raw)
	}
	r = get(t, ts.URL, a+"&changes_since="+url.QueryEscape(encodeChangesSince(31)), gmailTok)
	if r.status != 200 {
		t.Errorf("retained version: %s", r.raw)
	}
}

// TestUnknownFieldWordingIsTheReferences: the reference refuses names a
// stream does not declare with every unknown name in one message, in
// request order, and no param (measured: fields=nope,subject,zzz →
// "Unknown field: nope, zzz"); owner filters the same way.
func TestUnknownFieldWordingIsTheReferences(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, testDataset(), Options{})
	a := "/v1/streams/messages/records?connection_id=" + connA
	for _, tc := range []struct{ path, tok, want string }{
		{a + "&fields=nope,subject,zzz", gmailTok, "Unknown field: nope, zzz"},
		{a + "&fields=id,nope", gmailTok, "Unknown field: nope"},
		{"/v1/streams/messages/records?connector_id=gmail&filter[nope]=1&filter[zzz]=2", ownerTok, "Unknown field: nope, zzz"},
	} {
		r := get(t, ts.URL, tc.path, tc.tok)
		code, param := r.errCode()
		got := []any{r.status, code, param, at(r.body, "error", "message")}
		if diff := cmp.Diff([]any{400, "unknown_field", "", tc.want}, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.path, diff)
		}
	}
}
