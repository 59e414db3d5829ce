package adapter

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/page"
	"github.com/pdpp/pdpp-mcp/rsclient"
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
	list                 *rsclient.RecordList
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

// resultCeiling is the most bytes one result may take in each channel,
// and how a page that shows fewer records than the RS gave continues.
type resultCeiling struct {
	bytes int
	// resume is the next_cursor of a page that shows only its first
	// shown records: the same RS page again, past those. nil: the page
	// cannot resume mid-way and shows every record (cut to fit).
	resume func(shown int) string
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
func newRecordPage(stream, connectionID string, fields []string, list *rsclient.RecordList, limit int, rank memberRanker, ceiling resultCeiling) *recordPage {
	if ceiling.bytes <= 0 {
		ceiling.bytes = DefaultMaxResultBytes
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
	members, err := orderedObject(payload)
	if err != nil {
		return json.RawMessage(`{}`)
	}
	keep := make(map[string]bool, len(fields))
	for _, f := range fields {
		keep[f] = true
	}
	out := make([]field, 0, len(fields))
	for _, m := range members {
		if keep[m.key] {
			out = append(out, field{m.key, m.value})
		}
	}
	return orderedJSON(out)
}

// recordTextBudget is the content[] byte budget of a page of n records:
// room for the handles plus a share per record.
func recordTextBudget(n int) int { return 2000 + 300*n }

// recordLegend introduces the record lines.
const recordLegend = "\nrecords (fetch id, then fields; values cut with …):"

// maxWarningText bounds one RS warning line.
const maxWarningText = 300

// layout renders every record line so that the whole text fits the page
// budget, cutting long values evenly across the page. Every record shown
// keeps its role fields (title, time, actor, summary) up to roleFloorRunes;
// records past what the result ceiling holds that way are left for the
// next page (held), whose cursor resumes at the first of them. If even the
// bare handles cannot fit (pathologically long ids), the page keeps only
// the records it can show and drops the RS cursors, so paging never passes
// a record the text did not show.
func (p *recordPage) layout() {
	n := len(p.records)
	if n == 0 {
		return
	}
	m := p.measure()
	prefixes, reserved, previews := m.prefixes, m.reserved, m.previews
	natural, floor, bare := m.natural, m.floor, m.bare
	longestID, longestKey := m.longestID, m.longestKey
	// Both channels carry the same fitted values, so the page is fitted to
	// the larger of the two framings: the text's header, legend and footer,
	// or the JSON's members, warnings and cut hint (R-3: the same budget
	// binds both).
	fixed := func() int {
		return max(len(p.header())+len(recordLegend)+len(p.cutFooter(longestID, longestKey)),
			p.structuredFraming(p.cutHint(longestID, longestKey))+linkLineRoom)
	}
	// A page whose budget would pass the ceiling shows the records that
	// fit it, each with its role fields (floor), or as many as the budget
	// formula gives at the ceiling, cut evenly (bare): whichever is more.
	// The rest are held for the next page.
	f := fixed()
	if recordTextBudget(n) > p.ceiling.bytes && p.ceiling.resume != nil {
		if k := p.holdBack(floor, bare, fixed); k < n {
			p.layout()
			return
		}
	}
	// A page that holds records back fills the ceiling; any other keeps
	// to recordTextBudget. Where the role floors do not fit, records are
	// cut evenly down to their bare handles.
	room := min(p.ceiling.bytes, recordTextBudget(n)) - f
	if p.held > 0 {
		room = p.ceiling.bytes - f
	}
	sizes, ok := shareBudget(natural, floor, room)
	if !ok {
		sizes, ok = shareBudget(natural, bare, room)
	}
	if !ok {
		p.withhold(bare, f)
		p.layout()
		return
	}
	p.lines = make([]string, n)
	p.fitted = make([]fittedPreview, n)
	for i, r := range p.records {
		line := prefixes[i]
		if previews[i] != nil {
			fp := previews[i].fit(sizes[i] - reserved[i] - 1)
			p.fitted[i] = fp
			line += " " + fp.text
			p.noteCut(r.ID, previews[i], fp.cut)
		}
		p.lines[i] = line
	}
}

// recordSizes are each record line's prefix and its sizes: the framing
// reserved (the longer of the line's and the JSON record's), the natural
// size, the floor with role fields, and the bare floor (handles and a
// member count); and the longest id and member name, for the cut hint.
type recordSizes struct {
	prefixes                       []string
	reserved, natural, floor, bare []int
	previews                       []*preview
	longestID, longestKey          string
}

// measure sizes every record line of the page.
func (p *recordPage) measure() recordSizes {
	n := len(p.records)
	m := recordSizes{prefixes: make([]string, n), reserved: make([]int, n), previews: make([]*preview, n),
		natural: make([]int, n), floor: make([]int, n), bare: make([]int, n)}
	for i, r := range p.records {
		m.prefixes[i] = "\n" + strconv.Itoa(i+1) + ". " + r.ID
		if r.Deleted {
			m.prefixes[i] += " deleted_at=" + truncateBytes(r.DeletedAt, 40)
		}
		if len(r.ID) > len(m.longestID) {
			m.longestID = r.ID
		}
		m.reserved[i] = max(len(m.prefixes[i]), structuredRecordFraming(r))
		m.natural[i], m.floor[i], m.bare[i] = m.reserved[i], m.reserved[i], m.reserved[i]
		if pv := p.parsed[i]; pv != nil && pv.minimalLen() > 0 {
			m.previews[i] = pv
			m.natural[i] += 1 + pv.size(previewMaxRunes)
			m.floor[i] += 1 + pv.roleFloorLen()
			m.bare[i] += 1 + pv.fitFloorLen()
			if k := pv.longestKey(); len(k) > len(m.longestKey) {
				m.longestKey = k
			}
		}
	}
	return m
}

// holdBack keeps the leading records that fit the ceiling with their role
// fields (floor), or, if more, as many as recordTextBudget gives within
// the ceiling with their bare handles, and leaves the rest for the next
// page: has_more, and a next_cursor that resumes at the first record
// left. The framing is measured with that cursor and note in place. It
// returns the records kept (len(floor) when none are left).
func (p *recordPage) holdBack(floor, bare []int, fixed func() int) int {
	n := len(floor)
	held0 := p.held
	rsCursor, rsSince, rsMore := p.list.NextCursor, p.list.NextChangesSince, p.list.HasMore
	restore := func() {
		p.held = held0
		p.list.NextCursor, p.list.NextChangesSince, p.list.HasMore = rsCursor, rsSince, rsMore
	}
	if sum(floor) <= p.ceiling.bytes-fixed() {
		return n // every record fits with its role fields: nothing to leave
	}
	fits := func(k int) bool {
		p.held = held0 + n - k
		p.list.NextCursor, p.list.NextChangesSince, p.list.HasMore = p.ceiling.resume(k), "", true
		f := p.ceiling.bytes - fixed()
		return sum(floor[:k]) <= f || (recordTextBudget(k) <= p.ceiling.bytes && sum(bare[:k]) <= f)
	}
	for k := n - 1; k > 0; k-- {
		if fits(k) {
			p.records, p.parsed = p.records[:k], p.parsed[:k]
			return k
		}
	}
	restore()
	return n
}

// sum adds up sizes.
func sum(sizes []int) int {
	t := 0
	for _, s := range sizes {
		t += s
	}
	return t
}

// withhold keeps the leading records whose bare handles fit and forgets
// the RS cursors, which point past the records it drops.
func (p *recordPage) withhold(floor []int, fixed int) {
	const note = 200 // the withheld warning line
	k, used := 0, 0
	for k < len(floor)-1 && used+floor[k]+fixed+note <= min(recordTextBudget(k+1), p.ceiling.bytes) {
		used += floor[k]
		k++
	}
	p.withheld += len(p.records) - k
	p.records, p.parsed = p.records[:k], p.parsed[:k]
	p.list.NextCursor, p.list.NextChangesSince, p.list.HasMore = "", "", true
}

// cutRef names one cut value for the footer's example continuation;
// field is "" when no cut value on the page is text.
type cutRef struct{ id, field string }

// noteCut records the page's example cut value: the first cut member that
// is text, since read_record_field reads only text fields (the RS refuses
// a boolean, number or array with field_not_text); until one is seen, the
// first record with any cut, whose footer then names fetch alone.
func (p *recordPage) noteCut(id string, pv *preview, cut []string) {
	if len(cut) == 0 || (p.firstCut != nil && p.firstCut.field != "") {
		return
	}
	for _, name := range cut {
		// The payload's own id repeats the fetch id: any other text first.
		if name != "id" && textMember(pv, name) {
			p.firstCut = &cutRef{id: id, field: name}
			return
		}
	}
	if slices.Contains(cut, "id") && textMember(pv, "id") {
		p.firstCut = &cutRef{id: id, field: "id"}
		return
	}
	if p.firstCut == nil {
		p.firstCut = &cutRef{id: id}
	}
}

// textMember reports whether the object preview's top-level member name
// holds a string (a large base64 value is a binary stub, not a string).
func textMember(pv *preview, name string) bool {
	if pv == nil || pv.kind != 'o' {
		return false
	}
	for i, k := range pv.keys {
		if k == name {
			return pv.kids[i].kind == 's'
		}
	}
	return false
}

// cutFooter is the text's line that tells how to read a cut value whole.
func (p *recordPage) cutFooter(id, fieldName string) string { return "\n" + p.cutHint(id, fieldName) }

// cutHint tells how to read a cut value whole, with exact calls; the text
// and structuredContent carry the same words. It names the fields to ask
// for a narrower page: what the records are about (focus), when known.
func (p *recordPage) cutHint(id, fieldName string) string {
	fields := "[…]"
	if len(p.focus) > 0 {
		b, _ := json.Marshal(p.focus)
		fields = string(b)
	}
	if fieldName == "" {
		return fmt.Sprintf("values ending in … are cut; fetch {\"id\":%s} (any listed id) shows a record whole, "+
			"or ask fewer fields (fields:%s) or a smaller limit", quote(id), fields)
	}
	return fmt.Sprintf("values ending in … are cut; read one whole with read_record_field {\"id\":%s,\"field_path\":%s} "+
		"(any listed id and text field), fetch that id, or ask fewer fields (fields:%s) or a smaller limit", quote(id), quote(truncateBytes(fieldName, 64)), fields)
}

// maxFocusFields bounds the fields a cut hint suggests asking for.
const maxFocusFields = 6

// focusFields are the leading members of the first record with a title,
// time, actor or summary rank: the fields:[…] a too-wide page suggests.
func focusFields(parsed []*preview, rank memberRanker) []string {
	for _, pv := range parsed {
		if pv == nil || pv.kind != 'o' {
			continue
		}
		var out []string
		for _, k := range pv.keys {
			if rank.rank(k) <= rankSummary && len(out) < maxFocusFields {
				out = append(out, truncateBytes(k, 64))
			}
		}
		return out
	}
	return nil
}

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

// structuredRecordFraming is the bytes a record takes in structuredContent
// besides its fitted data: [<id>,<data>(,<deleted_at>)] and a comma.
func structuredRecordFraming(r pageRecord) int {
	n := len(`[,],`) + page.JSONStringLen(r.ID)
	if r.Deleted {
		n += 1 + page.JSONStringLen(truncateBytes(r.DeletedAt, 40))
	}
	return n
}

// structuredFraming is the bytes of structuredContent besides its records'
// framing and data, with the cut hint cut (escaped as JSON writes it).
func (p *recordPage) structuredFraming(cut string) int {
	head := p.structuredHead()
	head.Records = []recordOnPage{}
	return len(head.appendJSON(nil)) + len(`,"cut":`) + page.JSONStringLen(cut)
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
	return string(page.AppendJSONString(nil, t))
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
		members, _ := orderedObject(r.Payload)
		for _, m := range members {
			seen[m.key] = true
		}
	}
	var out []string
	for _, f := range fields {
		if !seen[f] && !contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// warningLine turns RS warnings into instructions; partial fan-in pages get
// the exact way to page.
func (p *recordPage) warningLine(w rsclient.Warning) string {
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

// truncateBytes cuts s to at most n bytes on a rune boundary, ending in an
// ellipsis when cut.
func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n = max(0, n-len(page.Ellipsis))
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + page.Ellipsis
}

// recordLadder lists record i's cut and binary fields (tier 1), at most
// ladderEntriesPerItem. A cut string's continuation starts right after the
// first limit-1 runes and the ellipsis the page shows.
func (p *recordPage) recordLadder(i int) []page.LadderEntry {
	r := p.records[i]
	opt := page.LadderOptions{PreviewChars: p.shownRunes(i), MaxEntries: ladderEntriesPerItem}
	if fields, ok := p.parsed[i].ladderFieldsOf(); ok {
		return page.LadderFromFields(r.Ref, fields, opt)
	}
	return page.BuildLadder(r.Ref, r.Payload, opt)
}

// shownRunes is the runes record i's line shows of a cut string (its
// ladder's PreviewChars).
func (p *recordPage) shownRunes(i int) int {
	shown := previewMaxRunes
	if i < len(p.fitted) && p.fitted[i].limit > 0 {
		shown = p.fitted[i].limit - 1
	}
	return max(1, shown)
}

// linkCandidates counts record i's ladder entries without building them
// and reports whether one may be a linked text; ok is false when the
// record's fields are not known from its parse (its ladder is built).
func (p *recordPage) linkCandidates(i int) (entries int, candidate, ok bool) {
	fields, ok := p.parsed[i].ladderFieldsOf()
	if !ok {
		return 0, false, false
	}
	preview := p.shownRunes(i)
	for _, fi := range fields {
		if entries == ladderEntriesPerItem {
			break
		}
		if page.InLadder(fi, preview) {
			entries++
			candidate = candidate || (fi.Class == page.ClassText && fi.SizeChars >= minLinkedChars)
		}
	}
	return entries, candidate, true
}

// resourceLinks offer resource-aware clients the continuation window of
// the first long text the page cuts (tier 3): one entry is enough, since
// each window's resource read names the next. Claude Code shows every link
// to the model as a line, so a page links once, tersely, and only text
// worth a window: short values cut to fit (ids, addresses) are read whole
// with read_record_field, as the cut hint says. The page's ladder (its
// first maxLadderEntries entries, record by record) is walked only up to
// that first link: building every record's entries cost a quarter of a
// record page's allocations.
func (p *recordPage) resourceLinks() []mcp.Content {
	seen := 0
	for i, r := range p.records {
		if seen >= maxLadderEntries || r.Ref.RecordID == "" || r.Ref.Stream == "" {
			break
		}
		if n, candidate, ok := p.linkCandidates(i); ok && !candidate {
			seen += n // entries counted, none built: no long text here
			continue
		}
		for _, l := range p.recordLadder(i) {
			if seen++; seen > maxLadderEntries {
				return nil
			}
			if l.Continuation != nil && l.Continuation.ResourceURI != "" && l.Class == page.ClassText && l.SizeChars >= minLinkedChars {
				return []mcp.Content{mcp.NewResourceLink(l.Continuation.ResourceURI, "rest of "+truncateBytes(l.FieldPath, 32), "", "text/plain")}
			}
		}
	}
	return nil
}

// minLinkedChars is the shortest cut text a record page links to.
const minLinkedChars = 500

// linkLineRoom is what one resource link costs where a host shows it as a
// line ("[Resource link: <name>] <uri>"): the fit reserves it so the page
// stays within its budget there too.
const linkLineRoom = 240
