package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

// windowRequest is one validated field-window read, from the tool or from
// a pdpp://field-window/ resource.
type windowRequest struct {
	Ref       contentladder.RecordRef
	FieldPath string
	Cursor    string
	Offset    int
	Limit     int
	LimitSet  bool
	Q         string
	Before    *int
	After     *int
}

// windowResult is a read window with its continuation state.
type windowResult struct {
	Ref                    contentladder.RecordRef
	FieldPath, FieldType   string
	W                      rsclient.Window
	Q                      string
	NextCursor, PrevCursor string
	URI, NextURI, PrevURI  string
}

// revision names the field's current state. The RS exposes no digest, so
// the total length stands in: a cursor minted for a 50,000-char field is
// stale once the field has another length.
func revision(total int) string { return "chars:" + strconv.Itoa(total) }

// readWindow performs the RS field-window read. The RS does the slicing:
// the adapter never loads a whole large field. The source set comes
// back too (nil when it could not be built) so callers can carry its
// warnings.
func (s *Server) readWindow(ctx context.Context, req windowRequest) (*windowResult, *sourceSet, *toolError) {
	g, set, te := s.route(ctx, req.Ref.Stream, req.Ref.ConnectionID)
	if te != nil {
		return nil, set, te
	}
	res, te := s.readRoutedWindow(ctx, set, g, req)
	return res, set, te
}

func (s *Server) readRoutedWindow(ctx context.Context, set *sourceSet, g Grant, req windowRequest) (*windowResult, *toolError) {
	grant := contentladder.GrantHash(g.Bearer)
	var opened *contentladder.Cursor
	if req.Cursor != "" {
		c, err := s.cfg.CursorKey.Open(req.Cursor, contentladder.Binding{Ref: req.Ref, FieldPath: req.FieldPath, GrantHash: grant, Now: s.now()})
		if err != nil {
			return nil, fromError(err)
		}
		opened = &c
		req.Offset = c.OffsetChars
		if !req.LimitSet && c.LimitChars > 0 {
			req.Limit = c.LimitChars
		}
	}
	q := rsclient.FieldWindowQuery{Stream: req.Ref.Stream, RecordID: req.Ref.RecordID, ConnectionID: req.Ref.ConnectionID, Field: req.FieldPath}
	if req.Q != "" {
		q.Q, q.BeforeChars, q.AfterChars = req.Q, req.Before, req.After
		if req.LimitSet {
			q.LimitChars = &req.Limit
		}
	} else {
		q.OffsetChars, q.LimitChars = &req.Offset, &req.Limit
	}
	fw, _, err := s.rs.FieldWindow(ctx, g.Bearer, q)
	if err != nil {
		return nil, s.rsError(set, g, err, req.Ref.Stream, req.Ref.ConnectionID)
	}
	if opened != nil {
		if err := contentladder.CheckDigest(*opened, revision(fw.Window.TotalChars)); err != nil {
			return nil, fromError(err)
		}
	}
	res := &windowResult{Ref: req.Ref, FieldPath: req.FieldPath, FieldType: fw.Field.Type, W: fw.Window, Q: req.Q}
	limit := fw.Window.LimitChars
	if limit <= 0 {
		limit = req.Limit
	}
	seal := func(offset int) string {
		return s.cfg.CursorKey.Seal(contentladder.Cursor{Ref: req.Ref, FieldPath: req.FieldPath, OffsetChars: offset,
			LimitChars: limit, Digest: revision(fw.Window.TotalChars), GrantHash: grant})
	}
	spec := func(offset int) contentladder.WindowSpec {
		return contentladder.WindowSpec{Ref: req.Ref, FieldPath: req.FieldPath, OffsetChars: offset, LimitChars: limit}
	}
	res.URI = contentladder.FieldWindowURI(spec(fw.Window.StartChars))
	if n := fw.Window.NextOffsetChars; n != nil {
		res.NextCursor, res.NextURI = seal(*n), contentladder.FieldWindowURI(spec(*n))
	}
	if p := fw.Window.PreviousOffsetChars; p != nil {
		res.PrevCursor, res.PrevURI = seal(*p), contentladder.FieldWindowURI(spec(*p))
	}
	return res, nil
}

// structured is seed 004's record/field/window/resource document.
func (r *windowResult) structured() []field {
	fieldDoc := []field{{"path", r.FieldPath}, {"text_like", true}, {"size_chars", r.W.TotalChars}}
	if r.FieldType != "" {
		fieldDoc = append(fieldDoc, field{"type", r.FieldType})
	}
	window := []field{{"text", r.W.Text}, {"start_chars", r.W.StartChars}, {"end_chars", r.W.EndChars},
		{"limit_chars", r.W.LimitChars}, {"total_chars", r.W.TotalChars}, {"complete", r.W.Complete},
		{"next_cursor", nullable(r.NextCursor)}, {"previous_cursor", nullable(r.PrevCursor)}}
	if r.Q != "" && r.W.MatchStartChars != nil && r.W.MatchEndChars != nil {
		window = append(window, field{"match", orderedJSON([]field{{"q", r.Q}, {"start_chars", *r.W.MatchStartChars}, {"end_chars", *r.W.MatchEndChars}})})
	}
	return []field{
		{"record", orderedJSON([]field{{"id", r.Ref.ID()}, {"connection_id", r.Ref.ConnectionID}, {"stream", r.Ref.Stream}, {"record_id", r.Ref.RecordID}})},
		{"field", orderedJSON(fieldDoc)},
		{"window", orderedJSON(window)},
		{"resource", orderedJSON([]field{{"uri", r.URI}, {"next_uri", nullable(r.NextURI)}, {"previous_uri", nullable(r.PrevURI)}})},
	}
}

// header is the compact JSON line that precedes the window text: identity,
// range, completeness and the exact arguments of the next and previous reads.
func (r *windowResult) header() string {
	h := []field{{"id", r.Ref.ID()}, {"field_path", r.FieldPath}, {"start_chars", r.W.StartChars},
		{"end_chars", r.W.EndChars}, {"total_chars", r.W.TotalChars}, {"complete", r.W.Complete}}
	if r.W.MatchStartChars != nil && r.Q != "" {
		h = append(h, field{"match_start_chars", *r.W.MatchStartChars})
	}
	if r.NextCursor != "" {
		h = append(h, field{"next", r.continuation(r.NextCursor)})
	}
	if r.PrevCursor != "" {
		h = append(h, field{"previous", r.continuation(r.PrevCursor)})
	}
	return string(orderedJSON(h))
}

func (r *windowResult) continuation(cursor string) json.RawMessage {
	return orderedJSON([]field{{"tool", "read_record_field"},
		{"args", orderedJSON([]field{{"id", r.Ref.ID()}, {"field_path", r.FieldPath}, {"cursor", cursor}})}})
}

func (r *windowResult) text() string { return r.header() + "\n" + r.W.Text }

// toolResult renders the window with resource links to adjacent windows.
func (r *windowResult) toolResult() *mcp.CallToolResult {
	res := textResult(r.text(), orderedJSON(r.structured()))
	for _, l := range []struct{ uri, name string }{{r.NextURI, "next window"}, {r.PrevURI, "previous window"}} {
		if l.uri != "" {
			res.Content = append(res.Content, mcp.NewResourceLink(l.uri, fmt.Sprintf("%s of %s %s", l.name, r.Ref.ID(), r.FieldPath), "", "text/plain"))
		}
	}
	return res
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
