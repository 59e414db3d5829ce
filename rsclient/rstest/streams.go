package rstest

// streamList serves GET /v1/streams (§2.2): one row per (stream, connection).
func (s *Server) streamList(c *call) (obj, *apiError) {
	connID, w, err := connectionParam(c.q)
	if err != nil {
		return nil, err
	}
	rows := []obj{}
	for _, it := range s.schemaItems(c.p) {
		for _, st := range it.streams {
			for _, cn := range st.conns {
				if connID != "" && cn.ID != connID {
					continue
				}
				t := target{conn: cn, info: st.info, gs: st.gs, set: s.ix.recs[csKey{cn.ID, st.info.decl.Name}]}
				rows = append(rows, s.streamRow(&t))
			}
		}
	}
	body := obj{{"data", rows}, {"has_more", false}, {"object", "list"}}
	if w != nil {
		body = append(body, kv{"meta", obj{{"count", obj{{"kind", "none"}}}, {"warnings", []any{w}}}})
	}
	return s.finishList(c, body, ""), nil
}

// streamRow is one /v1/streams entry.
func (s *Server) streamRow(t *target) obj {
	n := countTarget(t, nil)
	var last any
	fresh := obj{{"status", "unknown"}}
	if at, ok := lastUpdated(t); ok {
		last = rfc3339ms(at)
		fresh = append(fresh, kv{"captured_at", last})
	}
	o := obj{{"last_updated", last}, {"name", t.info.decl.Name}, {"object", "stream"}, {"record_count", n},
		{"connection_id", t.conn.ID}, {"connector_instance_id", t.conn.ID}}
	if t.conn.DisplayName != "" {
		o = append(o, kv{"display_name", t.conn.DisplayName})
	}
	return append(o, kv{"freshness", fresh})
}

// streamMeta serves GET /v1/streams/{stream} (§2.3).
func (s *Server) streamMeta(c *call, stream string) (obj, *apiError) {
	sc, err := s.streamScope(c, stream)
	if err != nil {
		return nil, err
	}
	t := sc.targets[0]
	st := schemaStream{info: s.advertised(c.p, t.info, t.gs), gs: t.gs}
	for _, tt := range sc.targets {
		if tt.info == t.info {
			st.conns = append(st.conns, tt.conn)
		}
	}
	return s.finish(c, s.fullStream(c.p, st, false)), nil
}
