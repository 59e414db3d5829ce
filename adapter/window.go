package adapter

import (
	"context"
	"strconv"

	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/page"
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

// windowResult is a read window with its continuation state; the page
// renders it (page.Window).
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
func (s *Server) readWindow(ctx context.Context, sc scope, req windowRequest) (*windowResult, *sourceSet, *toolError) {
	g, set, te := s.route(ctx, sc, req.Ref.Stream, req.Ref.ConnectionID)
	if te != nil {
		return nil, set, te
	}
	res, te := s.readRoutedWindow(ctx, set, g, req)
	return res, set, te
}

// windowWarningRoom is what a window result keeps free for the call's
// source warnings, which are appended after the window is read.
const windowWarningRoom = 600

// readRoutedWindow reads the window, and again shorter from the same
// start when it would pass the result ceiling in either channel (escaped
// or multi-byte text takes several bytes a character): the shorter
// window's next call continues exactly where it stops. Asking the RS
// again, rather than cutting here, keeps every offset in the RS's own
// character count.
func (s *Server) readRoutedWindow(ctx context.Context, set *sourceSet, g Grant, req windowRequest) (*windowResult, *toolError) {
	res, te := s.readWindowOnce(ctx, set, g, req)
	if te != nil {
		return nil, te
	}
	kept, ok := page.FitWindow(res.window(), s.cfg.MaxResultBytes-windowWarningRoom)
	if ok {
		return res, nil
	}
	short := windowRequest{Ref: req.Ref, FieldPath: req.FieldPath, Offset: res.W.StartChars, Limit: kept, LimitSet: true}
	again, te := s.readWindowOnce(ctx, set, g, short)
	if te != nil {
		return nil, te
	}
	if res.Q != "" { // still the window of the match
		again.Q, again.W.MatchStartChars, again.W.MatchEndChars = res.Q, res.W.MatchStartChars, res.W.MatchEndChars
	}
	return again, nil
}

func (s *Server) readWindowOnce(ctx context.Context, set *sourceSet, g Grant, req windowRequest) (*windowResult, *toolError) {
	grant := g.binding()
	var opened *contentladder.Cursor
	if req.Cursor != "" {
		c, err := s.cfg.CursorKey.Open(req.Cursor, contentladder.Binding{Ref: req.Ref, FieldPath: req.FieldPath, Grant: grant, Now: s.now()})
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
			LimitChars: limit, Digest: revision(fw.Window.TotalChars), Grant: grant})
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

// window is the read window as the page renders it.
func (r *windowResult) window() page.Window {
	return page.Window{Ref: r.Ref, FieldPath: r.FieldPath, FieldType: r.FieldType, Q: r.Q,
		Text: r.W.Text, TotalChars: r.W.TotalChars, StartChars: r.W.StartChars, EndChars: r.W.EndChars, LimitChars: r.W.LimitChars,
		Complete: r.W.Complete, MatchStartChars: r.W.MatchStartChars, MatchEndChars: r.W.MatchEndChars,
		NextCursor: r.NextCursor, PrevCursor: r.PrevCursor, URI: r.URI, NextURI: r.NextURI, PrevURI: r.PrevURI}
}
