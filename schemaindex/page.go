package schemaindex

import (
	"bytes"
	"encoding/json"
	"strings"
)

// The page types below are the schema tool's structuredContent.data: the
// same index and stream view as Text, for a model reading JSON. Hosts such
// as Claude Code and Codex hand the model structuredContent instead of the
// text, so each page carries what its text carries — every stream name,
// every argument hint, the legend — as short members whose values are the
// text's own phrases, and nothing the text leaves out.

// IndexPage is the global index as structuredContent.data.
type IndexPage struct {
	Connectors []IndexConnector `json:"connectors"`
	Next       string           `json:"next"`
}

// IndexConnector is one connector of the index: its key, grant,
// connections (id → label) and every stream name, joined by | as the text
// joins them (a JSON array would cost two quotes and a comma per name).
type IndexConnector struct {
	ConnectorKey       string           `json:"connector_key"`
	Label              string           `json:"label,omitempty"`
	GrantID            string           `json:"grant_id,omitempty"`
	Connections        ConnectionLabels `json:"connections"`
	ConnectionsOmitted int              `json:"connections_omitted,omitempty"`
	Streams            string           `json:"streams"`
}

// ConnectionLabels marshal as {"<connection_id>":"<label>",…} in order.
type ConnectionLabels []Connection

// MarshalJSON writes the connections as one ordered object.
func (cs ConnectionLabels) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, c := range cs {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(c.ID)
		v, _ := json.Marshal(c.DisplayName)
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}

// Page is the index as structuredContent.data.
func (g GlobalView) Page() IndexPage {
	p := IndexPage{Connectors: make([]IndexConnector, len(g.Connectors)), Next: g.Hint}
	for i, c := range g.Connectors {
		p.Connectors[i] = IndexConnector{ConnectorKey: c.ConnectorKey, Label: c.DisplayName, GrantID: c.GrantID,
			Connections: ConnectionLabels(c.Connections), ConnectionsOmitted: c.ConnectionsOmitted, Streams: strings.Join(c.Streams, "|")}
	}
	return p
}

// StreamPage is the stream view as structuredContent.data: the legend,
// one entry per source with every argument hint of the text, the closing
// notes, and (detail:"full") the JSON Schema types line.
type StreamPage struct {
	Stream       string       `json:"stream"`
	ConnectionID string       `json:"connection_id,omitempty"`
	SourceCount  int          `json:"source_count"`
	Legend       string       `json:"legend"`
	Sources      []SourcePage `json:"sources"`
	Notes        []string     `json:"notes,omitempty"`
	Types        string       `json:"json_schema_types,omitempty"`
}

// SourcePage is one source of a stream: identity, then the text's lines
// keyed by what they answer.
type SourcePage struct {
	ConnectorKey       string           `json:"connector_key"`
	Label              string           `json:"label,omitempty"`
	GrantID            string           `json:"grant_id,omitempty"`
	Token              string           `json:"token,omitempty"`
	PrimaryKey         string           `json:"primary_key"`
	RecordCount        *int64           `json:"record_count,omitempty"`
	Connections        ConnectionLabels `json:"connections"`
	ConnectionsOmitted int              `json:"connections_omitted,omitempty"`
	Sort               string           `json:"sort"`
	Count              string           `json:"count"`
	Fields             FieldFlags       `json:"fields"`
	FieldCount         int              `json:"field_count"`
	FieldsOmitted      int              `json:"fields_omitted,omitempty"`
	Projection         string           `json:"projection"`
	Filters            string           `json:"filters"`
	Aggregate          string           `json:"aggregate"`
	Expand             string           `json:"expand"`
	Search             string           `json:"search"`
}

// Page is the stream view as structuredContent.data.
func (v StreamView) Page() StreamPage {
	p := StreamPage{Stream: v.Stream, ConnectionID: v.ConnectionID, SourceCount: v.SourceCount, Legend: LegendText(),
		Sources: make([]SourcePage, len(v.Sources)), Notes: v.notes()}
	for i, s := range v.Sources {
		p.Sources[i] = SourcePage{ConnectorKey: s.ConnectorKey, Label: s.DisplayName, GrantID: s.GrantID, Token: s.TokenKind,
			PrimaryKey: s.primaryKeyText(), RecordCount: s.RecordCount, Connections: ConnectionLabels(s.Connections),
			ConnectionsOmitted: s.ConnectionsOmitted, Sort: s.sortText(v.Stream), Count: s.countText(), Fields: s.Fields,
			FieldCount: s.FieldCount, FieldsOmitted: s.FieldsOmitted, Projection: s.projectionText(), Filters: s.filtersText(),
			Aggregate: s.aggText(v.Stream), Expand: s.expandText(), Search: s.searchText(v.Stream)}
	}
	return p
}

// UnmarshalJSON reads {"<connection_id>":"<label>",…} keeping its order.
func (cs *ConnectionLabels) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil { // {
		return err
	}
	*cs = ConnectionLabels{}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return err
		}
		var v string
		if err := dec.Decode(&v); err != nil {
			return err
		}
		id, _ := k.(string)
		*cs = append(*cs, Connection{ID: id, DisplayName: v})
	}
	_, err := dec.Token() // }
	return err
}
