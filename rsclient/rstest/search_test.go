package rstest

import (
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSearchRules(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, testDataset(), Options{Semantic: true})
	tests := []statusCase{
		{"q required", "/v1/search", gmailTok, 400, "invalid_request", "q"},
		{"q blank", "/v1/search?q=%20", gmailTok, 400, "invalid_request", "q"},
		{"mode rejected", "/v1/search?q=x&mode=hybrid", gmailTok, 400, "invalid_request", "mode"},
		{"count rejected", "/v1/search?q=x&count=exact", gmailTok, 400, "invalid_request", "count"},
		{"fields rejected", "/v1/search?q=x&fields=id", gmailTok, 400, "invalid_request", "fields"},
		{"client filter", "/v1/search?q=x&streams=messages&filter[is_seen]=true", gmailTok, 400, "invalid_request", "filter"},
		{"stream not granted", "/v1/search?q=x&streams[]=messages&streams[]=attachments", gmailTok, 403, "grant_stream_not_allowed", ""},
		{"connection mismatch", "/v1/search?q=x&connection_id=" + connSlack, gmailTok, 400, "invalid_argument", "connection_id"},
		{"hybrid cursor", "/v1/search/hybrid?q=x&cursor=abc", gmailTok, 400, "invalid_request", "cursor"},
		{"bad cursor", "/v1/search?q=x&cursor=abc", gmailTok, 400, "invalid_cursor", ""},
		{"owner filter needs one stream", "/v1/search?q=x&filter[is_seen]=true", ownerTok, 400, "invalid_request", "filter"},
		{"owner filter ok", "/v1/search?q=project&streams=messages&filter[is_flagged]=true", ownerTok, 200, "", ""},
		{"semantic ok", "/v1/search/semantic?q=project+update", gmailTok, 200, "", ""},
		{"hybrid ok", "/v1/search/hybrid?q=project", gmailTok, 200, "", ""},
	}
	checkStatusCases(t, ts.URL, tests)
}

func TestSearchLexical(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, testDataset(), Options{})
	r := get(t, ts.URL, "/v1/search?q=threaded", slackTok)
	if r.status != 200 || len(r.body["data"].([]any)) != 3 {
		t.Fatalf("%s", r.raw)
	}
	hit := at(r.body, "data", 0).(map[string]any)
	if hit["object"] != "search_result" || hit["connector_id"] != "slack" || hit["authored_at"] == nil ||
		!strings.Contains(at(hit, "snippet", "text").(string), "<mark>threaded</mark>") ||
		at(hit, "score", "kind") != "bm25" || at(hit, "evidence_excerpts", 0, "read", "route") != hit["record_url"].(string)+"/field-window" {
		t.Errorf("hit: %v", hit)
	}
	if !strings.HasPrefix(hit["record_url"].(string), "/v1/streams/messages/records/C01%3A") {
		t.Errorf("record_url = %v", hit["record_url"])
	}
	if at(r.body, "meta", "count") != 3.0 || at(r.body, "meta", "count_accuracy") != "exact" || at(r.body, "meta", "recall", "ranking_scope") != "all_matches" {
		t.Errorf("meta = %v", r.body["meta"])
	}
	// Ungranted fields are never matched: bcc is neither declared nor granted.
	if r := get(t, ts.URL, "/v1/search?q=secret", gmailTok); len(r.body["data"].([]any)) != 0 {
		t.Errorf("matched an undeclared field: %s", r.raw)
	}
	// Time-constrained records never surface.
	if r := get(t, ts.URL, "/v1/search?q=too+old", gmailTok); len(r.body["data"].([]any)) != 0 {
		t.Errorf("time-constrained record surfaced: %s", r.raw)
	}
	t.Run("cursor pages every hit once", func(t *testing.T) {
		t.Parallel()
		seen := map[string]bool{}
		path := "/v1/search?q=project&limit=4"
		for i := 0; i < 20 && path != ""; i++ {
			r := get(t, ts.URL, path, gmailTok)
			for _, h := range r.body["data"].([]any) {
				k := h.(map[string]any)["connection_id"].(string) + "/" + h.(map[string]any)["record_key"].(string)
				if seen[k] {
					t.Fatalf("duplicate hit %s", k)
				}
				seen[k] = true
			}
			path = ""
			if cur, ok := r.body["next_cursor"].(string); ok {
				path = "/v1/search?q=project&limit=4&cursor=" + url.QueryEscape(cur)
			}
		}
		// 35 messages (subject) + 1 message body ("project objectives").
		if len(seen) != 36 {
			t.Errorf("paged %d hits, want 36", len(seen))
		}
		r := get(t, ts.URL, "/v1/search?q=project&limit=4", gmailTok)
		cur := url.QueryEscape(r.body["next_cursor"].(string))
		if r := get(t, ts.URL, "/v1/search?q=other&cursor="+cur, gmailTok); r.status != 400 {
			t.Errorf("cursor reused for another query: %s", r.raw)
		}
	})
	t.Run("limit clamp", func(t *testing.T) {
		t.Parallel()
		r := get(t, ts.URL, "/v1/search?q=project&limit=1000", gmailTok)
		if at(r.body, "meta", "warnings", 0, "code") != "limit_clamped" {
			t.Errorf("%v", r.body["meta"])
		}
	})
}

func TestSearchSemanticAndHybrid(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, testDataset(), Options{Semantic: true})
	r := get(t, ts.URL, "/v1/search/semantic?q=threaded+reply", slackTok)
	if r.status != 200 || len(r.body["data"].([]any)) == 0 {
		t.Fatalf("%s", r.raw)
	}
	hit := at(r.body, "data", 0).(map[string]any)
	if hit["retrieval_mode"] != "semantic" || at(hit, "score", "kind") != "semantic_distance" || hit["evidence_excerpts"] != nil {
		t.Errorf("semantic hit: %v", hit)
	}
	r = get(t, ts.URL, "/v1/search/hybrid?q=threaded", slackTok)
	hit = at(r.body, "data", 0).(map[string]any)
	if hit["retrieval_mode"] != "hybrid" || hit["retrieval_sources"] == nil || hit["scores"] == nil || r.body["next_cursor"] != nil {
		t.Errorf("hybrid: %s", r.raw)
	}
}

// TestSearchCursorBindsToTheToken: as on the reference, a search
// cursor continues under the token that started the search and under no
// other — not even a refreshed token of the same grant, which the
// reference refuses with 400 invalid_cursor "Cursor does not match this
// query and grant authority" (no param). A cursor that does not decode
// is "Cursor is malformed".
func TestSearchCursorBindsToTheToken(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, testDataset(), Options{Semantic: true})
	fresh, err := srv.MintClientToken("grt_8c1d2e3f4a5b6c7d")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/v1/search", "/v1/search/semantic"} {
		first := get(t, ts.URL, path+"?q=project&limit=2", gmailTok)
		cur, ok := first.body["next_cursor"].(string)
		if !ok {
			t.Fatalf("%s: no next_cursor: %s", path, first.raw)
		}
		next := path + "?q=project&limit=2&cursor=" + url.QueryEscape(cur)
		if r := get(t, ts.URL, next, gmailTok); r.status != 200 {
			t.Errorf("%s: the issuing token must continue: %s", path, r.raw)
		}
		for _, tc := range []struct {
			name, path, tok, msg string
		}{
			{"refreshed token of the grant", next, fresh.AccessToken, "Cursor does not match this query and grant authority"},
			{"another query", path + "?q=other&limit=2&cursor=" + url.QueryEscape(cur), gmailTok, "Cursor does not match this query and grant authority"},
			{"garbage", path + "?q=project&cursor=%25%25", gmailTok, "Cursor is malformed"},
		} {
			r := get(t, ts.URL, tc.path, tc.tok)
			code, param := r.errCode()
			got := []any{r.status, code, param, at(r.body, "error", "message")}
			if diff := cmp.Diff([]any{400, "invalid_cursor", "", tc.msg}, got); diff != "" {
				t.Errorf("%s %s (-want +got):\n%s", path, tc.name, diff)
			}
		}
	}
}

// TestLexicalGaps: a connection stream outside the lexical index is never
// matched lexically, while recall still claims completeness and semantic
// search still finds it (D5, captures 0118-0123).
func TestLexicalGaps(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, testDataset(), Options{Semantic: true, LexicalGaps: []LexicalGap{{ConnectionID: connA, Stream: "messages"}}})
	q := "/v1/search?q=objectives&streams=messages&limit=100"
	ids := func(r resp) map[string]bool {
		out := map[string]bool{}
		for _, d := range r.body["data"].([]any) {
			out[d.(map[string]any)["connection_id"].(string)] = true
		}
		return out
	}
	lex := get(t, ts.URL, q, gmailTok)
	if got := ids(lex); got[connA] || !got[connB] {
		t.Errorf("lexical hits by connection: %v", got)
	}
	if at(lex.body, "meta", "recall", "complete") != true || at(lex.body, "meta", "recall", "sources_searched_count") != float64(2) {
		t.Errorf("recall: %v", at(lex.body, "meta", "recall"))
	}
	sem := get(t, ts.URL, "/v1/search/semantic?q=objectives&streams=messages&limit=100", gmailTok)
	if got := ids(sem); !got[connA] {
		t.Errorf("semantic hits by connection: %v", got)
	}
}

// TestSemanticNeighboursForAnyQuery: like the reference RS's vector
// search, semantic search has no relevance floor — a nonsense query gets
// limit nearest neighbours and a cursor to more — and hybrid's semantic
// half does the same, its has_more saying only whether the merge of the
// two first pages was cut (reference: operations/rs-search-hybrid).
func TestSemanticNeighboursForAnyQuery(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, testDataset(), Options{Semantic: true})
	for _, tc := range []struct {
		path     string
		hits     int
		hasMore  bool
		nextCurs bool
	}{
		{"/v1/search/semantic?q=xyzzyplugh&limit=2", 2, true, true},
		{"/v1/search/semantic?q=%21%21%21&limit=1", 1, true, true},
		{"/v1/search/hybrid?q=xyzzyplugh&limit=2", 2, false, false},
		{"/v1/search?q=xyzzyplugh&limit=2", 0, false, false},
	} {
		r := get(t, ts.URL, tc.path, gmailTok)
		if r.status != 200 {
			t.Fatalf("%s: %s", tc.path, r.raw)
		}
		if got := len(r.body["data"].([]any)); got != tc.hits || r.body["has_more"] != tc.hasMore || (r.body["next_cursor"] != nil) != tc.nextCurs {
			t.Errorf("%s: %d hits has_more=%v next_cursor=%v, want %d hits has_more=%v cursor=%v",
				tc.path, got, r.body["has_more"], r.body["next_cursor"], tc.hits, tc.hasMore, tc.nextCurs)
		}
	}
}

// TestSkippedSourceWarning: a search whose streams have no field of the
// mode answers 200 with no hits and one source_skipped_not_applicable
// warning per connection, worded and detailed as the reference's
// (operations/rs-search-semantic/index.ts, executeSearchSemantic).
func TestSkippedSourceWarning(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, testDataset(), Options{Semantic: true})
	r := get(t, ts.URL, "/v1/search/semantic?q=report&streams=attachments", ownerTok)
	if r.status != 200 || len(r.body["data"].([]any)) != 0 {
		t.Fatalf("%s", r.raw)
	}
	ws, _ := at(r.body, "meta", "warnings").([]any)
	var got []string
	for _, w := range ws {
		m := w.(map[string]any)
		got = append(got, m["code"].(string)+" "+m["message"].(string)+" "+at(m, "detail", "source").(string)+" "+at(m, "detail", "connection_id").(string))
	}
	want := []string{
		"source_skipped_not_applicable Connection '" + connA + "' under connector 'https://registry.pdpp.dev/connectors/gmail' is not applicable to this query and was skipped. https://registry.pdpp.dev/connectors/gmail " + connA,
		"source_skipped_not_applicable Connection '" + connB + "' under connector 'https://registry.pdpp.dev/connectors/gmail' is not applicable to this query and was skipped. https://registry.pdpp.dev/connectors/gmail " + connB,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestSemanticPerConnection: a semantic snapshot keeps as many nearest
// records per connection as the reference's
// resolveSemanticPerConnectorLimit gives for the first page's limit.
func TestSemanticPerConnection(t *testing.T) {
	t.Parallel()
	for limit, want := range map[int]int{1: 25, 10: 25, 16: 26, 25: 38, 50: 75, 67: 100, 100: 100, 500: 100} {
		if got := semanticPerConnection(limit); got != want {
			t.Errorf("semanticPerConnection(%d) = %d, want %d", limit, got, want)
		}
	}
}

// TestHybridSkippedSourceWarnings: hybrid keeps the first warning of each
// (code, param) pair of its lexical and semantic halves, as the reference
// does: over a stream without search fields, one skipped-source warning
// (the lexical half's first) for two skipped connections.
func TestHybridSkippedSourceWarnings(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, testDataset(), Options{Semantic: true})
	r := get(t, ts.URL, "/v1/search/hybrid?q=report&streams=attachments", ownerTok)
	ws, _ := at(r.body, "meta", "warnings").([]any)
	if r.status != 200 || len(ws) != 1 {
		t.Fatalf("want one warning: %s", r.raw)
	}
	w := ws[0].(map[string]any)
	if w["code"] != "source_skipped_not_applicable" || at(w, "detail", "connection_id") != connA {
		t.Errorf("warning %v", w)
	}
}
