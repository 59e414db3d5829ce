package schemaindex

import "slices"

// StreamCover is what one grant gives of one stream: the connections it is
// served through and the fields granted on it.
type StreamCover struct {
	Connections []string
	Fields      []string
}

// Coverage is what one grant gives of a request: per stream, its cover.
type Coverage map[string]StreamCover

// GrantCoverage is what grantKey gives of stream (every stream when
// stream is ""), counting only streams it serves through connectionID
// when that is set. Built from membership and granted fields only.
func (ix *Index) GrantCoverage(grantKey, stream, connectionID string) Coverage {
	cov := Coverage{}
	for _, c := range ix.connectors {
		if c.Source.GrantKey != grantKey {
			continue
		}
		for _, s := range c.Streams {
			if (stream != "" && s.Name != stream) || (connectionID != "" && !carries(s, connectionID)) {
				continue
			}
			sc := cov[s.Name]
			for _, cn := range streamConnections(c, s) {
				if !slices.Contains(sc.Connections, cn) {
					sc.Connections = append(sc.Connections, cn)
				}
			}
			for _, f := range s.Fields {
				if f.Caps.Granted && !slices.Contains(sc.Fields, f.Name) {
					sc.Fields = append(sc.Fields, f.Name)
				}
			}
			cov[s.Name] = sc
		}
	}
	return cov
}

// streamConnections are the connection ids stream s is served through
// (the connector's when the stream lists none).
func streamConnections(c *Connector, s Stream) []string {
	conns := s.Connections
	if len(conns) == 0 {
		conns = c.Connections
	}
	out := make([]string, len(conns))
	for i, cn := range conns {
		out[i] = cn.ID
	}
	return out
}

// Covers reports whether cov gives everything other gives: every stream of
// other, through every connection other serves it through, with every
// field other grants on it.
func (cov Coverage) Covers(other Coverage) bool {
	for name, o := range other {
		c, ok := cov[name]
		if !ok || !subset(o.Connections, c.Connections) || !subset(o.Fields, c.Fields) {
			return false
		}
	}
	return true
}

func subset(small, big []string) bool {
	for _, s := range small {
		if !slices.Contains(big, s) {
			return false
		}
	}
	return true
}

// ServingGrants are the keys of the grants that serve stream (any stream
// when "") through connectionID (any connection when ""), in grant order.
func (ix *Index) ServingGrants(stream, connectionID string) []string {
	var keys []string
	for _, e := range ix.sources {
		if (stream == "" || slices.Contains(e.Streams, stream)) && (connectionID == "" || e.ConnectionID == connectionID) &&
			!slices.Contains(keys, e.GrantKey) {
			keys = append(keys, e.GrantKey)
		}
	}
	return keys
}

// GrantLabels are the labels of grantKey's sources (connection labels,
// else the connector's), without repeats, in index order.
func (ix *Index) GrantLabels(grantKey string) []string {
	var labels []string
	for _, e := range ix.sources {
		if e.GrantKey == grantKey && !slices.Contains(labels, e.DisplayName) {
			labels = append(labels, e.DisplayName)
		}
	}
	return labels
}

// GrantID is the RS grant id of grantKey's schema, "" when unknown.
func (ix *Index) GrantID(grantKey string) string {
	for _, c := range ix.connectors {
		if c.Source.GrantKey == grantKey {
			return c.Source.GrantID
		}
	}
	return ""
}
