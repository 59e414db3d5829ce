package adapter

import (
	"context"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/page"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

// addResources registers the tier-3 resource templates of seed 004. Reads
// are equivalent to the tools (fetch, read_record_field), bounded, and use
// the caller's own grant: handles name data, they never authorize it.
func (s *Server) addResources() {
	s.mcp.AddResourceTemplate(
		mcp.NewResourceTemplate(contentladder.RecordURIPrefix+"{+handle}", "pdpp-record",
			mcp.WithTemplateTitle("PDPP record"),
			mcp.WithTemplateDescription("One grant-scoped record as a fetch document."),
			mcp.WithTemplateMIMEType("application/json")),
		s.withinCallTimeout(s.readRecordResource))
	s.mcp.AddResourceTemplate(
		mcp.NewResourceTemplate(contentladder.FieldWindowURIPrefix+"{+handle}", "pdpp-field-window",
			mcp.WithTemplateTitle("PDPP record field window"),
			mcp.WithTemplateDescription("One bounded text window of a record field, with next/previous window URIs."),
			mcp.WithTemplateMIMEType("text/plain")),
		s.withinCallTimeout(s.readFieldWindowResource))
}

// resourceRead reads one resource for the transport's request req.
type resourceRead func(ctx context.Context, req Request, r mcp.ReadResourceRequest) ([]mcp.ResourceContents, error)

// withinCallTimeout adapts a resource read to mcp-go: it reads the
// transport's Request and bounds the read as a whole, as a tool call is
// (Waits.Call).
func (s *Server) withinCallTimeout(read resourceRead) server.ResourceTemplateHandlerFunc {
	return func(ctx context.Context, r mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		ctx, cancel := within(ctx, s.cfg.Waits.Call)
		defer cancel()
		return read(ctx, requestOf(ctx), r)
	}
}

func (s *Server) readRecordResource(ctx context.Context, req Request, r mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	uri := r.Params.URI
	ref, _, err := contentladder.ParseID(uri)
	if err != nil {
		return nil, resourceError(ctx, newAdapterError("invalid_handle", err.Error()))
	}
	g, set, te := s.route(ctx, scope{door: req.Grant}, ref.Stream, ref.ConnectionID)
	if te != nil {
		return nil, resourceError(ctx, te)
	}
	rec, _, err := s.rs.Record(ctx, g.Bearer, rsclient.RecordQuery{Stream: ref.Stream, RecordID: ref.RecordID, ConnectionID: ref.ConnectionID})
	if err != nil {
		return nil, resourceError(ctx, s.rsError(set, g, err, ref.Stream, ref.ConnectionID))
	}
	doc := page.Document(page.DocumentRead{RequestedID: ref.ID(), Ref: ref, Record: pageRecord(rec), BaseURL: s.rs.BaseURL()})
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: "application/json", Text: doc.Text}}, nil
}

func (s *Server) readFieldWindowResource(ctx context.Context, req Request, r mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	uri := r.Params.URI
	handle, ok := strings.CutPrefix(uri, contentladder.FieldWindowURIPrefix)
	if !ok {
		return nil, resourceError(ctx, newAdapterError("invalid_handle", "not a pdpp://field-window/ URI"))
	}
	spec, err := contentladder.ParseFieldWindowHandle(handle)
	if err != nil {
		return nil, resourceError(ctx, fromError(err))
	}
	wr := windowRequest{Ref: spec.Ref, FieldPath: spec.FieldPath, Offset: spec.OffsetChars, Limit: spec.LimitChars, LimitSet: spec.LimitChars > 0}
	if wr.Limit <= 0 {
		wr.Limit = defaultWindowChars
	}
	if wr.Limit > maxWindowChars {
		wr.Limit = maxWindowChars
	}
	if spec.HasQ {
		before, after := spec.BeforeChars, spec.AfterChars
		if before == 0 && after == 0 {
			before, after = defaultContextChars, defaultContextChars
		}
		wr.Q, wr.Before, wr.After = spec.Q, &before, &after
	}
	res, _, te := s.readWindow(ctx, scope{door: req.Grant}, wr)
	if te != nil {
		return nil, resourceError(ctx, te)
	}
	w := res.window()
	return []mcp.ResourceContents{
		mcp.TextResourceContents{URI: uri, MIMEType: "text/plain", Text: page.WindowText(w)},
		mcp.TextResourceContents{URI: uri, MIMEType: "application/json", Text: string(page.WindowDocument(w))},
	}, nil
}
