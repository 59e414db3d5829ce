package rstest

import "encoding/json"

// fullStream renders a stream_metadata entry (§3.2). withConns adds
// granted_connections (absent on GET /v1/streams/{stream}).
func (s *Server) fullStream(p *principal, st schemaStream, withConns bool) obj {
	d := st.info.decl
	o := obj{{"object", "stream_metadata"}, {"name", d.Name}, {"primary_key", nonNilStrings(d.PrimaryKey)}}
	if d.CursorField != "" {
		o = append(o, kv{"cursor_field", d.CursorField})
	}
	if d.ConsentTimeField != "" {
		o = append(o, kv{"consent_time_field", d.ConsentTimeField})
	}
	rels := d.Relationships
	if rels == nil {
		rels = []Relationship{}
	}
	views := d.Views
	if views == nil {
		views = []View{}
	}
	o = append(o, kv{"schema", d.Schema}, kv{"query", d.Query}, kv{"relationships", rels}, kv{"views", views})
	if len(d.Selection) > 0 {
		o = append(o, kv{"selection", json.RawMessage(d.Selection)})
	}
	if d.Semantics != "" {
		o = append(o, kv{"semantics", d.Semantics})
	}
	o = append(o, kv{"freshness", s.freshness(st)})
	if withConns {
		if !p.owner {
			ids := []string{}
			for _, cn := range st.conns {
				ids = append(ids, cn.ID)
			}
			o = append(o, kv{"instance_ids", ids})
		}
		o = append(o, kv{"granted_connections", connRefs(st.conns)})
	}
	caps := map[string]any{}
	for i := range st.info.props {
		pr := &st.info.props[i]
		caps[pr.name] = capsOf(st.info, pr, grantedField(st.gs, pr.name), p.owner).full()
	}
	o = append(o, kv{"field_capabilities", caps}, kv{"expand_capabilities", s.expandCaps(p, st, false)})
	return o
}

// compactStream renders the §3.3 projection of a stream.
func (s *Server) compactStream(p *principal, st schemaStream, lifted []*Connection) obj {
	d := st.info.decl
	o := obj{{"name", d.Name}, {"primary_key", nonNilStrings(d.PrimaryKey)}}
	if d.CursorField != "" {
		o = append(o, kv{"cursor_field", d.CursorField})
	}
	caps := obj{}
	for i := range st.info.props {
		pr := &st.info.props[i]
		caps = append(caps, kv{pr.name, capsOf(st.info, pr, grantedField(st.gs, pr.name), p.owner).compact()})
	}
	o = append(o, kv{"field_capabilities", caps}, kv{"expand_capabilities", s.expandCaps(p, st, true)})
	if connSetKey(st.conns) != connSetKey(lifted) {
		o = append(o, kv{"granted_connections", connRefs(st.conns)})
	}
	return o
}

// expandCaps renders expand_capabilities; compact drops
// child_parent_key_field.
func (s *Server) expandCaps(p *principal, st schemaStream, compact bool) []obj {
	out := []obj{}
	key := st.info.connector.Key
	for _, e := range st.info.decl.Query.Expand {
		var rel *Relationship
		for i := range st.info.decl.Relationships {
			if st.info.decl.Relationships[i].Name == e.Name {
				rel = &st.info.decl.Relationships[i]
			}
		}
		target, card, fk := e.Name, "", ""
		if rel != nil {
			target, card, fk = rel.Stream, rel.Cardinality, rel.ForeignKey
		}
		known := rel != nil && s.ix.streams[key][target] != nil
		granted := known && (p.owner || p.grantStream(target) != nil)
		o := obj{{"name", e.Name}, {"stream", target}, {"target_stream", target}, {"cardinality", card}}
		if !compact {
			o = append(o, kv{"child_parent_key_field", fk})
		}
		o = append(o, kv{"foreign_key", fk})
		if e.DefaultLimit > 0 {
			o = append(o, kv{"default_limit", e.DefaultLimit})
		}
		if e.MaxLimit > 0 {
			o = append(o, kv{"max_limit", e.MaxLimit})
		}
		o = append(o, kv{"granted", granted}, kv{"usable", granted})
		switch {
		case !known:
			o = append(o, kv{"reason", "related_stream_unknown"})
		case !granted:
			o = append(o, kv{"reason", "related_stream_not_granted"})
		}
		out = append(out, o)
	}
	return out
}

// grantedField reports whether a grant stream's projection includes field.
func grantedField(gs *GrantStream, field string) bool {
	return gs == nil || gs.Fields == nil || contains(gs.Fields, field)
}

// nonNilStrings renders nil as [].
func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
