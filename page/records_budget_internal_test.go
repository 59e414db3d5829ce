package page

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

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
		ceiling := []int{defaultMaxResultBytes, minMaxResultBytes, 30000}[iter%3]
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
	sc := MarshalNoEscape(p.structured(nil))
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
	list := &RecordList{}
	for i := range 5 {
		list.Data = append(list.Data, Record{ID: fmt.Sprint(i), Stream: "s", ConnectionID: "cin_1",
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
	list := &RecordList{HasMore: true, NextCursor: "rs-cursor", NextChangesSince: "rs-bookmark"}
	const n = 30
	for i := range n {
		list.Data = append(list.Data, Record{ID: fmt.Sprintf("%d-%s", i, strings.Repeat("x", 500)), Stream: "s",
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
	if len(text) > defaultMaxResultBytes {
		t.Errorf("text %d B over the ceiling", len(text))
	}
}
