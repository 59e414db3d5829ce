package rstest

import (
	"bytes"
	"encoding/json"
)

// locate finds the single visible record id in scope (§2.5): 404 when no
// connection has it, 409 ambiguous_connection when several do.
func (s *Server) locate(sc *scope, id string) (*target, *rec, *apiError) {
	var hits []target
	var found []*rec
	for i := range sc.targets {
		t := sc.targets[i]
		if t.set == nil {
			continue
		}
		r := t.set.byID[id]
		if r == nil || !admit(&t, r, nil) {
			continue
		}
		hits = append(hits, t)
		found = append(found, r)
	}
	switch len(hits) {
	case 0:
		return nil, nil, newErr("not_found", "", "Record not found")
	case 1:
		return &hits[0], found[0], nil
	}
	return nil, nil, newErr("ambiguous_connection", "",
		"Record '%s' is present under more than one connection. Retry with `connection_id`.", id).
		with("available_connections", availableConnections(hits)).with("retry_with", "connection_id")
}

// recordDetail serves GET /v1/streams/{stream}/records/{id}.
func (s *Server) recordDetail(c *call, stream, id string) (obj, *apiError) {
	if !c.p.owner {
		if err := c.q.rejectClientExtras(); err != nil {
			return nil, err
		}
	}
	sc, err := s.streamScope(c, stream)
	if err != nil {
		return nil, err
	}
	keep, err := parseProjection(c.q, &sc.targets[0])
	if err != nil {
		return nil, err
	}
	exp, err := s.parseExpand(c, &sc.targets[0])
	if err != nil {
		return nil, err
	}
	t, r, err := s.locate(sc, id)
	if err != nil {
		return nil, err
	}
	ck := t.info.connector.SourceID
	if ck == "" {
		ck = t.info.connector.Key
	}
	// record_json_bytes is the stored record's size, whatever the projection
	// (captures 0126, 0148).
	body := append(append(obj{{"connector_key", ck}}, s.recordItem(t, r, keep)...), kv{"record_json_bytes", compactLen(r.Data)})
	if len(exp) > 0 {
		body = append(body, kv{"expanded", s.expandRecord(t, r, exp)})
	}
	if len(sc.warnings) > 0 {
		body = append(body, kv{"meta", obj{{"count", obj{{"kind", "none"}}}, {"warnings", sc.warnings}}})
	}
	return s.finish(c, body), nil
}

// compactLen is the length of a JSON payload without insignificant space.
func compactLen(raw json.RawMessage) int {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return len(raw)
	}
	return b.Len()
}
