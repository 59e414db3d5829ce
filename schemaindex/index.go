package schemaindex

import "slices"

// DefaultCandidateCap bounds Candidates lists (DESIGN R-11: capped at 12).
const DefaultCandidateCap = 12

// SourceEntry is one (grant, connector, connection) of the merged index. A
// connector that reports no connections (owner or provider-native) yields one
// entry with an empty ConnectionID.
type SourceEntry struct {
	GrantKey     string   `json:"-"`
	GrantID      string   `json:"grant_id,omitempty"`
	ConnectorKey string   `json:"connector_key"`
	ConnectionID string   `json:"connection_id,omitempty"`
	DisplayName  string   `json:"display_name,omitempty"`
	Streams      []string `json:"streams"`
}

// Candidate is one entry of an ambiguous_connection / retry_with error.
type Candidate struct {
	GrantID      string `json:"grant_id,omitempty"`
	ConnectorKey string `json:"connector_key"`
	ConnectionID string `json:"connection_id"`
	DisplayName  string `json:"display_name,omitempty"`
}

// Candidates is a bounded candidate list: Total counts every match,
// Omitted = Total - len(Items) when Truncated.
type Candidates struct {
	Items     []Candidate `json:"items"`
	Total     int         `json:"total"`
	Truncated bool        `json:"truncated"`
	Omitted   int         `json:"omitted,omitempty"`
}

// Index is the merged, read-only view of one or more grants' schema Docs.
// It is safe for concurrent readers once built by Merge.
type Index struct {
	connectors []*Connector
	// sources are in grant order, then connector order, then connection order.
	sources []SourceEntry
	// conn[i] is the connector that sources[i] belongs to.
	conn []*Connector
}

// Merge builds an Index from Docs in grant order. Stream names may repeat
// across connectors and connections; nothing is deduplicated across grants
// because each (grant, connection) is a distinct source. Nil docs are skipped.
// The Index shares the Docs' data: do not modify them afterwards.
func Merge(docs ...*Doc) *Index {
	ix := &Index{}
	for _, d := range docs {
		if d == nil {
			continue
		}
		for i := range d.Connectors {
			c := &d.Connectors[i]
			ix.connectors = append(ix.connectors, c)
			ix.addSources(c)
		}
	}
	return ix
}

func (ix *Index) addSources(c *Connector) {
	conns := c.Connections
	if len(conns) == 0 {
		conns = []Connection{{}}
	}
	for _, cn := range conns {
		e := SourceEntry{
			GrantKey:     c.Source.GrantKey,
			GrantID:      c.Source.GrantID,
			ConnectorKey: c.Key,
			ConnectionID: cn.ID,
			DisplayName:  sourceLabel(c, cn),
			Streams:      []string{},
		}
		for _, s := range c.Streams {
			if carries(s, cn.ID) && !slices.Contains(e.Streams, s.Name) {
				e.Streams = append(e.Streams, s.Name)
			}
		}
		ix.sources = append(ix.sources, e)
		ix.conn = append(ix.conn, c)
	}
}

// carries reports whether stream s is served through connection id ("" =
// the connector has no connection list, so every stream counts).
func carries(s Stream, id string) bool {
	if id == "" || len(s.Connections) == 0 {
		return true
	}
	return slices.ContainsFunc(s.Connections, func(c Connection) bool { return c.ID == id })
}

// sourceLabel is the human label of a source: connection label, else the
// connector's display name, else its key.
func sourceLabel(c *Connector, cn Connection) string {
	switch {
	case cn.DisplayName != "":
		return cn.DisplayName
	case c.DisplayName != "":
		return c.DisplayName
	}
	return c.Key
}

// Connection returns the source with connection id, if any grant carries it.
func (ix *Index) Connection(id string) (SourceEntry, bool) {
	if id == "" {
		return SourceEntry{}, false
	}
	for _, e := range ix.sources {
		if e.ConnectionID == id {
			return e, true
		}
	}
	return SourceEntry{}, false
}

// StreamSources returns every (grant, connection) source that carries stream.
func (ix *Index) StreamSources(stream string) []SourceEntry {
	var out []SourceEntry
	for _, e := range ix.sources {
		if slices.Contains(e.Streams, stream) {
			out = append(out, e)
		}
	}
	return out
}

// NeedsConnection reports whether stream resolves to more than one source,
// i.e. source-required reads of it need a connection_id.
func (ix *Index) NeedsConnection(stream string) bool {
	return len(ix.StreamSources(stream)) > 1
}

// GrantStreams returns the distinct stream names granted through grantKey,
// in schema order.
func (ix *Index) GrantStreams(grantKey string) []string {
	var out []string
	for _, c := range ix.connectors {
		if c.Source.GrantKey != grantKey {
			continue
		}
		for _, s := range c.Streams {
			if !slices.Contains(out, s.Name) {
				out = append(out, s.Name)
			}
		}
	}
	return out
}

// Candidates lists the sources carrying stream (every source when stream is
// empty) for ambiguous_connection errors, capped at max (DefaultCandidateCap
// when max <= 0). It is built from membership only: no RS calls.
func (ix *Index) Candidates(stream string, max int) Candidates {
	if max <= 0 {
		max = DefaultCandidateCap
	}
	all := ix.sources
	if stream != "" {
		all = ix.StreamSources(stream)
	}
	out := Candidates{Items: []Candidate{}, Total: len(all)}
	for _, e := range all {
		if len(out.Items) == max {
			out.Truncated = true
			out.Omitted = len(all) - max
			break
		}
		out.Items = append(out.Items, Candidate{
			GrantID: e.GrantID, ConnectorKey: e.ConnectorKey,
			ConnectionID: e.ConnectionID, DisplayName: e.DisplayName,
		})
	}
	return out
}

// TitleField returns the field the schema marks as the record title
// (role primary-title) for stream as served through connectionID, or "".
func (ix *Index) TitleField(stream, connectionID string) string {
	for i, e := range ix.sources {
		if e.ConnectionID != connectionID {
			continue
		}
		for _, s := range ix.conn[i].Streams {
			if s.Name != stream {
				continue
			}
			for _, f := range s.Fields {
				if f.Caps.Role == "primary-title" {
					return f.Name
				}
			}
		}
	}
	return ""
}

// FieldRoles maps the stream's fields that declare a semantic role
// (primary-title, event-time, actor, secondary) to it, for the given
// connection or, without one, the first source that carries the stream.
// Empty when the schema declares no role (the real RS's posture for
// client tokens, D1): callers fall back to what names suggest.
func (ix *Index) FieldRoles(stream, connectionID string) map[string]string {
	for i, e := range ix.sources {
		if connectionID != "" && e.ConnectionID != connectionID {
			continue
		}
		for _, s := range ix.conn[i].Streams {
			if s.Name != stream {
				continue
			}
			roles := map[string]string{}
			for _, f := range s.Fields {
				if f.Caps.Role != "" {
					roles[f.Name] = f.Caps.Role
				} else if f.Caps.Type == "timestamp" {
					roles[f.Name] = "event-time"
				}
			}
			return roles
		}
	}
	return nil
}

// FieldNames lists the stream's field names in schema order, for the given
// connection or, without one, the first source that carries the stream.
// Nil when no source carries it.
func (ix *Index) FieldNames(stream, connectionID string) []string {
	for i, e := range ix.sources {
		if connectionID != "" && e.ConnectionID != connectionID {
			continue
		}
		for _, s := range ix.conn[i].Streams {
			if s.Name != stream {
				continue
			}
			out := make([]string, len(s.Fields))
			for j, f := range s.Fields {
				out[j] = f.Name
			}
			return out
		}
	}
	return nil
}
