package rstest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"sort"
	"time"
)

// changesRetention is how long a changes_since token stays usable; older
// tokens answer 410 cursor_expired (a full re-sync is needed).
const changesRetention = 7 * 24 * time.Hour

// changesToken is the decoded changes_since token.
type changesToken struct {
	Kind         string    `json:"kind"`
	Stream       string    `json:"stream"`
	ConnectionID string    `json:"connection_id"`
	At           time.Time `json:"at"`
	ID           string    `json:"id"`
	Issued       int64     `json:"issued"`
}

// changes serves the incremental feed of /records?changes_since=.
func (s *Server) changes(c *call, lr *listReq, cs string) (obj, *apiError) {
	for _, p := range []string{"sort", "count", "order", "window", "expand", "cursor"} {
		if c.q.has(p) {
			return nil, newErr("invalid_request", "changes_since", "changes_since cannot be combined with %s", p)
		}
	}
	if len(lr.sc.targets) > 1 {
		return nil, newErr("invalid_argument", "changes_since",
			"changes_since requires a single connection; retry with `connection_id`").
			with("retry_with", "connection_id").with("available_connections", availableConnections(lr.sc.targets))
	}
	t := &lr.sc.targets[0]
	var from *changeKey
	if cs != "beginning" {
		tok, err := s.decodeChanges(cs, lr.sc.stream, t.conn.ID)
		if err != nil {
			return nil, err
		}
		from = &changeKey{tok.At, tok.ID}
	}
	var list []*rec
	if t.set != nil {
		list = t.set.changes
	}
	start := 0
	if from != nil {
		start = sort.Search(len(list), func(i int) bool { return changeLess(*from, changeKeyOf(list[i])) })
	}
	items := []obj{}
	hasMore := false
	last := from
	for _, r := range list[start:] {
		if !r.Deleted && !admit(t, r, lr.filters) {
			continue
		}
		if len(items) == lr.limit {
			hasMore = true
			break
		}
		if r.Deleted {
			it := obj{{"object", "record"}, {"id", r.ID}, {"stream", r.Stream}, {"data", obj{}},
				{"emitted_at", rfc3339ms(r.EmittedAt)}, {"connection_id", t.conn.ID},
				{"connector_instance_id", t.conn.ID}, {"deleted", true}, {"deleted_at", rfc3339ms(changeKeyOf(r).at)}}
			items = append(items, it)
		} else {
			items = append(items, s.recordItem(t, r, lr.keep))
		}
		k := changeKeyOf(r)
		last = &k
	}
	if last == nil {
		last = &changeKey{}
	}
	tok := s.encodeChanges(lr.sc.stream, t.conn.ID, *last)
	next := ""
	if hasMore {
		next = withParam(c.r.URL.RawQuery, "changes_since", tok)
	}
	body := obj{{"data", items}, {"has_more", hasMore}, {"object", "list"}, {"next_changes_since", tok},
		{"meta", obj{{"count", obj{{"kind", "none"}}}, {"warnings", nonNil(lr.warnings)}}}, {"url", c.r.URL.Path}}
	return s.finishList(c, body, next), nil
}

// encodeChanges mints a standard-base64 changes token after k.
func (s *Server) encodeChanges(stream, conn string, k changeKey) string {
	b, _ := json.Marshal(changesToken{Kind: "changes", Stream: stream, ConnectionID: conn, At: k.at, ID: k.id, Issued: s.opts.Now().Unix()})
	return base64.StdEncoding.EncodeToString(b)
}

// decodeChanges validates a changes token for this stream and connection.
func (s *Server) decodeChanges(raw, stream, conn string) (*changesToken, *apiError) {
	bad := newErr("invalid_cursor", "changes_since", "Invalid changes_since token")
	if len(raw) > maxCursorBytes {
		return nil, bad
	}
	b, err := base64.StdEncoding.DecodeString(raw)
	if err != nil {
		return nil, bad
	}
	var tok changesToken
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if dec.Decode(&tok) != nil || tok.Kind != "changes" || tok.Stream != stream || tok.ConnectionID != conn {
		return nil, bad
	}
	if s.opts.Now().Sub(time.Unix(tok.Issued, 0)) > changesRetention {
		return nil, newErr("cursor_expired", "changes_since", "changes_since token has expired; restart with changes_since=beginning")
	}
	return &tok, nil
}
