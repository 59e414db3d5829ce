package page

import "encoding/json"

// RecordList is one RS page of records as a record page reads it: the
// records, the RS's paging handles, its count and its warnings. The page
// may change the handles (a page that leaves records for the next call
// resumes at the first of them), so each read gets its own.
type RecordList struct {
	Data             []Record
	HasMore          bool
	NextCursor       string
	NextChangesSince string
	Meta             RecordsMeta
}

// RecordsMeta is what the RS says about a page besides its records.
type RecordsMeta struct {
	Count    Count
	Warnings []Warning
}

// Count is the RS's count of a read: its kind ("exact", "none", …) and
// value, when it gave one.
type Count struct {
	Kind  string
	Value *int64
}

// Record is one record of a read: its identity, provenance, and payload
// (valid JSON, an object unless Deleted).
type Record struct {
	ID           string
	Stream       string
	ConnectionID string
	ConnectorKey string
	DisplayName  string
	EmittedAt    string
	Data         json.RawMessage
	Deleted      bool
	DeletedAt    string
}

// DefaultCeilingBytes is the ceiling of a page read without one: the
// adapter's default result size.
const DefaultCeilingBytes = 11000

// RecordsRead is one query_records read, everything its page is
// rendered from.
type RecordsRead struct {
	// Stream and ConnectionID are the call's; ConnectionID is "" for a
	// page merged across connections.
	Stream, ConnectionID string
	// Fields are the requested fields ("" for all): the page projects
	// the payloads to them again and says which no record carries.
	Fields []string
	List   *RecordList
	// Limit is the page size the RS was asked for (0 when unknown): a
	// fan-in page holds up to Limit records of each connection (D10).
	Limit int
	// Roles are the stream's declared field roles (name → role), which
	// order each record's members.
	Roles map[string]string
	// Bytes bounds both channels of the page before SourceWarnings are
	// added; Resume is the next_cursor of a page that shows only its
	// first shown records (nil: it cannot resume mid-way and shows every
	// record, cut to fit).
	Bytes  int
	Resume func(shown int) string
	// SourceWarnings are the call's warnings about its sources, added to
	// the fitted page as lines and structured members.
	SourceWarnings []Warning
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

// Records renders a query_records page: every record with its fetch id and
// its fields cut evenly to fit, every paging handle, the warnings, and a
// link to the first long text it cuts.
func Records(r RecordsRead) Result {
	p := newRecordPage(r.Stream, r.ConnectionID, r.Fields, r.List, r.Limit, memberRanker{roles: r.Roles},
		resultCeiling{bytes: r.Bytes, resume: r.Resume})
	return result(WithWarnings(p.text(), r.SourceWarnings), p.structured(r.SourceWarnings), p.resourceLinks())
}
