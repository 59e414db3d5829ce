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
	Handle: handleQueryRecords,
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

func handleQueryRecords(ctx context.Context, s *Server, raw json.RawMessage) *mcp.CallToolResult {
	var a queryRecordsArgs
	if e := decodeArgs(raw, &a); e != nil {
		return errorResult(e)
	}
	if e := validateSegments(seg{"grant_id", a.GrantID}); e != nil {
		return errorResult(e)
	}
	ctx = withGrantChoice(ctx, a.GrantID)
	in, e := s.readRecordsInput(&a)
	if e != nil {
		return errorResult(e)
	}
	set, e := s.sources(ctx)
	if e != nil {
		return errorResult(e)
	}
	g, e := set.route(a.Stream, a.ConnectionID)
	if e != nil {
		return set.annotate(errorResult(e))
	}
	if in.prev != nil && in.prev.Grant != grantTag(g) {
		return set.annotate(errorResult(cursorError("cursor", foreignCursorMessage(g, "read"))))
	}
	q := in.query(&a)
	list, _, err := s.rs.Records(ctx, g.Bearer, q)
	if err != nil {
		return set.annotate(errorResult(s.rsRefusal(ctx, set, g, err, refusedRead{tool: "query_records", stream: a.Stream,
			connectionID: a.ConnectionID, filter: in.filter, fields: a.Fields, sort: a.Sort, mayRead: true})))
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
	page := newRecordPage(a.Stream, a.ConnectionID, a.Fields, list, limit, memberRanker{roles: set.ix.FieldRoles(a.Stream, a.ConnectionID)},
		resultCeiling{bytes: max(MinMaxResultBytes, s.cfg.MaxResultBytes-sourceWarningsRoom(set.warns)), resume: resume})
	res := textResult(withWarnings(page.text(), set.warns), page.structured(set.warns))
	res.Content = append(res.Content, page.resourceLinks()...)
	return res
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

// sourceWarningsRoom is what the call's source warnings add to a page
// after it is fitted: a line each in the text, a JSON string each in
// structuredContent's warnings (the larger of the two).
func sourceWarningsRoom(warns []warning) int {
	n := 0
	for _, l := range warningLines(warns) {
		n += max(len(l)+1, page.JSONStringLen(l)+1)
	}
	return n
}
