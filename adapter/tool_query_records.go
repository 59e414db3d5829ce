package adapter

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/pdpp/pdpp-mcp/page"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

var queryRecordsTool = toolSpec{
	Name:  "query_records",
	Title: "Query PDPP records",
	Description: "Read one stream's records. Continue with cursor=next_cursor plus the same stream and connection_id " +
		"(the cursor keeps the other arguments). changes_since:\"beginning\" (or a saved next_changes_since) reads changes; " +
		"next_changes_since (last page only) is the bookmark for the next read. " +
		"sort only on a field schema suggests; count:\"exact\" adds a total; fields narrows payloads. " +
		"Shows each record with its fetch id and every paging handle." + wholePage,
	Handle: queryRecordsLogic.handle,
}

type queryRecordsArgs struct {
	Stream       string          `json:"stream"`
	Limit        int             `json:"limit"`
	Cursor       string          `json:"cursor"`
	Order        string          `json:"order"`
	Sort         string          `json:"sort"`
	Count        string          `json:"count"`
	Fields       []string        `json:"fields"`
	Filter       json.RawMessage `json:"filter"`
	View         string          `json:"view"`
	Expand       []string        `json:"expand"`
	ExpandLimit  json.RawMessage `json:"expand_limit"`
	ChangesSince string          `json:"changes_since"`
	ConnectionID string          `json:"connection_id"`
	GrantID      string          `json:"grant_id"`
}

// rsDefaultRecordsLimit is the RS's page size when no limit is sent (the
// input schema says "default 25").
const rsDefaultRecordsLimit = 25

// queryRecordsLogic is query_records' part of a call: one page of one
// stream, routed to the grant that serves it.
var queryRecordsLogic = toolLogic[queryRecordsArgs, recordsInput]{
	check: func(s *Server, a *queryRecordsArgs) (recordsInput, *toolError) {
		if e := validateSegments(seg{"grant_id", a.GrantID}); e != nil {
			return recordsInput{}, e
		}
		return s.readRecordsInput(a)
	},
	grantID: func(a queryRecordsArgs) string { return a.GrantID },
	source:  func(a queryRecordsArgs, _ recordsInput) (string, string) { return a.Stream, a.ConnectionID },
	refused: func(a queryRecordsArgs, in recordsInput) refusedRead {
		return refusedRead{tool: "query_records", stream: a.Stream, connectionID: a.ConnectionID,
			filter: in.filter, fields: a.Fields, sort: a.Sort, mayRead: true}
	},
	run: readRecordsPage,
}

// readRecordsPage reads the page the arguments (or the cursor they
// continue) ask for and renders it with its paging handles.
func readRecordsPage(ctx context.Context, c *routedCall, a queryRecordsArgs, in recordsInput) (*mcp.CallToolResult, *toolError) {
	s, set, g := c.s, c.set, c.grant
	if in.prev != nil && in.prev.Grant != grantTag(g) {
		return nil, cursorError("cursor", foreignCursorMessage(g, "read"))
	}
	q := in.query(&a)
	list, _, err := s.rs.Records(ctx, g.Bearer, q)
	if err != nil {
		return nil, c.refusal(ctx, err)
	}
	skip := in.skip()
	list.Data = list.Data[min(skip, len(list.Data)):]
	s.nextRecordsCursor(list, a, in.prev, g)
	resume := func(shown int) string {
		return s.sealRecordsCursor(recordsCursor{Stream: a.Stream, Conn: a.ConnectionID, Grant: grantTag(g),
			Changes: a.ChangesSince != "" || (in.prev != nil && in.prev.Changes), Shape: a.shape(),
			RS: q.Cursor, Since: q.ChangesSince, Skip: skip + shown})
	}
	limit := a.Limit
	if limit == 0 {
		limit = rsDefaultRecordsLimit
	}
	warns := pageWarnings(set.warns)
	return pageResult(page.Records(page.RecordsRead{Stream: a.Stream, ConnectionID: a.ConnectionID, Fields: a.Fields,
		List: recordList(list), Limit: limit, Roles: set.ix.FieldRoles(a.Stream, a.ConnectionID),
		Bytes: max(MinMaxResultBytes, s.cfg.MaxResultBytes-page.WarningsRoom(warns)), Resume: resume, SourceWarnings: warns})), nil
}

// recordsInput is what query_records understood of its arguments before
// any RS call: the cursor it continues, the filter, the expand limit.
type recordsInput struct {
	prev        *recordsCursor
	filter      rsclient.Filter
	expandLimit []rsclient.ExpandLimit
}

// readRecordsInput checks the ids, opens the cursor and parses the filter
// and expand limit; the first refusal is the answer.
func (s *Server) readRecordsInput(a *queryRecordsArgs) (recordsInput, *toolError) {
	var in recordsInput
	if e := validateSegments(seg{"stream", a.Stream}, seg{"connection_id", a.ConnectionID}); e != nil {
		return in, e
	}
	if a.Cursor != "" {
		c, e := s.openRecordsCursor(a)
		if e != nil {
			return in, e
		}
		in.prev = c
	}
	var e *toolError
	if in.filter, e = parseFilter(a.Filter); e != nil {
		return in, e
	}
	in.expandLimit, e = parseExpandLimit(a.ExpandLimit)
	return in, e
}

// query is the RS read the arguments ask for.
func (in recordsInput) query(a *queryRecordsArgs) rsclient.RecordsQuery {
	q := rsclient.RecordsQuery{
		Stream: a.Stream, Limit: a.Limit, Order: a.Order, Count: a.Count,
		Fields: a.Fields, View: a.View, Expand: a.Expand, ExpandLimit: in.expandLimit,
		ChangesSince: a.ChangesSince, ConnectionID: a.ConnectionID, Filter: in.filter,
	}
	if in.prev != nil {
		// Only the RS's own continuation: a changes_since beside its
		// cursor would restart the session (D3).
		q.Cursor, q.ChangesSince = in.prev.RS, in.prev.Since
	}
	if a.Sort != "" {
		q.Sort = []string{a.Sort}
	}
	return q
}

// skip is how many records of the RS page the cursor's earlier pages
// showed: the RS page a token starts is read again with the same limit
// (openRecordsCursor keeps it), past those records; a larger limit would
// change a fan-in page's merge, and with it which records they are.
func (in recordsInput) skip() int {
	if in.prev == nil {
		return 0
	}
	return in.prev.Skip
}
