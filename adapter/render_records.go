package adapter

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

// Text and structured bounds for record pages.
const (
	recordTextBudget     = 1800 // bytes of content[] text per page
	recordPreviewString  = 120  // runes per string value in the text preview
	structuredStringCap  = 1000 // runes per string value in structuredContent
	maxLadderEntries     = 40   // content_ladder entries per page
	ladderEntriesPerItem = 6
)

// pageRecord is one record as the adapter exposes it.
type pageRecord struct {
	Ref       contentladder.RecordRef
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

	ladderDone    bool
	ladderEntries []contentladder.LadderEntry
}

func newRecordPage(stream, connectionID string, fields []string, list *rsclient.RecordList) *recordPage {
	p := &recordPage{stream: stream, connectionID: connectionID, list: list}
	for _, r := range list.Data {
		conn := r.ConnectionID
		if conn == "" {
			conn = connectionID
		}
		st := r.Stream
		if st == "" {
			st = stream
		}
		p.records = append(p.records, pageRecord{
			Ref:       contentladder.RecordRef{ConnectionID: conn, Stream: st, RecordID: r.ID},
			Display:   r.DisplayName,
			EmittedAt: r.EmittedAt,
			Deleted:   r.Deleted,
			DeletedAt: r.DeletedAt,
			Payload:   project(r.Data, fields),
		})
	}
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

// structured is the machine envelope: bounded records plus paging handles
// and the content ladder for every cut field.
func (p *recordPage) structured() any {
	recs := make([]json.RawMessage, 0, len(p.records))
	for _, r := range p.records {
		recs = append(recs, orderedJSON(r.envelope(contentladder.SanitizeForPreview(r.Payload, structuredStringCap))))
	}
	ladder := p.ladder()
	data := []field{{"object", "list"}, {"stream", p.stream}, {"data", recs}, {"has_more", p.list.HasMore}}
	if p.list.NextCursor != "" {
		data = append(data, field{"next_cursor", p.list.NextCursor})
	}
	if p.list.NextChangesSince != "" {
		data = append(data, field{"next_changes_since", p.list.NextChangesSince})
	}
	if meta := p.meta(); meta != nil {
		data = append(data, field{"meta", meta})
	}
	out := []field{{"data", orderedJSON(data)}}
	if len(ladder) > 0 {
		out = append(out, field{"content_ladder", ladder})
	}
	return orderedJSON(out)
}

// meta keeps the RS count and warnings, nothing else.
func (p *recordPage) meta() json.RawMessage {
	var fields []field
	if c := p.list.Meta.Count; c.Kind != "" && c.Kind != "none" {
		count := []field{{"kind", c.Kind}}
		if c.Value != nil {
			count = append(count, field{"value", *c.Value})
		}
		fields = append(fields, field{"count", orderedJSON(count)})
	}
	if len(p.list.Meta.Warnings) > 0 {
		fields = append(fields, field{"warnings", p.list.Meta.Warnings})
	}
	if len(fields) == 0 {
		return nil
	}
	return orderedJSON(fields)
}

// envelope renders one record with only the declared operational keys
// beside its data — id, record_id, connection_id, stream, display_name,
// emitted_at, deleted, deleted_at: what an agent needs to page, fetch, cite
// and retry (seed 001). Nothing else of the RS envelope survives.
func (r pageRecord) envelope(data json.RawMessage) []field {
	f := []field{{"id", r.Ref.ID()}, {"record_id", r.Ref.RecordID}}
	if r.Ref.ConnectionID != "" {
		f = append(f, field{"connection_id", r.Ref.ConnectionID})
	}
	f = append(f, field{"stream", r.Ref.Stream})
	if r.Display != "" {
		f = append(f, field{"display_name", r.Display})
	}
	if r.EmittedAt != "" {
		f = append(f, field{"emitted_at", r.EmittedAt})
	}
	if r.Deleted {
		f = append(f, field{"deleted", true}, field{"deleted_at", r.DeletedAt})
	}
	return append(f, field{"data", data})
}

// text is the model-visible page: every handle first, then as many record
// previews as fit the byte budget.
func (p *recordPage) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "query_records stream=%s records=%d has_more=%t", p.stream, len(p.records), p.list.HasMore)
	if p.list.NextCursor != "" {
		fmt.Fprintf(&b, " next_cursor=%s", p.list.NextCursor)
	}
	if p.list.NextChangesSince != "" {
		fmt.Fprintf(&b, " next_changes_since=%s", p.list.NextChangesSince)
	}
	if c := p.list.Meta.Count; c.Kind != "" && c.Kind != "none" && c.Value != nil {
		fmt.Fprintf(&b, " count=%s:%d", c.Kind, *c.Value)
	}
	if p.connectionID != "" {
		fmt.Fprintf(&b, " connection_id=%s", p.connectionID)
	}
	for _, w := range p.list.Meta.Warnings {
		b.WriteString("\n" + p.warningLine(w))
	}
	if len(p.records) == 0 {
		return b.String()
	}
	b.WriteString("\nrecords (fetch id, then data; long values cut with …):")
	var cut []string
	for _, r := range p.records {
		if len(cut) == 2 {
			break
		}
		if f := longestCutField(r.Payload, recordPreviewString); f != "" {
			cut = append(cut, fmt.Sprintf(`{"id":%q,"field_path":%q}`, r.Ref.ID(), f))
		}
	}
	var footer string
	if len(cut) > 0 {
		footer = "\nread a cut value in full: read_record_field " + strings.Join(cut, " or ")
	}
	const moreLine = 110 // room for the "shown N of M" line
	shown := 0
	for i, r := range p.records {
		preview := oneLine(string(contentladder.SanitizeForPreview(r.Payload, recordPreviewString)))
		line := fmt.Sprintf("\n%d. %s %s", i+1, r.Ref.ID(), preview)
		if r.Deleted {
			line = fmt.Sprintf("\n%d. %s deleted_at=%s", i+1, r.Ref.ID(), r.DeletedAt)
		}
		room := recordTextBudget - b.Len() - len(footer) - moreLine
		if room < 60 {
			break
		}
		if len(line) > room {
			line = truncateBytes(line, room)
		}
		b.WriteString(line)
		shown++
	}
	if shown < len(p.records) {
		fmt.Fprintf(&b, "\nshown %d of %d; all are in structuredContent.data.data, or narrow with fields/limit", shown, len(p.records))
	}
	b.WriteString(footer)
	return b.String()
}

// warningLine turns RS warnings into instructions; partial fan-in pages get
// the exact way to page.
func (p *recordPage) warningLine(w rsclient.Warning) string {
	if w.Code == "partial_results" {
		conns := p.connections()
		return fmt.Sprintf("warning partial_results: this page merges %d connections and has no next_cursor; to page, repeat with connection_id=%s",
			len(conns), strings.Join(conns, " or connection_id="))
	}
	return "warning " + w.Code + ": " + w.Message
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

// longestCutField names the longest string field the preview cut.
func longestCutField(payload json.RawMessage, limit int) string {
	members, err := orderedObject(payload)
	if err != nil {
		return ""
	}
	best, bestLen := "", limit
	for _, m := range members {
		var s string
		if json.Unmarshal(m.value, &s) != nil {
			continue
		}
		if n := len([]rune(s)); n > bestLen {
			best, bestLen = m.key, n
		}
	}
	return best
}

// truncateBytes cuts s to at most n bytes on a rune boundary, ending in an
// ellipsis when cut.
func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n -= len(contentladder.Ellipsis)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + contentladder.Ellipsis
}

// maxRecordLinks bounds resource_link blocks on a record page.
const maxRecordLinks = 3

// ladder lists the page's cut and binary fields (tier 1), computed once
// and shared by structuredContent and the resource links.
func (p *recordPage) ladder() []contentladder.LadderEntry {
	if p.ladderDone {
		return p.ladderEntries
	}
	p.ladderDone = true
	for _, r := range p.records {
		if len(p.ladderEntries) >= maxLadderEntries || r.Ref.RecordID == "" || r.Ref.Stream == "" {
			break
		}
		// The structured preview shows structuredStringCap-1 runes plus an
		// ellipsis; continuations start right after them.
		p.ladderEntries = append(p.ladderEntries, contentladder.BuildLadder(r.Ref, r.Payload, contentladder.LadderOptions{
			PreviewChars: structuredStringCap - 1, MaxEntries: ladderEntriesPerItem})...)
	}
	if len(p.ladderEntries) > maxLadderEntries {
		p.ladderEntries = p.ladderEntries[:maxLadderEntries]
	}
	return p.ladderEntries
}

// resourceLinks offer resource-aware clients the continuation windows of
// the first cut fields (tier 3); the text and ladder carry the same reads.
func (p *recordPage) resourceLinks() []mcp.Content {
	var out []mcp.Content
	for _, l := range p.ladder() {
		if len(out) == maxRecordLinks {
			break
		}
		if l.Continuation != nil && l.Continuation.ResourceURI != "" {
			out = append(out, mcp.NewResourceLink(l.Continuation.ResourceURI, "rest of "+l.FieldPath+" of "+l.ID,
				fmt.Sprintf("%d chars; window after the preview", l.SizeChars), "text/plain"))
		}
	}
	return out
}
