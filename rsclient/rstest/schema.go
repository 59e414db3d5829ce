package rstest

import (
	"strings"
	"time"
)

// schemaStream is one stream of one connector item, with the connections
// it is granted under.
type schemaStream struct {
	info  *streamInfo
	gs    *GrantStream
	conns []*Connection
}

// schemaConnector is one connector item before rendering.
type schemaConnector struct {
	c       *Connector
	streams []schemaStream
}

// detailFullNoStream is the reference message (rs-raw-schema-full-nostream).
const detailFullNoStream = "schema detail \"full\" requires `stream`; call /v1/schema?view=compact for global discovery, then /v1/schema?stream=<name>&connection_id=<cin>&detail=full for exhaustive detail."

// schema serves GET /v1/schema (§2.1, §3).
func (s *Server) schema(c *call) (obj, *apiError) {
	view, _ := c.q.one("view")
	compact := strings.EqualFold(strings.TrimSpace(view), "compact")
	detail, _ := c.q.one("detail")
	stream, hasStream := c.q.one("stream")
	connID, hasConn := c.q.one("connection_id")
	full := !compact && strings.EqualFold(strings.TrimSpace(detail), "full")
	if full && stream == "" {
		return nil, newErr("invalid_request", "detail", detailFullNoStream)
	}
	items := s.schemaItems(c.p)
	items = scopeItems(items, stream, hasStream, connID, hasConn)
	if full && !hasConn {
		if err := ambiguousDetail(items, stream); err != nil {
			return nil, err
		}
	}
	rendered := []obj{}
	streamCount := 0
	for _, it := range items {
		rendered = append(rendered, s.renderConnector(c.p, it, compact))
		streamCount += len(it.streams)
	}
	body := obj{{"bearer", schemaBearer(c.p)}, {"connectors", rendered}, {"object", "schema"}}
	if compact {
		body = append(body, kv{"detail", "compact"})
	}
	if compact || hasStream || hasConn {
		body = append(body, kv{"connector_count", len(rendered)}, kv{"stream_count", streamCount})
	}
	return s.finish(c, body), nil
}

// ambiguousDetail refuses detail=full without connection_id when the
// scoped stream resolves to more than one connection, listing them so the
// caller can retry with one.
func ambiguousDetail(items []schemaConnector, stream string) *apiError {
	avail := schemaConnections(items)
	if len(avail) <= 1 {
		return nil
	}
	return newErr("ambiguous_schema_detail", "connection_id",
		"Stream '%s' resolves to more than one connection; retry with `connection_id` for detail=full.", stream).
		with("retry_with", "connection_id").with("available_connections", avail)
}

// schemaConnections lists every (connection, stream) pair of items as the
// ambiguity error's available_connections.
func schemaConnections(items []schemaConnector) []obj {
	var avail []obj
	for _, it := range items {
		for _, st := range it.streams {
			for _, cn := range st.conns {
				o := obj{{"connection_id", cn.ID}, {"connector_key", it.c.Key}, {"stream", st.info.decl.Name}}
				if cn.DisplayName != "" {
					o = append(o, kv{"display_name", cn.DisplayName})
				}
				avail = append(avail, o)
			}
		}
	}
	return avail
}

// schemaBearer describes the token the schema was read with.
func schemaBearer(p *principal) obj {
	if p.owner {
		return obj{{"scope", "owner"}, {"token_kind", "owner"}}
	}
	return obj{{"scope", "grant"}, {"token_kind", "client"}, {"grant_id", p.grant.ID}, {"client_id", p.grant.ClientID}}
}

// schemaItems lists what the principal may see, before scoping: the grant's
// one connector (streams in grant order), or every connector for owners.
func (s *Server) schemaItems(p *principal) []schemaConnector {
	if !p.owner {
		g := p.grant
		it := schemaConnector{c: s.ix.connectors[g.ConnectorKey]}
		for i := range g.Streams {
			gs := &g.Streams[i]
			st := schemaStream{info: s.ix.streams[g.ConnectorKey][gs.Name], gs: gs}
			for _, id := range gs.ConnectionIDs {
				st.conns = append(st.conns, s.ix.connections[id])
			}
			it.streams = append(it.streams, st)
		}
		return []schemaConnector{it}
	}
	var out []schemaConnector
	for _, c := range s.ds.Connectors {
		it := schemaConnector{c: c}
		for i := range c.Streams {
			info := s.ix.streams[c.Key][c.Streams[i].Name]
			it.streams = append(it.streams, schemaStream{info: info, conns: s.ix.connsOf[c.Key]})
		}
		out = append(out, it)
	}
	return out
}

// scopeItems applies the stream and connection_id narrowing; unknown values
// yield no connectors rather than an error.
func scopeItems(items []schemaConnector, stream string, hasStream bool, connID string, hasConn bool) []schemaConnector {
	out := []schemaConnector{}
	for _, it := range items {
		var keep []schemaStream
		for _, st := range it.streams {
			if hasStream && st.info.decl.Name != stream {
				continue
			}
			if hasConn {
				var cs []*Connection
				for _, cn := range st.conns {
					if cn.ID == connID {
						cs = append(cs, cn)
					}
				}
				if cs == nil {
					continue
				}
				st.conns = cs
			}
			keep = append(keep, st)
		}
		if len(keep) > 0 {
			it.streams = keep
			out = append(out, it)
		}
	}
	return out
}

// renderConnector renders one ConnectorItem in the full or compact view.
func (s *Server) renderConnector(p *principal, it schemaConnector, compact bool) obj {
	// A client's grant names its source by registry URI; an owner reads
	// the connector under its canonical key (captures 0090 vs 0144).
	src := it.c.SourceID
	if src == "" || p.owner {
		src = it.c.Key
	}
	lifted := liftConnections(it.streams)
	streams := []obj{}
	for _, st := range it.streams {
		st.info = s.advertised(p, st.info, st.gs)
		if compact {
			streams = append(streams, s.compactStream(p, st, lifted))
		} else {
			streams = append(streams, s.fullStream(p, st, true))
		}
	}
	o := obj{{"object", "connector"}, {"source", obj{{"id", src}, {"kind", "connector"}}},
		{"stream_count", len(it.streams)}, {"streams", streams},
		{"connector_key", it.c.Key}, {"connector_id", it.c.Key}}
	if compact {
		o = append(o, kv{"granted_connections", connRefs(lifted)})
	}
	return o
}

// liftConnections picks the most common granted-connection set.
func liftConnections(streams []schemaStream) []*Connection {
	counts := map[string]int{}
	var best []*Connection
	bestN := 0
	for _, st := range streams {
		k := connSetKey(st.conns)
		counts[k]++
		if counts[k] > bestN {
			bestN, best = counts[k], st.conns
		}
	}
	return best
}

// connSetKey identifies a connection set.
func connSetKey(cs []*Connection) string {
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
	}
	return strings.Join(ids, ",")
}

// connRefs renders granted_connections.
func connRefs(cs []*Connection) []obj {
	out := []obj{}
	for _, c := range cs {
		out = append(out, connRef(c))
	}
	return out
}

// freshness summarises the newest visible record of a stream.
func (s *Server) freshness(st schemaStream) obj {
	var latest time.Time
	for _, cn := range st.conns {
		t := target{conn: cn, info: st.info, gs: st.gs, set: s.ix.recs[csKey{cn.ID, st.info.decl.Name}]}
		if at, ok := lastUpdated(&t); ok && at.After(latest) {
			latest = at
		}
	}
	if latest.IsZero() {
		return obj{{"status", "unknown"}}
	}
	return obj{{"status", "unknown"}, {"captured_at", rfc3339ms(latest)}}
}

// lastUpdated is the newest emitted_at of the target's visible records.
func lastUpdated(t *target) (time.Time, bool) {
	var latest time.Time
	if t.set == nil {
		return latest, false
	}
	for _, r := range t.set.asc {
		if r.EmittedAt.After(latest) && admit(t, r, nil) {
			latest = r.EmittedAt
		}
	}
	return latest, !latest.IsZero()
}
