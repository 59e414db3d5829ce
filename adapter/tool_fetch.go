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
	Handle: handleFetch,
}

type fetchArgs struct {
	ID           string          `json:"id"`
	Fields       []string        `json:"fields"`
	Expand       []string        `json:"expand"`
	ExpandLimit  json.RawMessage `json:"expand_limit"`
	ConnectionID string          `json:"connection_id"`
	GrantID      string          `json:"grant_id"`
}

func handleFetch(ctx context.Context, s *Server, raw json.RawMessage) *mcp.CallToolResult {
	var a fetchArgs
	if e := decodeArgs(raw, &a); e != nil {
		return errorResult(e)
	}
	if e := validateSegments(seg{"grant_id", a.GrantID}); e != nil {
		return errorResult(e)
	}
	ctx = withGrantChoice(ctx, a.GrantID)
	ref, te := resolveRecordID(a.ID, a.ConnectionID)
	if te != nil {
		return errorResult(te)
	}
	expandLimit, te := parseExpandLimit(a.ExpandLimit)
	if te != nil {
		return errorResult(te)
	}
	set, te := s.sources(ctx)
	if te != nil {
		return errorResult(te)
	}
	g, te := set.route(ref.Stream, ref.ConnectionID)
	if te != nil {
		return set.annotate(errorResult(te))
	}
	rec, _, err := s.rs.Record(ctx, g.Bearer, rsclient.RecordQuery{
		Stream: ref.Stream, RecordID: ref.RecordID, ConnectionID: ref.ConnectionID,
		Fields: a.Fields, Expand: a.Expand, ExpandLimit: expandLimit,
	})
	if err != nil {
		return set.annotate(errorResult(s.rsRefusal(ctx, set, g, err,
			refusedRead{tool: "fetch", stream: ref.Stream, connectionID: ref.ConnectionID, id: a.ID, fields: a.Fields})))
	}
	return pageResult(page.Document(page.DocumentRead{RequestedID: a.ID, Ref: ref, Record: pageRecord(rec), Fields: a.Fields,
		BaseURL: s.rs.BaseURL(), SourceWarnings: pageWarnings(set.warns), Bytes: s.cfg.MaxResultBytes}))
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
