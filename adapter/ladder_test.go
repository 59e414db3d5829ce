package adapter_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/page"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// randomBody mixes ASCII, accents, CJK and astral emoji so offsets that
// counted bytes or UTF-16 units would split characters.
func randomBody(rng *rand.Rand, n int) string {
	alphabet := []rune("abc xyz \n\nÉéüñ中文字😀🎉—…")
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteRune(alphabet[rng.IntN(len(alphabet))])
	}
	return b.String()
}

// datasetWithBodies adds message_bodies records to the Work Gmail
// connection of a copy of the demo dataset.
func datasetWithBodies(t *testing.T, bodies map[string]string) *rstest.Dataset {
	t.Helper()
	base := testenv.Dataset(t)
	ds := *base
	ds.Records = slices.Clone(base.Records)
	at := time.Date(2026, 4, 25, 14, 0, 0, 0, time.UTC) // newest, so they lead the first page
	for id, body := range bodies {
		data, _ := json.Marshal(map[string]any{"id": id, "message_id": id, "body_text": body, "body_source": "text_plain",
			"message_received_at": at.Format(time.RFC3339)})
		ds.Records = append(ds.Records, rstest.Record{ConnectionID: demodata.GmailWorkConnectionID, Stream: "message_bodies",
			ID: id, Data: data, EmittedAt: at})
	}
	return &ds
}

func windowDoc(t *testing.T, r toolResult) (text string, next, prev *string, start int) {
	t.Helper()
	if r.IsError {
		t.Fatalf("window failed: %s", r.text())
	}
	var doc struct {
		Text  string `json:"text"`
		Start int    `json:"start_chars"`
		Next  *struct {
			Args struct {
				Cursor string `json:"cursor"`
			} `json:"args"`
		} `json:"next"`
		Prev *struct {
			Args struct {
				Cursor string `json:"cursor"`
			} `json:"args"`
		} `json:"previous"`
	}
	if err := json.Unmarshal(r.StructuredContent, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Next != nil {
		next = &doc.Next.Args.Cursor
	}
	if doc.Prev != nil {
		prev = &doc.Prev.Args.Cursor
	}
	return doc.Text, next, prev, doc.Start
}

// Paging a field with cursors reassembles it exactly, for random bodies
// and window sizes, multi-byte characters included.
func TestFieldPagingReassemblesExactText(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(42, 7))
	bodies := map[string]string{}
	for i := 0; i < 8; i++ {
		bodies[fmt.Sprintf("prop%02d", i)] = randomBody(rng, rng.IntN(6000)+1)
	}
	e := newEnv(t, testenv.Options{Dataset: datasetWithBodies(t, bodies)}, demodata.GmailToken)
	for _, id := range slices.Sorted(maps.Keys(bodies)) {
		body := bodies[id]
		// Random window sizes, but at most ~8 windows per body: every
		// window is one RS round trip, and thousands of them made this the
		// slowest test (8 s) without covering anything more.
		limit := max(rng.IntN(900)+1, utf8.RuneCountInString(body)/8+1)
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			c := newClient(t, e.srv)
			ref := demodata.GmailWorkConnectionID + "/message_bodies:" + id
			args := map[string]any{"id": ref, "field_path": "body_text", "limit_chars": limit}
			var got strings.Builder
			var lastPrev *string
			for step := 0; ; step++ {
				if step > 10000/limit+10 {
					t.Fatalf("paging does not end")
				}
				text, next, prev, _ := windowDoc(t, c.call("read_record_field", args))
				got.WriteString(text)
				lastPrev = prev
				if next == nil {
					break
				}
				args = map[string]any{"id": ref, "field_path": "body_text", "cursor": *next}
			}
			if got.String() != body {
				t.Errorf("limit %d: reassembled %d runes, want %d", limit, len([]rune(got.String())), len([]rune(body)))
			}
			// Walking back with previous cursors ends at offset 0.
			for steps := 0; lastPrev != nil; steps++ {
				if steps > 10000 {
					t.Fatal("previous cursors do not end")
				}
				_, _, p, start := windowDoc(t, c.call("read_record_field", map[string]any{"id": ref, "field_path": "body_text", "cursor": *lastPrev}))
				if p == nil && start != 0 {
					t.Errorf("first window starts at %d", start)
				}
				lastPrev = p
			}
		})
	}
}

func TestCursorMisuseIsTypedAndCostsNoRSCall(t *testing.T) {
	t.Parallel()
	rs := testenv.StartRS(t, testenv.Options{})
	key, _ := contentladder.NewCursorKey([]byte(strings.Repeat("k", 32)))
	other, _ := contentladder.NewCursorKey([]byte(strings.Repeat("o", 32)))
	mk := func(token string, key *contentladder.CursorKey, now func() time.Time) *client {
		rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
		if err != nil {
			t.Fatal(err)
		}
		a, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Grants: []adapter.Grant{adapter.NewGrant(token)}, CursorKey: key, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		return newClient(t, a)
	}
	id := demodata.GmailWorkConnectionID + "/message_bodies:" + demodata.LongBodyMessageID
	main := mk(demodata.GmailToken, key, nil)
	_, next, _, _ := windowDoc(t, main.call("read_record_field", map[string]any{"id": id, "field_path": "body_text", "limit_chars": 100}))
	cur := *next
	tampered := []byte(cur)
	tampered[len(tampered)/2] ^= 0x01
	if tampered[len(tampered)/2] == '-' || tampered[len(tampered)/2] == '_' {
		tampered[len(tampered)/2] = 'A'
	}
	otherRecord := demodata.GmailWorkConnectionID + "/message_bodies:" + "a41c7e9b20d5f836"
	later := func() time.Time { return time.Now().Add(72 * time.Hour) }
	for _, tc := range []struct {
		name   string
		c      *client
		args   map[string]any
		reason string
	}{
		{"tampered", main, map[string]any{"id": id, "field_path": "body_text", "cursor": string(tampered)}, ""},
		{"other grant", mk(demodata.GmailRestrictedToken, key, nil), map[string]any{"id": id, "field_path": "body_text", "cursor": cur}, "grant"},
		{"other record", main, map[string]any{"id": otherRecord, "field_path": "body_text", "cursor": cur}, "record"},
		{"other field", main, map[string]any{"id": id, "field_path": "message_id", "cursor": cur}, "field"},
		{"expired", mk(demodata.GmailToken, key, later), map[string]any{"id": id, "field_path": "body_text", "cursor": cur}, "expired"},
		{"wrong key", mk(demodata.GmailToken, other, nil), map[string]any{"id": id, "field_path": "body_text", "cursor": cur}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.c.call("schema", map[string]any{}) // warm the grant check
			before := rs.RSCalls()
			r := tc.c.call("read_record_field", tc.args)
			if got := r.errorCode(t); got != "invalid_cursor" {
				t.Fatalf("code %q: %s", got, r.text())
			}
			if !strings.Contains(r.text(), "body_text") && tc.name != "other field" {
				t.Errorf("error does not name the field: %s", r.text())
			}
			if tc.reason != "" && !strings.Contains(strings.ToLower(r.text()), tc.reason) {
				t.Errorf("error does not say %q: %s", tc.reason, r.text())
			}
			if n := rs.RSCalls() - before; n != 0 {
				t.Errorf("%d RS calls", n)
			}
		})
	}
}

func TestUngrantedFieldIsUnreadableOnEveryRung(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailRestrictedToken)
	id := demodata.GmailWorkConnectionID + "/message_bodies:" + demodata.LongBodyMessageID
	// Tool rung: the RS's 403 comes back typed.
	r := e.c.call("read_record_field", map[string]any{"id": id, "field_path": "body_text"})
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
		HTTPStatus int `json:"http_status"`
	}
	if err := json.Unmarshal([]byte(r.text()), &env); err != nil || env.Error.Code != "field_not_granted" || env.HTTPStatus != 403 {
		t.Errorf("tool rung: %s", r.text())
	}
	// Resource rung.
	uri := contentladder.FieldWindowURI(contentladder.WindowSpec{Ref: contentladder.RecordRef{ConnectionID: demodata.GmailWorkConnectionID,
		Stream: "message_bodies", RecordID: demodata.LongBodyMessageID}, FieldPath: "body_text", LimitChars: 100})
	if _, err := e.c.rpcRaw("resources/read", map[string]any{"uri": uri}); err == nil || !strings.Contains(err.Error(), "field_not_granted") {
		t.Errorf("resource rung: %v", err)
	}
	// Fetch and query_records never show it, nor offer a ladder into it.
	for _, res := range []toolResult{
		e.c.call("fetch", map[string]any{"id": id, "fields": []string{"id", "body_text"}}),
		e.c.call("query_records", map[string]any{"stream": "message_bodies", "limit": 25}),
	} {
		if strings.Contains(res.text()+string(res.StructuredContent), demodata.LongBodyTerm) ||
			strings.Contains(string(res.StructuredContent), `"field_path":"body_text"`) {
			t.Errorf("ungranted body leaked: %.300s", res.text())
		}
	}
}

func TestRecordPageBudgetsWithLongBodies(t *testing.T) {
	t.Parallel()
	blob := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("binary\x00\x01\x02payload", 400)))
	e := newEnv(t, testenv.Options{Dataset: datasetWithBodies(t, map[string]string{"b64body": blob})}, demodata.GmailToken)
	r := e.c.call("query_records", map[string]any{"stream": "message_bodies", "limit": 25, "connection_id": demodata.GmailWorkConnectionID})
	if r.IsError {
		t.Fatal(r.text())
	}
	if testing.Verbose() {
		t.Log(r.text())
	}
	t.Logf("25 message_bodies: text %d B, structuredContent %d B", len(r.text()), len(r.StructuredContent))
	if budget := 2000 + 300*25; len(r.text()) > budget {
		t.Errorf("text %d B > %d", len(r.text()), budget)
	}
	if ids := recordLineIDRe.FindAllString(r.text(), -1); len(ids) != 25 {
		t.Errorf("text shows %d of 25 records:\n%s", len(ids), r.text())
	}
	if len(r.StructuredContent) > 48*1024 {
		t.Errorf("structuredContent %d B > 48 KiB", len(r.StructuredContent))
	}
	if !strings.Contains(string(r.StructuredContent), "b64body") {
		t.Fatal("the base64 record is not on the page; the check below would be vacuous")
	}
	for _, where := range []string{r.text(), string(r.StructuredContent)} {
		if strings.Contains(where, blob[:200]) {
			t.Error("raw base64 inlined")
		}
	}
	var structured pageJSON
	if err := json.Unmarshal(r.StructuredContent, &structured); err != nil {
		t.Fatal(err)
	}
	if budget := 2000 + 300*25; len(r.StructuredContent) > budget {
		t.Errorf("structuredContent %d B > %d", len(r.StructuredContent), budget)
	}
	if len(structured.Records) != 25 || structured.Cut == "" {
		t.Fatalf("structuredContent shows %d of 25 records, cut hint %q", len(structured.Records), structured.Cut)
	}
	// Each resource link continues a cut field exactly where the page's
	// preview of it stops.
	shown := map[string]map[string]any{}
	for _, rec := range structured.Records {
		shown[rec.ID] = rec.Data
	}
	links := 0
	for _, c := range r.Content[1:] {
		if c.Type != "resource_link" {
			continue
		}
		links++
		spec, err := contentladder.ParseFieldWindowHandle(strings.TrimPrefix(c.URI, contentladder.FieldWindowURIPrefix))
		if err != nil {
			t.Fatalf("%s: %v", c.URI, err)
		}
		value, _ := shown[spec.Ref.ID()][spec.FieldPath].(string)
		if want := len([]rune(strings.TrimSuffix(value, page.Ellipsis))); spec.OffsetChars != want {
			t.Errorf("%s %s: link starts at %d, the page shows %d runes", spec.Ref.ID(), spec.FieldPath, spec.OffsetChars, want)
		}
		rr, err := e.c.rpcRaw("resources/read", map[string]any{"uri": c.URI})
		if err != nil || !strings.Contains(string(rr), "text/plain") {
			t.Errorf("link %s failed: %v", c.URI, err)
		}
	}
	if links == 0 {
		t.Error("no resource links for cut long bodies")
	}
}

// pageJSON is query_records' structuredContent as a model reads it.
type pageJSON struct {
	HasMore    bool        `json:"has_more"`
	NextCursor string      `json:"next_cursor"`
	Warnings   []string    `json:"warnings"`
	Records    []recordRow `json:"records"`
	Cut        string      `json:"cut"`
}

// recordRow is one record row: [fetch id, fields(, deleted_at)].
type recordRow struct {
	ID        string
	Data      map[string]any
	DeletedAt string
}

// UnmarshalJSON reads a row.
func (r *recordRow) UnmarshalJSON(b []byte) error {
	var cells []json.RawMessage
	if err := json.Unmarshal(b, &cells); err != nil {
		return err
	}
	if len(cells) < 2 || len(cells) > 3 {
		return fmt.Errorf("record row of %d cells", len(cells))
	}
	if err := json.Unmarshal(cells[0], &r.ID); err != nil {
		return err
	}
	if err := json.Unmarshal(cells[1], &r.Data); err != nil {
		return err
	}
	if len(cells) == 3 {
		return json.Unmarshal(cells[2], &r.DeletedAt)
	}
	return nil
}

func TestBinaryFieldsAreDescribedNeverInlined(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken)
	r := e.c.call("query_records", map[string]any{"stream": "attachments", "limit": 10, "connection_id": demodata.GmailWorkConnectionID,
		"fields": []string{"filename", "blob_ref"}})
	if r.IsError {
		t.Fatal(r.text())
	}
	// Both channels describe each blob by its reference (MIME type, size,
	// digest, blob id), never by its bytes.
	var sc pageJSON
	if err := json.Unmarshal(r.StructuredContent, &sc); err != nil {
		t.Fatal(err)
	}
	binary := 0
	for _, rec := range sc.Records {
		ref, ok := rec.Data["blob_ref"].(map[string]any)
		if !ok {
			continue
		}
		binary++
		for _, k := range []string{"blob_id", "mime_type", "size_bytes", "sha256"} {
			if ref[k] == nil {
				t.Errorf("%s: blob_ref lacks %s: %v", rec.ID, k, ref)
			}
		}
		if id, _ := ref["blob_id"].(string); !strings.Contains(r.text(), id) {
			t.Errorf("%s: text does not name blob %s", rec.ID, id)
		}
	}
	if binary == 0 {
		t.Fatal("no binary fields described on an attachments page")
	}
}

func TestRecordPageLinksCutFieldsAsResources(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken)
	r := e.c.call("query_records", map[string]any{"stream": "message_bodies", "limit": 25, "connection_id": demodata.GmailWorkConnectionID})
	var links []string
	for _, c := range r.Content[1:] {
		if c.Type == "resource_link" {
			links = append(links, c.URI)
		}
	}
	if len(links) == 0 || len(links) > 3 {
		t.Fatalf("want 1–3 resource links for cut bodies, got %d", len(links))
	}
	for _, uri := range links {
		raw, err := e.c.rpcRaw("resources/read", map[string]any{"uri": uri})
		if err != nil || strings.Contains(string(raw), `"start_chars\":0,`) {
			t.Errorf("%s: %v %.200s", uri, err, raw)
		}
	}
}

// Replicas sharing a cursor key accept each other's cursors: no affinity.
func TestCursorsWorkAcrossReplicas(t *testing.T) {
	t.Parallel()
	rs := testenv.StartRS(t, testenv.Options{})
	key, _ := contentladder.NewCursorKey([]byte(strings.Repeat("r", 32)))
	replica := func() *client {
		rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
		if err != nil {
			t.Fatal(err)
		}
		a, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Grants: []adapter.Grant{adapter.NewGrant(demodata.GmailToken)}, CursorKey: key})
		if err != nil {
			t.Fatal(err)
		}
		return newClient(t, a)
	}
	a, b := replica(), replica()
	id := demodata.GmailWorkConnectionID + "/message_bodies:" + demodata.LongBodyMessageID
	_, next, _, _ := windowDoc(t, a.call("read_record_field", map[string]any{"id": id, "field_path": "body_text", "limit_chars": 500}))
	_, _, _, start := windowDoc(t, b.call("read_record_field", map[string]any{"id": id, "field_path": "body_text", "cursor": *next}))
	if start != 500 {
		t.Errorf("replica B resumed at %d, want 500", start)
	}
	r := a.call("search", map[string]any{"q": "roadmap", "limit": 3})
	m := nextCursorRe.FindStringSubmatch(r.text())
	if m == nil {
		t.Fatal("no search cursor")
	}
	if r2 := b.call("search", map[string]any{"q": "roadmap", "limit": 3, "cursor": m[1]}); r2.IsError {
		t.Errorf("replica B rejected replica A's search cursor: %s", r2.text())
	}
}
