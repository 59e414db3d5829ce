package adapter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/page"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

// genText is a random string of n runes mixing ASCII, multi-byte runes,
// quotes and newlines (JSON escapes make bytes exceed runes).
func genText(rng *rand.Rand, n int) string {
	alphabet := []string{"a", "b", "invoice ", "ü", "😀", "\"", "\n", "<mark>", "\\", "z"}
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(alphabet[rng.IntN(len(alphabet))])
	}
	return b.String()
}

func genID(rng *rand.Rand, n int) string {
	const chars = "abcdefghijklmnopqrstuvwxyz0123456789-_.:/"
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[rng.IntN(len(chars))]
	}
	return string(b)
}

// genPayload is a record payload with random field count, value kinds and
// sizes (strings up to 2,000 runes, nested values up to 1,000, arrays up to
// 60 elements). A record's share of the text budget is 300 B, so values
// far shorter than these already take every cut path; longer ones only
// cost generation time, most of all under -race.
func genPayload(rng *rand.Rand) json.RawMessage {
	var fields []field
	for i := range rng.IntN(61) {
		key := fmt.Sprintf("f%d_%s", i, genID(rng, rng.IntN(20)))
		var v any
		switch rng.IntN(6) {
		case 0:
			v = genText(rng, rng.IntN(2000))
		case 1:
			v = genText(rng, rng.IntN(40))
		case 2:
			v = rng.IntN(1 << 40)
		case 3:
			arr := make([]string, rng.IntN(60))
			for j := range arr {
				arr[j] = genText(rng, rng.IntN(30))
			}
			v = arr
		case 4:
			v = map[string]any{"nested": genText(rng, rng.IntN(1000)), "n": i}
		default:
			v = nil
		}
		fields = append(fields, field{key, v})
	}
	return orderedJSON(fields)
}

// genRecordList is one random RS page: 0–100 records, ids of 1–120 bytes,
// deletions, warnings, and long RS cursors.
func genRecordList(rng *rand.Rand) *rsclient.RecordList {
	list := &rsclient.RecordList{HasMore: rng.IntN(2) == 0}
	if list.HasMore {
		list.NextCursor = genID(rng, 20+rng.IntN(400))
	}
	if rng.IntN(3) == 0 {
		list.NextChangesSince = genID(rng, 20+rng.IntN(200))
	}
	if rng.IntN(4) == 0 {
		list.Meta.Warnings = append(list.Meta.Warnings, rsclient.Warning{Code: "slow", Message: genText(rng, rng.IntN(2000))})
	}
	for range rng.IntN(101) {
		r := rsclient.Record{ID: genID(rng, 1+rng.IntN(120)), ConnectionID: "cin_" + genID(rng, 24), Stream: "messages",
			EmittedAt: "2026-01-01T00:00:00Z", Data: genPayload(rng)}
		if rng.IntN(10) == 0 {
			r.Deleted, r.DeletedAt, r.Data = true, "2026-02-01T00:00:00Z", nil
		}
		list.Data = append(list.Data, r)
	}
	return list
}

// Property: whatever the page, every record is in the text with its fetch
// id, and the text is within 2,000 B + 300 B × records.
//
// 25 random pages of up to 100 records, each of up to 60 fields with
// values up to 2,000 runes: every value longer than its share of the
// budget takes the cut paths. Speed is BenchmarkQueryRecords25's job.
func TestRecordTextShowsEveryRecordWithinBudget(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 2026))
	heldPages := 0
	defer func() {
		if heldPages == 0 && !t.Failed() {
			t.Error("no page passed the ceiling: the held path went untested")
		}
	}()
	for iter := range 25 {
		list := genRecordList(rng)
		n, rsCursor := len(list.Data), list.NextCursor
		var fields []string
		if rng.IntN(3) == 0 {
			fields = []string{"f0_", "f1_", "f2_"}
		}
		ceiling := []int{DefaultMaxResultBytes, MinMaxResultBytes, 30000}[iter%3]
		resume := func(shown int) string { return "resume-after-" + strconv.Itoa(shown) }
		p := newRecordPage("messages", "", fields, list, 0, memberRanker{}, resultCeiling{bytes: ceiling, resume: resume})
		text := p.text()
		if p.withheld != 0 {
			t.Fatalf("iter %d: %d records withheld with ids ≤ 120 B", iter, p.withheld)
		}
		if len(p.records)+p.held != n {
			t.Fatalf("iter %d: %d shown + %d held of %d records", iter, len(p.records), p.held, n)
		}
		if p.held > 0 && (!list.HasMore || list.NextCursor != resume(len(p.records)) || list.NextChangesSince != "") {
			t.Fatalf("iter %d: %d records held, has_more=%t next_cursor=%.40q: want has_more and the resume cursor alone",
				iter, p.held, list.HasMore, list.NextCursor)
		}
		if p.held > 0 {
			heldPages++
		}
		if p.held == 0 && list.NextCursor != rsCursor {
			t.Fatalf("iter %d: nothing held, but next_cursor changed", iter)
		}
		if len(text) > ceiling {
			t.Fatalf("iter %d: %d records, text %d B > ceiling %d", iter, len(p.records), len(text), ceiling)
		}
		for i, r := range p.records {
			if !strings.Contains(text, fmt.Sprintf("\n%d. %s", i+1, r.Ref.ID())) {
				t.Fatalf("iter %d: record %d (%s) missing from text", iter, i+1, r.Ref.ID())
			}
		}
		if list.NextCursor != "" && !strings.Contains(text, "next_cursor="+list.NextCursor) {
			t.Fatalf("iter %d: next_cursor missing", iter)
		}
		if strings.Contains(text, "structuredContent") {
			t.Fatalf("iter %d: text defers to structuredContent", iter)
		}
		checkRecordChannelsAgree(t, iter, p, text)
	}
}

// checkRecordChannelsAgree: structuredContent is valid JSON within the
// same budget, lists exactly the text's records in order, each with the
// very fields its line shows, and carries the text's handles.
func checkRecordChannelsAgree(t *testing.T, iter int, p *recordPage, text string) {
	t.Helper()
	sc := marshalNoEscape(p.structured(nil))
	if budget := p.ceiling.bytes; len(sc) > budget {
		t.Fatalf("iter %d: %d records, structuredContent %d B > budget %d", iter, len(p.records), len(sc), budget)
	}
	var got struct {
		NextCursor       string              `json:"next_cursor"`
		NextChangesSince string              `json:"next_changes_since"`
		Records          [][]json.RawMessage `json:"records"` // [fetch id, fields(, deleted_at)]
		Cut              string              `json:"cut"`
	}
	if err := json.Unmarshal(sc, &got); err != nil {
		t.Fatalf("iter %d: structuredContent is not JSON: %v", iter, err)
	}
	lines := recordLineRE.FindAllStringSubmatch(text, -1)
	if len(lines) != len(got.Records) {
		t.Fatalf("iter %d: text lists %d records, structuredContent %d", iter, len(lines), len(got.Records))
	}
	for i, m := range lines {
		var id string
		_ = json.Unmarshal(got.Records[i][0], &id)
		if m[1] != id {
			t.Fatalf("iter %d: record %d is %s in text, %s in structuredContent", iter, i+1, m[1], id)
		}
		shown := strings.TrimPrefix(m[2], " ")
		if strings.HasPrefix(shown, "deleted_at=") {
			_, shown, _ = strings.Cut(shown, " ")
		}
		if shown != "" && shown != string(got.Records[i][1]) {
			t.Fatalf("iter %d: record %d shows %.80s in text, %.80s in structuredContent", iter, i+1, shown, got.Records[i][1])
		}
	}
	if got.NextCursor != p.list.NextCursor || got.NextChangesSince != p.list.NextChangesSince {
		t.Fatalf("iter %d: handles differ from the page's", iter)
	}
	if (got.Cut != "") != strings.Contains(text, "values ending in … are cut; ") {
		t.Fatalf("iter %d: cut hint in one channel only", iter)
	}
}

// recordLineRE is one record line of the text: its fetch id and fields.
var recordLineRE = regexp.MustCompile(`(?m)^\d+\. (\S+)( .*)?$`)

// Short pages of small records are shown whole: nothing is cut when
// everything fits.
func TestRecordTextKeepsSmallRecordsWhole(t *testing.T) {
	t.Parallel()
	list := &rsclient.RecordList{}
	for i := range 5 {
		list.Data = append(list.Data, rsclient.Record{ID: fmt.Sprint(i), Stream: "s", ConnectionID: "cin_1",
			Data: json.RawMessage(fmt.Sprintf(`{"subject":"hello %d","n":%d}`, i, i))})
	}
	text := newRecordPage("s", "", nil, list, 0, memberRanker{}, resultCeiling{}).text()
	for i := range 5 {
		if !strings.Contains(text, fmt.Sprintf(`%d. cin_1/s:%d {"subject":"hello %d","n":%d}`, i+1, i, i, i)) {
			t.Errorf("record %d not shown whole:\n%s", i, text)
		}
	}
	if strings.Contains(strings.Replace(text, recordLegend, "", 1), "…") || strings.Contains(text, "are cut") {
		t.Errorf("nothing needed cutting:\n%s", text)
	}
}

// When not even the bare ids fit the ceiling and the page cannot resume
// mid-way, it keeps only what it shows and drops the RS cursors, so paging
// never skips an unseen record.
func TestRecordTextWithholdsRatherThanSkips(t *testing.T) {
	t.Parallel()
	list := &rsclient.RecordList{HasMore: true, NextCursor: "rs-cursor", NextChangesSince: "rs-bookmark"}
	const n = 30
	for i := range n {
		list.Data = append(list.Data, rsclient.Record{ID: fmt.Sprintf("%d-%s", i, strings.Repeat("x", 500)), Stream: "s",
			ConnectionID: "cin_1", Data: json.RawMessage(`{"a":1}`)})
	}
	p := newRecordPage("s", "", nil, list, 0, memberRanker{}, resultCeiling{})
	text := p.text()
	if p.withheld == 0 || len(p.records)+p.withheld != n {
		t.Fatalf("withheld %d, kept %d", p.withheld, len(p.records))
	}
	if strings.Contains(text, "rs-cursor") || strings.Contains(text, "rs-bookmark") {
		t.Errorf("a cursor past withheld records is printed:\n%.400s", text)
	}
	if !strings.Contains(text, fmt.Sprintf("limit=%d", len(p.records))) {
		t.Errorf("text does not say how to page past them:\n%.600s", text)
	}
	for _, r := range p.records {
		if !strings.Contains(text, r.Ref.ID()) {
			t.Errorf("kept record %s not shown", r.Ref.RecordID[:4])
		}
	}
	if len(text) > DefaultMaxResultBytes {
		t.Errorf("text %d B over the ceiling", len(text))
	}
}

// genSearchPage is one random merged page: 0–100 hits from up to four
// connections, ids of 1–120 bytes, long titles and densely marked snippets.
func genSearchPage(rng *rand.Rand) *searchPage {
	p := &searchPage{hasMore: rng.IntN(2) == 0}
	if p.hasMore {
		p.nextCursor = genID(rng, 40+rng.IntN(700))
	}
	if rng.IntN(4) == 0 {
		p.warnings = append(p.warnings, warning{Code: "source_unavailable", Message: genText(rng, rng.IntN(1000))})
	}
	for range rng.IntN(101) {
		conn := fmt.Sprintf("cin_%024d", rng.IntN(4))
		var snippet strings.Builder
		for snippet.Len() < rng.IntN(400) {
			w := genText(rng, 1+rng.IntN(8))
			if rng.IntN(3) == 0 {
				w = "<mark>" + w + "</mark>"
			}
			snippet.WriteString(w + " ")
		}
		h := searchHit{Ref: contentladder.RecordRef{ConnectionID: conn, Stream: "messages", RecordID: genID(rng, 1+rng.IntN(120))},
			ConnectionID: conn, ConnectorKey: "gmail", Display: genText(rng, rng.IntN(80)), Title: genText(rng, rng.IntN(300)),
			SnippetField: "body", EmittedAt: "2026-01-01T00:00:00Z"}
		h.Snippet, _ = page.TruncateMarked(snippet.String(), searchResultSnippet)
		p.hits = append(p.hits, h)
		p.multiConn = p.multiConn || conn != p.hits[0].ConnectionID
	}
	return p
}

// Property: whatever the page, every hit is in the text with its fetch id
// and title, and the text is within 2,000 B + 250 B × hits.
func TestSearchTextShowsEveryHitWithinBudget(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(12, 2026))
	heldPages := 0
	for iter := range 60 {
		p := genSearchPage(rng)
		if iter%4 == 0 {
			// A warning full of quotes (a retry call quoted in it): JSON
			// escapes each in structuredContent, so that channel's warning
			// is longer than the text's.
			p.warnings = append(p.warnings, warning{Code: "search_coverage", Message: strings.Repeat(`"a" `, 40+rng.IntN(160))})
		}
		n, cursor := len(p.hits), p.nextCursor
		ceiling := []int{0, DefaultMaxResultBytes, MinMaxResultBytes}[iter%3]
		if ceiling > 0 {
			// One source: a page of k hits continues at hit k.
			p.ceiling, p.sources = ceiling, make([]int, n)
			more := p.hasMore
			p.fitCeiling(func(taken []int) (bool, string) {
				if taken[0] == n && !more {
					return false, ""
				}
				return true, cursor + "-after-" + strconv.Itoa(taken[0])
			}, 1)
			if len(p.hits)+p.held != n || (p.held > 0 && (!p.hasMore || p.nextCursor != cursor+"-after-"+strconv.Itoa(len(p.hits)))) {
				t.Fatalf("iter %d: %d shown + %d held of %d hits, has_more=%t", iter, len(p.hits), p.held, n, p.hasMore)
			}
			if p.held > 0 {
				heldPages++
			}
		}
		text := p.text(searchArgs{Q: "invoice"})
		budget := searchTextBudget(len(p.hits))
		if ceiling > 0 {
			budget = min(budget, ceiling)
			if p.held > 0 {
				budget = ceiling
			}
		}
		if len(text) > budget {
			t.Fatalf("iter %d: %d hits, text %d B > budget %d", iter, len(p.hits), len(text), budget)
		}
		for i, h := range p.hits {
			if !strings.Contains(text, fmt.Sprintf("\n%d. %s \"", i+1, h.Ref.ID())) {
				t.Fatalf("iter %d: hit %d (%s) missing from text", iter, i+1, h.Ref.ID())
			}
		}
		if p.nextCursor != "" && !strings.Contains(text, "next_cursor="+p.nextCursor) {
			t.Fatalf("iter %d: next_cursor missing", iter)
		}
		if strings.Contains(text, "structuredContent") {
			t.Fatalf("iter %d: text defers to structuredContent", iter)
		}
		checkSearchChannelsAgree(t, iter, p, text)
	}
	if heldPages == 0 {
		t.Fatal("no page passed the ceiling: the held path went untested")
	}
}

// checkSearchChannelsAgree: structuredContent is within the same budget
// and lists exactly the text's hits in order, each with the title and
// snippet its line shows, and the same handles.
func checkSearchChannelsAgree(t *testing.T, iter int, p *searchPage, text string) {
	t.Helper()
	sc := marshalNoEscape(p.structured())
	budget := searchTextBudget(len(p.hits))
	if p.ceiling > 0 {
		budget = min(budget, p.ceiling)
		if p.held > 0 {
			budget = p.ceiling
		}
	}
	if len(sc) > budget {
		t.Fatalf("iter %d: %d hits, structuredContent %d B > budget %d", iter, len(p.hits), len(sc), budget)
	}
	var got searchResult
	if err := json.Unmarshal(sc, &got); err != nil {
		t.Fatalf("iter %d: structuredContent is not JSON: %v", iter, err)
	}
	if len(got.Hits) != len(p.hits) || got.NextCursor != p.nextCursor {
		t.Fatalf("iter %d: %d of %d hits, cursor %q", iter, len(got.Hits), len(p.hits), got.NextCursor)
	}
	for i, h := range got.Hits {
		line := fmt.Sprintf("\n%d. %s %s", i+1, h[0], strconv.Quote(h[1]))
		if !strings.Contains(text, line) || !strings.Contains(text, h[4]) {
			t.Fatalf("iter %d: hit %d differs between the channels: %q", iter, i+1, h)
		}
	}
}

// A long requested value is cut on its line with the exact continuation:
// the offset is where the shown prefix stops in the stored value.
func TestFieldLinesCutWithContinuation(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("line one\nünïcødé ", 400)
	payload := orderedJSON([]field{{"notes", long}, {"n", 7}, {"tags", []string{"a", "b"}}})
	members, _ := orderedObject(payload)
	ref := contentladder.RecordRef{ConnectionID: "cin_1", Stream: "s", RecordID: "r:1"}
	text := fieldLines(ref, members, []string{"notes", "n", "tags", "gone"}, "")
	m := continueRe.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no continuation:\n%s", text)
	}
	var shown int
	fmt.Sscan(m[1], &shown)
	prefix := strings.TrimPrefix(strings.SplitN(text, " [cut at", 2)[0], "notes: ")
	prefix = strings.TrimSuffix(prefix, page.Ellipsis)
	if want := flatten(string([]rune(long)[:shown])); prefix != want {
		t.Errorf("shown prefix is not the first %d chars of the value", shown)
	}
	if !strings.Contains(m[3], fmt.Sprintf(`"offset_chars":%d`, shown)) || !strings.Contains(m[3], `"id":"cin_1/s:r:1"`) {
		t.Errorf("continuation %s", m[3])
	}
	for _, want := range []string{"\nn: 7\n", "\ntags: [\"a\",\"b\"]\n", "\ngone: (not in this record"} {
		if !strings.Contains(text, want) {
			t.Errorf("lacks %q:\n%s", want, text)
		}
	}
}

var continueRe = regexp.MustCompile(`\[cut at (\d+) of (\d+) chars; continue with read_record_field (\{[^}]*\})\]`)

// FuzzPreviewFit: any payload parses or is refused; a parsed one renders
// as JSON equal to its input when nothing is cut, and fit never exceeds
// its room beyond the minimal form.
func FuzzPreviewFit(f *testing.F) {
	f.Add(`{"a":"hello","b":[1,2,{"c":null}],"d":true}`, 40)
	f.Add(`{"s":"line\nbreak \"quoted\" \\ ünï 😀 \u0001"}`, 10)
	f.Add(`[1,2,3]`, 2)
	f.Add(`"just a string"`, 5)
	f.Fuzz(func(t *testing.T, doc string, room int) {
		p, ok := parsePreview(json.RawMessage(doc))
		if !ok {
			return
		}
		var whole bytes.Buffer
		p.render(&whole, previewMaxRunes)
		if !p.longerThan(previewMaxRunes) && !strings.Contains(doc, `"data:`) {
			var in, out any
			if json.Unmarshal([]byte(doc), &in) == nil && json.Unmarshal(whole.Bytes(), &out) != nil {
				t.Fatalf("render is not JSON: %s", whole.String())
			}
		}
		room = room % 4096
		if room < 0 {
			room = -room
		}
		room = max(room, len(p.minimal()))
		if got := p.fit(room); len(got.text) > room {
			t.Fatalf("fit(%d) = %d bytes: %s", room, len(got.text), got.text)
		}
	})
}

func TestShareBudget(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name           string
		natural, floor []int
		room           int
		want           []int
		ok             bool
	}{
		{"all fit whole", []int{10, 20, 30}, []int{5, 5, 5}, 100, []int{10, 20, 30}, true},
		{"long lines cut evenly", []int{10, 100, 100}, []int{5, 5, 5}, 110, []int{10, 50, 50}, true},
		{"floors kept", []int{100, 100}, []int{60, 5}, 100, []int{60, 40}, true},
		{"floors do not fit", []int{100, 100}, []int{60, 60}, 100, nil, false},
		{"empty page", nil, nil, 0, []int{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := shareBudget(tc.natural, tc.floor, tc.room)
			if ok != tc.ok {
				t.Fatalf("ok = %t", ok)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("sizes (-want +got):\n%s", diff)
			}
		})
	}
}

// minimal is the shortest preview minimalLen measures: for an object its
// member count only.
func (p *preview) minimal() string {
	switch {
	case p.kind == 'o' && len(p.kids) == 0 && p.emptied == 0:
		return "{}"
	case p.kind == 'o':
		return "{" + moreFields(0, len(p.kids), p.emptied)
	case p.kind == 'l' && p.lit == "null":
		return ""
	}
	return page.Ellipsis
}
