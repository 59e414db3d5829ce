package schemaindex

// MaxGlobalConnections bounds the connections listed per connector in the
// global view; the rest are counted so the result stays bounded even for a
// connector with hundreds of connections.
const MaxGlobalConnections = 12

// GlobalHint closes the global view: the index names streams, the scoped
// call gives everything needed to build arguments.
const GlobalHint = "call schema(stream, connection_id?) for fields with flag legend, filter, sort, fields projection, count, aggregate, expand and search modes"

// GlobalView is the compact global index of the `schema` tool (DESIGN R-4).
// It grows by stream names only: no field detail, each stream list appears
// once (under its connector). The schema page (package page) renders it
// for the model.
type GlobalView struct {
	Object         string            `json:"object"`
	Detail         string            `json:"detail"`
	ConnectorCount int               `json:"connector_count"`
	StreamCount    int               `json:"stream_count"`
	Connectors     []GlobalConnector `json:"connectors"`
	Hint           string            `json:"hint"`
}

// GlobalConnector is one connector of the global index.
type GlobalConnector struct {
	ConnectorKey string       `json:"connector_key"`
	DisplayName  string       `json:"display_name,omitempty"`
	GrantID      string       `json:"grant_id,omitempty"`
	Connections  []Connection `json:"connections"`
	// ConnectionsOmitted counts connections beyond MaxGlobalConnections.
	ConnectionsOmitted int      `json:"connections_omitted,omitempty"`
	Streams            []string `json:"streams"`
}

// Global builds the global index in grant and connector order.
func (ix *Index) Global() GlobalView {
	g := GlobalView{Object: "schema", Detail: "compact", Connectors: []GlobalConnector{}, Hint: GlobalHint}
	for _, c := range ix.connectors {
		gc := GlobalConnector{
			ConnectorKey: c.Key,
			DisplayName:  c.DisplayName,
			GrantID:      c.Source.GrantID,
			Connections:  []Connection{},
			Streams:      make([]string, 0, len(c.Streams)),
		}
		for i, cn := range c.Connections {
			if i == MaxGlobalConnections {
				gc.ConnectionsOmitted = len(c.Connections) - i
				break
			}
			gc.Connections = append(gc.Connections, cn)
		}
		for _, s := range c.Streams {
			gc.Streams = append(gc.Streams, s.Name)
		}
		g.StreamCount += len(gc.Streams)
		g.Connectors = append(g.Connectors, gc)
	}
	g.ConnectorCount = len(g.Connectors)
	return g
}

// Scoped narrows the index to one connection: its connector, that
// connection only, and the streams it carries (schema(connection_id)).
func (g GlobalView) Scoped(src SourceEntry) GlobalView {
	for _, c := range g.Connectors {
		if c.ConnectorKey != src.ConnectorKey || c.GrantID != src.GrantID {
			continue
		}
		c.Connections = []Connection{{ID: src.ConnectionID, DisplayName: src.DisplayName}}
		c.ConnectionsOmitted = 0
		c.Streams = append([]string{}, src.Streams...)
		g.Connectors = []GlobalConnector{c}
		g.ConnectorCount, g.StreamCount = 1, len(c.Streams)
		return g
	}
	return g
}
