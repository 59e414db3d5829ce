package page

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pdpp/pdpp-mcp/contentladder"
)

// Structured bounds for record pages.
const (
	maxLadderEntries     = 40 // content_ladder entries per page
	ladderEntriesPerItem = 6
)

// pageRecord is one record as the adapter exposes it.
type pageRecord struct {
	Ref       contentladder.RecordRef
	ID        string // Ref.ID(), the fetch id, built once
	Display   string
	EmittedAt string
	Deleted   bool
	DeletedAt string
	Payload   json.RawMessage // projected to the requested fields
}

// recordPage is one query_records answer, projected and bounded.
type recordPage struct {
	stream, connectionID string
	list                 *RecordList
	records              []pageRecord

	// parsed is each record's payload parsed once (nil when it is not
	// valid JSON or nests too deep); the text, the structured data and the
	// ladder are all rendered from it.
	parsed []*preview

	lines    []string        // one text line per record, fitted by layout
	fitted   []fittedPreview // each record's fields as its line shows them
	firstCut *cutRef         // a cut value, for the footer's example call
	withheld int             // records dropped because not even their ids fit
	absent   []string        // requested fields no record of the page carries
	// perConnection is the limit each connection of a fan-in page was
	// read with (the RS applies limit per connection, D10); 0 otherwise.
	perConnection int
	focus         []string // the fields a cut hint suggests asking for
	ceiling       resultCeiling
	// held is how many records of the RS page this page leaves for the
	// next call to stay within the ceiling (its next_cursor resumes at
	// the first of them).
	held int
}

// newRecordPage builds the page: each payload projected, parsed once and
// its members ordered by rank (what a record is about first), then laid
// out within the budget.
//
// limit is the page size the RS was asked for (0 when unknown): a fan-in
// page of several connections holds up to limit records of each (D10), and
// says so.
//
// ceiling bounds both channels: records that do not fit it with their role
// fields whole are left for the next page (has_more, a next_cursor that
// resumes at the first of them), never cut off mid-way by a host.
func newRecordPage(stream, connectionID string, fields []string, list *RecordList, limit int, rank memberRanker, ceiling resultCeiling) *recordPage {
	if ceiling.bytes <= 0 {
		ceiling.bytes = DefaultCeilingBytes
	}
	p := &recordPage{stream: stream, connectionID: connectionID, list: list, ceiling: ceiling}
	for _, r := range list.Data {
		conn := r.ConnectionID
		if conn == "" {
			conn = connectionID
		}
		st := r.Stream
		if st == "" {
			st = stream
		}
		ref := contentladder.RecordRef{ConnectionID: conn, Stream: st, RecordID: r.ID}
		p.records = append(p.records, pageRecord{
			Ref:       ref,
			ID:        ref.ID(),
			Display:   r.DisplayName,
			EmittedAt: r.EmittedAt,
			Deleted:   r.Deleted,
			DeletedAt: r.DeletedAt,
			Payload:   project(r.Data, fields),
		})
	}
	p.parsed = make([]*preview, len(p.records))
	var arena previewArena
	for i, r := range p.records {
		if pv, ok := arena.parseValid(r.Payload); ok { // rsclient's data, or project's
			rank.order(pv)
			p.parsed[i] = pv
		}
	}
	p.absent = absentFields(fields, p.records)
	p.focus = focusFields(p.parsed, rank)
	if p.fanIn() {
		p.perConnection = limit
	}
	p.layout()
	return p
}

// project keeps only the requested top-level payload fields. The RS is
// asked to project too; doing it again here means nothing unrequested
// leaks even from an RS that ignores `fields`.
func project(payload json.RawMessage, fields []string) json.RawMessage {
	if len(fields) == 0 || len(payload) == 0 {
		return payload
	}
	members, ok := ObjectMembers(payload)
	if !ok {
		return json.RawMessage(`{}`)
	}
	keep := make(map[string]bool, len(fields))
	for _, f := range fields {
		keep[f] = true
	}
	out := []byte{'{'}
	for _, m := range members {
		if keep[m.Key] {
			if len(out) > 1 {
				out = append(out, ',')
			}
			out = AppendJSONString(out, m.Key)
			out = append(append(out, ':'), m.Value...)
		}
	}
	return append(out, '}')
}

// recordLegend introduces the record lines.
const recordLegend = "\nrecords (fetch id, then fields; values cut with …):"

// maxWarningText bounds one RS warning line.
const maxWarningText = 300

// header carries every paging handle and the count.
func (p *recordPage) header() string {
	var b strings.Builder
	fmt.Fprintf(&b, "query_records stream=%s records=%d has_more=%t", p.stream, len(p.records), p.list.HasMore)
	if p.list.NextCursor != "" {
		fmt.Fprintf(&b, " next_cursor=%s", p.list.NextCursor)
	}
	if p.list.NextChangesSince != "" {
		fmt.Fprintf(&b, " next_changes_since=%s", p.list.NextChangesSince)
	}
	if c := p.countFact(); c != "" {
		b.WriteString(" count=" + c)
	}
	if p.connectionID != "" {
		fmt.Fprintf(&b, " connection_id=%s", p.connectionID)
	}
	if p.perConnection > 0 {
		fmt.Fprintf(&b, " limit_per_connection=%d", p.perConnection)
	}
	for _, l := range p.warningLines() {
		b.WriteString("\n" + l)
	}
	return b.String()
}

// warningLines are the page's RS warnings, the note on requested fields no
// record carries, and the withheld-records warning: lines of the text and
// members of structuredContent's warnings alike.
func (p *recordPage) warningLines() []string {
	var out []string
	for _, w := range p.list.Meta.Warnings {
		out = append(out, truncateBytes(p.warningLine(w), maxWarningText))
	}
	if len(p.absent) > 0 {
		out = append(out, truncateBytes("note: no record here carries requested field(s) "+strings.Join(p.absent, ", ")+
			" (not granted to this client, or empty); schema(stream) lists the granted fields", maxWarningText))
	}
	if p.held > 0 {
		out = append(out, fmt.Sprintf("note: %d more records of this RS page did not fit this result (%d bytes at most); "+
			"next_cursor continues with them", p.held, p.ceiling.bytes))
	}
	if p.withheld > 0 {
		out = append(out, fmt.Sprintf("warning text_budget: %d more records of this RS page have ids too long to show here; "+
			"repeat this call with limit=%d to page past them one page at a time", p.withheld, max(1, len(p.records))))
	}
	return out
}

// fittedJSON is record i's fields as JSON: the fitted preview of its line
// (an object stays an object), or a JSON string where the fit of a
// non-object value is not JSON.
func (p *recordPage) fittedJSON(i int) string {
	if i >= len(p.fitted) || p.fitted[i].text == "" {
		return ""
	}
	t := p.fitted[i].text
	if pv := p.parsed[i]; pv != nil && pv.kind == 'o' {
		return t
	}
	if json.Valid([]byte(t)) {
		return t
	}
	return string(AppendJSONString(nil, t))
}

func itoa64(v int64) string { return strconv.FormatInt(v, 10) }

// text is the model-visible page: every handle first, then every record
// of the page with its fetch id and its (cut) fields.
func (p *recordPage) text() string {
	head := p.header()
	if len(p.records) == 0 {
		return head
	}
	var foot string
	if p.firstCut != nil {
		foot = p.cutFooter(p.firstCut.id, p.firstCut.field)
	}
	// One allocation of the page's exact size: grown by doubling, a page
	// of 25 records allocated about twice its bytes.
	n := len(head) + len(recordLegend) + len(foot)
	for _, l := range p.lines {
		n += len(l)
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(head)
	b.WriteString(recordLegend)
	for _, l := range p.lines {
		b.WriteString(l)
	}
	b.WriteString(foot)
	return b.String()
}

// absentFields lists the requested fields that no record of the page
// carries: an RS drops ungranted fields from a projection silently, and a
// model reading only the text should learn why they are missing.
func absentFields(fields []string, records []pageRecord) []string {
	if len(fields) == 0 || len(records) == 0 {
		return nil
	}
	seen := map[string]bool{}
	for _, r := range records {
		members, _ := ObjectMembers(r.Payload)
		for _, m := range members {
			seen[m.Key] = true
		}
	}
	var out []string
	for _, f := range fields {
		if !seen[f] && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// warningLine turns RS warnings into instructions; partial fan-in pages get
// the exact way to page.
func (p *recordPage) warningLine(w Warning) string {
	if w.Code == "partial_results" {
		conns := p.connections()
		each := ""
		if p.perConnection > 0 {
			each = fmt.Sprintf(" (up to %d records each)", p.perConnection)
		}
		return fmt.Sprintf("warning partial_results: this page merges %d connections%s and has no next_cursor; "+
			"to page, repeat this call with connection_id=%s: each gives a next_cursor, passed with the same connection_id",
			len(conns), each, strings.Join(conns, ", then connection_id="))
	}
	return "warning " + w.Code + ": " + w.Message
}

// fanIn reports whether the page merges several connections: no
// connection_id was given, and the RS said so or the records show it.
func (p *recordPage) fanIn() bool {
	if p.connectionID != "" {
		return false
	}
	for _, w := range p.list.Meta.Warnings {
		if w.Code == "partial_results" {
			return true
		}
	}
	return len(p.connections()) > 1
}

func (p *recordPage) connections() []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range p.records {
		if c := r.Ref.ConnectionID; c != "" && !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}
