package adapter

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/page"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

var fetchTool = toolSpec{
	Name:  "fetch",
	Title: "Fetch PDPP record",
	Description: "Fetch one record as a document {id, title, text, url, metadata}. " +
		"id: a search hit id `connection_id/stream:record_id`, legacy `stream:record_id` (add connection_id), " +
		"or a pdpp://record/ URI. fields projects the record first. Long text is cut; " +
		"metadata.next_read gives the exact read_record_field call to continue." + wholePage,
	Handle: fetchLogic.handle,
}

type fetchArgs struct {
	ID           string          `json:"id"`
	Fields       []string        `json:"fields"`
	Expand       []string        `json:"expand"`
	ExpandLimit  json.RawMessage `json:"expand_limit"`
	ConnectionID string          `json:"connection_id"`
	GrantID      string          `json:"grant_id"`
}

// fetchRead is the record a fetch names, checked: its reference (the
// connection reconciled) and the expand limits.
type fetchRead struct {
	ref         contentladder.RecordRef
	expandLimit []rsclient.ExpandLimit
}

// fetchLogic is fetch's part of a call: one record, routed to the grant
// that serves its stream and connection.
var fetchLogic = toolLogic[fetchArgs, fetchRead]{
	check:   checkFetch,
	grantID: func(a fetchArgs) string { return a.GrantID },
	source:  func(_ fetchArgs, r fetchRead) (string, string) { return r.ref.Stream, r.ref.ConnectionID },
	refused: func(a fetchArgs, r fetchRead) refusedRead {
		return refusedRead{tool: "fetch", stream: r.ref.Stream, connectionID: r.ref.ConnectionID, id: a.ID, fields: a.Fields}
	},
	run: fetchRecord,
}

// checkFetch checks grant_id, the id (with connection_id) and the expand
// limits, in that order.
func checkFetch(_ *Server, a *fetchArgs) (fetchRead, *toolError) {
	var r fetchRead
	if e := validateSegments(seg{"grant_id", a.GrantID}); e != nil {
		return r, e
	}
	var te *toolError
	if r.ref, te = resolveRecordID(a.ID, a.ConnectionID); te != nil {
		return r, te
	}
	r.expandLimit, te = parseExpandLimit(a.ExpandLimit)
	return r, te
}

// fetchRecord reads the record and renders it as one document.
func fetchRecord(ctx context.Context, c *routedCall, a fetchArgs, r fetchRead) (*mcp.CallToolResult, *toolError) {
	s, set, ref := c.s, c.set, r.ref
	rec, _, err := s.rs.Record(ctx, c.grant.Bearer, rsclient.RecordQuery{
		Stream: ref.Stream, RecordID: ref.RecordID, ConnectionID: ref.ConnectionID,
		Fields: a.Fields, Expand: a.Expand, ExpandLimit: r.expandLimit,
	})
	if err != nil {
		return nil, c.refusal(ctx, err)
	}
	return pageResult(page.Document(page.DocumentRead{RequestedID: a.ID, Ref: ref, Record: pageRecord(rec), Fields: a.Fields,
		BaseURL: s.rs.BaseURL(), SourceWarnings: pageWarnings(set.warns), Bytes: s.cfg.MaxResultBytes})), nil
}

// resolveRecordID parses a record id argument and reconciles it with an
// explicit connection_id: both may name the connection only if they agree.
func resolveRecordID(id, connectionID string) (contentladder.RecordRef, *toolError) {
	ref, _, err := contentladder.ParseID(id)
	if err != nil {
		return ref, newAdapterError("invalid_id", err.Error(), field{"param", "id"})
	}
	if e := validateSegments(seg{"connection_id", connectionID}); e != nil {
		return ref, e
	}
	switch {
	case ref.ConnectionID != "" && connectionID != "" && ref.ConnectionID != connectionID:
		return ref, newAdapterError("conflicting_connection_id",
			"id embeds connection_id "+quote(ref.ConnectionID)+" but the connection_id argument is "+quote(connectionID)+
				"; pass the id alone or make both agree", field{"param", "connection_id"})
	case ref.ConnectionID == "":
		ref.ConnectionID = connectionID
	}
	return ref, nil
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }
