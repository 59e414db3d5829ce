package adapter

import (
	"context"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"

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
	kept, ok := res.fitChars(s.cfg.MaxResultBytes - windowWarningRoom)
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

// fitChars reports whether the window fits room bytes in both channels
// (its text, and its structuredContent with the text JSON-escaped), and
// if not, how many of its characters do, at least one.
func (r *windowResult) fitChars(room int) (int, bool) {
	text := r.W.Text
	textLen, jsonLen := len(r.text()), len(marshalNoEscape(r.page(nil)))
	if max(textLen, jsonLen) <= room {
		return 0, true
	}
	// What the two channels take besides the window text; the longer
	// cursors of a shorter window's header are within the slack.
	room -= max(textLen-len(text), jsonLen-page.JSONStringLen(text)) + 64
	kept, used := 0, 0
	for i := 0; i < len(text); {
		w, c := page.JSONRuneCost(text, i)
		if used+max(w, c) > room {
			break
		}
		used += max(w, c)
		i += w
		kept++
	}
	return max(1, kept), false
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

// fieldWindowResult is seed 004's record/field/window/resource document:
// the application/json contents of a field-window resource read. The
// tool's structuredContent is windowPage, the text's own header and window.
type fieldWindowResult struct {
	Record   windowRecord   `json:"record"`
	Field    windowField    `json:"field"`
	Window   windowText     `json:"window"`
	Resource windowResource `json:"resource"`
}

// windowRecord names the record the window reads.
type windowRecord struct {
	ID           string `json:"id"`
	ConnectionID string `json:"connection_id"`
	Stream       string `json:"stream"`
	RecordID     string `json:"record_id"`
}

// windowField describes the field read.
type windowField struct {
	Path      string `json:"path"`
	TextLike  bool   `json:"text_like"` // always true: only text is windowed
	SizeChars int    `json:"size_chars"`
	Type      string `json:"type,omitempty"`
}

// windowText is the window with its range and continuation cursors; a
// cursor is null at the field's edge.
type windowText struct {
	Text           string       `json:"text"`
	StartChars     int          `json:"start_chars"`
	EndChars       int          `json:"end_chars"`
	LimitChars     int          `json:"limit_chars"`
	TotalChars     int          `json:"total_chars"`
	Complete       bool         `json:"complete"`
	NextCursor     *string      `json:"next_cursor"`
	PreviousCursor *string      `json:"previous_cursor"`
	Match          *windowMatch `json:"match,omitempty"`
}

// windowMatch locates the q match inside the field.
type windowMatch struct {
	Q          string `json:"q"`
	StartChars int    `json:"start_chars"`
	EndChars   int    `json:"end_chars"`
}

// windowResource is the window as field-window resource URIs; adjacent
// windows are null at the field's edge.
type windowResource struct {
	URI         string  `json:"uri"`
	NextURI     *string `json:"next_uri"`
	PreviousURI *string `json:"previous_uri"`
}

// structured is the seed 004 document of a resource read.
func (r *windowResult) structured() fieldWindowResult {
	out := fieldWindowResult{
		Record: windowRecord{ID: r.Ref.ID(), ConnectionID: r.Ref.ConnectionID, Stream: r.Ref.Stream, RecordID: r.Ref.RecordID},
		Field:  windowField{Path: r.FieldPath, TextLike: true, SizeChars: r.W.TotalChars, Type: r.FieldType},
		Window: windowText{Text: r.W.Text, StartChars: r.W.StartChars, EndChars: r.W.EndChars, LimitChars: r.W.LimitChars,
			TotalChars: r.W.TotalChars, Complete: r.W.Complete, NextCursor: nullable(r.NextCursor), PreviousCursor: nullable(r.PrevCursor)},
		Resource: windowResource{URI: r.URI, NextURI: nullable(r.NextURI), PreviousURI: nullable(r.PrevURI)},
	}
	if r.Q != "" && r.W.MatchStartChars != nil && r.W.MatchEndChars != nil {
		out.Window.Match = &windowMatch{Q: r.Q, StartChars: *r.W.MatchStartChars, EndChars: *r.W.MatchEndChars}
	}
	return out
}

// windowHeader is the compact JSON line that precedes the window text:
// identity, range, completeness and the exact arguments of the next and
// previous reads.
type windowHeader struct {
	ID              string      `json:"id"`
	FieldPath       string      `json:"field_path"`
	StartChars      int         `json:"start_chars"`
	EndChars        int         `json:"end_chars"`
	TotalChars      int         `json:"total_chars"`
	Complete        bool        `json:"complete"`
	MatchStartChars *int        `json:"match_start_chars,omitempty"`
	Next            *windowCall `json:"next,omitempty"`
	Previous        *windowCall `json:"previous,omitempty"`
}

// windowCall is the read_record_field call that continues a window.
type windowCall struct {
	Tool string         `json:"tool"` // always read_record_field
	Args windowCallArgs `json:"args"`
}

type windowCallArgs struct {
	ID        string `json:"id"`
	FieldPath string `json:"field_path"`
	Cursor    string `json:"cursor"`
}

// header renders the windowHeader line.
func (r *windowResult) header() string { return string(marshalNoEscape(r.headerFacts())) }

// headerFacts are the window's identity, range and continuations.
func (r *windowResult) headerFacts() windowHeader {
	// complete says nothing of the field is left to read after this
	// window: the whole field, or its last window (the RS's complete, the
	// whole field in one window, left a last window saying false with no
	// next call to make).
	done := r.W.Complete || (r.NextCursor == "" && r.W.EndChars >= r.W.TotalChars)
	h := windowHeader{ID: r.Ref.ID(), FieldPath: r.FieldPath, StartChars: r.W.StartChars,
		EndChars: r.W.EndChars, TotalChars: r.W.TotalChars, Complete: done}
	if r.Q != "" {
		h.MatchStartChars = r.W.MatchStartChars
	}
	h.Next, h.Previous = r.continuation(r.NextCursor), r.continuation(r.PrevCursor)
	return h
}

// continuation is the call that reads from cursor; nil without one.
func (r *windowResult) continuation(cursor string) *windowCall {
	if cursor == "" {
		return nil
	}
	return &windowCall{Tool: "read_record_field", Args: windowCallArgs{ID: r.Ref.ID(), FieldPath: r.FieldPath, Cursor: cursor}}
}

func (r *windowResult) text() string { return r.header() + "\n" + r.W.Text }

// windowPage is read_record_field's structuredContent: the text's header
// members (identity, range, completeness, the exact next and previous
// calls), the window text and the warning lines — the same page as the
// text for a model reading JSON.
type windowPage struct {
	windowHeader
	Text     string   `json:"text"`
	Warnings []string `json:"warnings,omitempty"`
}

func (windowPage) toolOutput() {}

// page is the window as structuredContent.
func (r *windowResult) page(warns []warning) windowPage {
	return windowPage{windowHeader: r.headerFacts(), Text: r.W.Text, Warnings: warningLines(warns)}
}

// toolResult renders the window with the call's source warnings. It links
// no resources: the next and previous calls are in both channels, and a
// resource-aware client pages by the URIs its resource read names (links
// would be two more lines a host such as Claude Code hands the model).
func (r *windowResult) toolResult(warns []warning) *mcp.CallToolResult {
	return textResult(withWarnings(r.text(), warns), r.page(warns))
}

// nullable is s, or JSON null when s is empty.
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
