package page

// recordsPageResult is query_records' structuredContent: the same page as
// the text, for a model reading JSON. Hosts such as Claude Code and
// Codex hand the model this object instead of the text, so it carries every
// handle, warning and hint the text does, the records with the very same
// fitted values, and nothing more: no REST envelope, no second copy.
type recordsPageResult struct {
	Stream           string `json:"stream"`
	RecordsShown     int    `json:"records_shown"`
	HasMore          bool   `json:"has_more"`
	NextCursor       string `json:"next_cursor,omitempty"`
	NextChangesSince string `json:"next_changes_since,omitempty"`
	Count            string `json:"count,omitempty"` // kind:value, as the text's count=
	ConnectionID     string `json:"connection_id,omitempty"`
	// LimitPerConnection is the text's limit_per_connection: on a fan-in
	// page the RS reads up to this many records of each connection.
	LimitPerConnection int            `json:"limit_per_connection,omitempty"`
	Warnings           []string       `json:"warnings,omitempty"` // the text's warning and note lines
	Legend             string         `json:"legend,omitempty"`   // what a record row holds
	Records            []recordOnPage `json:"records"`
	Cut                string         `json:"cut,omitempty"` // how to read a cut value whole
}

// recordRowLegend says what a record row holds, as the text's legend line
// says what a record line holds.
const recordRowLegend = "records are [fetch id, fields(, deleted_at)]; … marks a cut"

// recordOnPage is one record, written as a row [fetch id, fields] (and the
// tombstone time of a deleted record third): its fields as fitted for the
// page (compact JSON whose cut strings end in … and whose left-out members
// are counted in a "…" member). A row costs what the text's line costs;
// member names on every record would not.
type recordOnPage struct {
	ID        string `json:"id"`
	DeletedAt string `json:"deleted_at,omitempty"`
	Data      string `json:"data"` // JSON written by the page's fit (the fitted text itself: no copy)
}

// structured renders the page for a model reading JSON: the text's header
// facts as members, the text's warning lines, the fitted records and the
// cut hint. warns are the call's source warnings, which the text appends
// as lines too.
func (p *recordPage) structured(warns []Warning) recordsPageResult {
	r := p.structuredHead()
	r.Warnings = append(r.Warnings, WarningLines(warns)...)
	r.Records = make([]recordOnPage, len(p.records))
	for i, rec := range p.records {
		r.Records[i] = recordOnPage{ID: rec.ID, Data: p.fittedJSON(i)}
		if rec.Deleted {
			r.Records[i].DeletedAt = truncateBytes(rec.DeletedAt, 40)
		}
	}
	if p.firstCut != nil {
		r.Cut = p.cutHint(p.firstCut.id, p.firstCut.field)
	}
	return r
}

// structuredHead is the page's members besides its records, the cut hint
// and the call's source warnings: the text header's facts, its warning
// lines and the row legend. The fit measures it, structured fills it.
func (p *recordPage) structuredHead() recordsPageResult {
	r := recordsPageResult{Stream: p.stream, RecordsShown: len(p.records), HasMore: p.list.HasMore,
		NextCursor: p.list.NextCursor, NextChangesSince: p.list.NextChangesSince, Count: p.countFact(),
		ConnectionID: p.connectionID, LimitPerConnection: p.perConnection, Warnings: p.warningLines()}
	if len(p.records) > 0 {
		r.Legend = recordRowLegend
	}
	return r
}

// countFact is the RS count as the text's count= shows it ("" for none).
func (p *recordPage) countFact() string {
	if c := p.list.Meta.Count; c.Kind != "" && c.Kind != "none" && c.Value != nil {
		return c.Kind + ":" + itoa64(*c.Value)
	}
	return ""
}
