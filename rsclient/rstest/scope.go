package rstest

import (
	"strings"
	"time"
)

// target is one connection's stream a request reads.
type target struct {
	conn *Connection
	info *streamInfo
	gs   *GrantStream // nil for owner reads
	set  *recordSet   // nil when the connection has no records of the stream
}

// scope is the set of targets a stream request covers.
type scope struct {
	stream   string
	targets  []target
	all      []target // before connection_id narrowing
	narrowed bool
	warnings []any
}

// streamScope resolves which connections a request for stream reads
// (rs-contract §6): the grant's closed instance list, or for owners every
// connection of every connector declaring the stream; connection_id may
// only narrow it.
func (s *Server) streamScope(c *call, stream string) (*scope, *apiError) {
	sc := &scope{stream: stream}
	var err *apiError
	if c.p.owner {
		sc.all, err = s.ownerTargets(c.q, stream)
	} else {
		sc.all, err = s.grantTargets(c.p, stream)
	}
	if err != nil {
		return nil, err
	}
	sc.targets = sc.all
	connID, w, err := connectionParam(c.q)
	if err != nil {
		return nil, err
	}
	if w != nil {
		sc.warnings = append(sc.warnings, w)
	}
	if connID == "" {
		return sc, nil
	}
	if err := sc.narrow(connID); err != nil {
		return nil, err
	}
	return sc, nil
}

// ownerTargets is an owner's read scope. The reference's owner read scope
// is "polyfill": one connection (connection_id) or one connector
// (connector_id, matched by key or source id); neither is a 400, not a read
// of everything (D12, capture 0159).
func (s *Server) ownerTargets(q *query, stream string) ([]target, *apiError) {
	hint, _ := q.one("connector_id")
	hint = strings.TrimSpace(hint)
	connID, _, _ := connectionParam(q)
	if hint == "" && connID == "" {
		return nil, newErr("invalid_request", "", "connector_id must be a single non-empty string for polyfill owner access")
	}
	var all []target
	for _, key := range s.connectorKeys() {
		info := s.ix.streams[key][stream]
		if info == nil || (hint != "" && hint != key && hint != s.ix.connectors[key].SourceID) {
			continue
		}
		for _, cn := range s.ix.connsOf[key] {
			all = append(all, target{conn: cn, info: info, set: s.ix.recs[csKey{cn.ID, stream}]})
		}
	}
	if all == nil {
		return nil, newErr("not_found", "", "Stream '%s' not found", stream)
	}
	return all, nil
}

// grantTargets is a client's read scope: the grant's closed list of
// connections for the stream.
func (s *Server) grantTargets(p *principal, stream string) ([]target, *apiError) {
	gs := p.grantStream(stream)
	if gs == nil {
		return nil, newErr("grant_stream_not_allowed", "", "Stream '%s' is not authorized by this grant", stream)
	}
	info := s.ix.streams[p.grant.ConnectorKey][stream]
	var all []target
	for _, id := range gs.ConnectionIDs {
		cn := s.ix.connections[id]
		all = append(all, target{conn: cn, info: info, gs: gs, set: s.ix.recs[csKey{id, stream}]})
	}
	return all, nil
}

// narrow keeps only connID's targets; a connection outside the scope is
// connection_not_found rather than an empty read.
func (sc *scope) narrow(connID string) *apiError {
	sc.narrowed = true
	sc.targets = nil
	for _, t := range sc.all {
		if t.conn.ID == connID {
			sc.targets = append(sc.targets, t)
		}
	}
	if len(sc.targets) == 0 {
		return newErr("connection_not_found", "connection_id", "Connection '%s' is not addressable for stream '%s' under this authorization", connID, sc.stream)
	}
	return nil
}

// connectionParam reads connection_id and its deprecated alias.
func connectionParam(q *query) (string, any, *apiError) {
	id, hasID := q.one("connection_id")
	alias, hasAlias := q.one("connector_instance_id")
	switch {
	case hasID && hasAlias && id != alias:
		return "", nil, newErr("invalid_argument", "connector_instance_id", "connection_id and connector_instance_id disagree; send only connection_id")
	case hasAlias && !hasID:
		return alias, warning("deprecated_alias_used", "connector_instance_id", nil,
			"connector_instance_id is deprecated; use connection_id"), nil
	}
	return id, nil, nil
}

// connectorKeys lists connector keys in dataset order.
func (s *Server) connectorKeys() []string {
	out := make([]string, 0, len(s.ds.Connectors))
	for _, c := range s.ds.Connectors {
		out = append(out, c.Key)
	}
	return out
}

// warning builds one meta.warnings entry.
func warning(code, param string, detail any, msg string) obj {
	w := obj{{"code", code}}
	if param != "" {
		w = append(w, kv{"param", param})
	}
	if detail != nil {
		w = append(w, kv{"detail", detail})
	}
	return append(w, kv{"message", msg})
}

// granted reports whether the target's grant projection includes field.
func (t *target) granted(field string) bool {
	if t.gs == nil || t.gs.Fields == nil {
		return true
	}
	for _, f := range t.gs.Fields {
		if f == field {
			return true
		}
	}
	return false
}

// needsPayload reports whether visibility depends on the payload.
func (t *target) needsPayload() bool { return t.gs != nil && t.gs.TimeConstraint != nil }

// inWindow applies the grant time constraint to a payload (nil when
// needsPayload is false).
func (t *target) inWindow(payload map[string]any) bool {
	if !t.needsPayload() {
		return true
	}
	tc := t.gs.TimeConstraint
	v, _ := payload[tc.Field].(string)
	at, ok := parseTime(v)
	if !ok {
		return false
	}
	if since, ok := parseTime(tc.Since); ok && at.Before(since) {
		return false
	}
	if until, ok := parseTime(tc.Until); ok && !at.Before(until) {
		return false
	}
	return true
}

// availableConnections is the 409/400 retry list.
func availableConnections(ts []target) []obj {
	out := make([]obj, 0, len(ts))
	for _, t := range ts {
		out = append(out, connRef(t.conn))
	}
	return out
}

// connRef is {connection_id, display_name?}.
func connRef(cn *Connection) obj {
	o := obj{{"connection_id", cn.ID}}
	if cn.DisplayName != "" {
		o = append(o, kv{"display_name", cn.DisplayName})
	}
	return o
}

// rfc3339ms formats times like the reference (millisecond precision, Z).
func rfc3339ms(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}
