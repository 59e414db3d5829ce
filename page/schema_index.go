package page

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pdpp/pdpp-mcp/schemaindex"
)

// SchemaIndex renders the schema tool's grant-wide index (or one
// connection's part of it) as the two channels of one page: the text for
// content[] — a header, one line per connector carrying its key, grant,
// connections and every stream name, and the closing hint, its size linear
// in stream names and connectors only — and the same page as
// structuredContent.data.
func SchemaIndex(g schemaindex.GlobalView) (string, SchemaIndexPage) {
	return schemaIndexText(g), schemaIndexPage(g)
}

func schemaIndexText(g schemaindex.GlobalView) string {
	var b strings.Builder
	fmt.Fprintf(&b, "PDPP schema: connectors=%d streams=%d (every granted stream, by connector)\n", g.ConnectorCount, g.StreamCount)
	for _, c := range g.Connectors {
		b.WriteString("connector ")
		b.WriteString(schemaToken(c.ConnectorKey))
		if c.DisplayName != "" {
			b.WriteString(" label=" + schemaLabel(c.DisplayName))
		}
		if c.GrantID != "" {
			b.WriteString(" grant_id=" + schemaToken(c.GrantID))
		}
		b.WriteString(" connections=")
		b.WriteString(schemaConnectionsText(c.Connections, c.ConnectionsOmitted))
		fmt.Fprintf(&b, " streams(%d)=", len(c.Streams))
		for i, s := range c.Streams {
			if i > 0 {
				b.WriteByte('|')
			}
			b.WriteString(schemaToken(s))
		}
		b.WriteByte('\n')
	}
	b.WriteString(g.Hint)
	return b.String()
}

// The page types below are the schema tool's structuredContent.data: the
// same index and stream view as the text, for a model reading JSON. Hosts
// such as Claude Code and Codex hand the model structuredContent instead
// of the text, so each page carries what its text carries — every stream
// name, every argument hint, the legend — as short members whose values
// are the text's own phrases, and nothing the text leaves out.

// SchemaIndexPage is the global index as structuredContent.data.
type SchemaIndexPage struct {
	Connectors []SchemaIndexConnector `json:"connectors"`
	Next       string                 `json:"next"`
}

// SchemaIndexConnector is one connector of the index: its key, grant,
// connections (id → label) and every stream name, joined by | as the text
// joins them (a JSON array would cost two quotes and a comma per name).
type SchemaIndexConnector struct {
	ConnectorKey       string                 `json:"connector_key"`
	Label              string                 `json:"label,omitempty"`
	GrantID            string                 `json:"grant_id,omitempty"`
	Connections        SchemaConnectionLabels `json:"connections"`
	ConnectionsOmitted int                    `json:"connections_omitted,omitempty"`
	Streams            string                 `json:"streams"`
}

func schemaIndexPage(g schemaindex.GlobalView) SchemaIndexPage {
	p := SchemaIndexPage{Connectors: make([]SchemaIndexConnector, len(g.Connectors)), Next: g.Hint}
	for i, c := range g.Connectors {
		p.Connectors[i] = SchemaIndexConnector{ConnectorKey: c.ConnectorKey, Label: c.DisplayName, GrantID: c.GrantID,
			Connections: SchemaConnectionLabels(c.Connections), ConnectionsOmitted: c.ConnectionsOmitted, Streams: strings.Join(c.Streams, "|")}
	}
	return p
}

// SchemaConnectionLabels marshal as {"<connection_id>":"<label>",…} in
// order.
type SchemaConnectionLabels []schemaindex.Connection

// MarshalJSON writes the connections as one ordered object.
func (cs SchemaConnectionLabels) MarshalJSON() ([]byte, error) {
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

// UnmarshalJSON reads {"<connection_id>":"<label>",…} keeping its order.
func (cs *SchemaConnectionLabels) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil { // {
		return err
	}
	*cs = SchemaConnectionLabels{}
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
		*cs = append(*cs, schemaindex.Connection{ID: id, DisplayName: v})
	}
	_, err := dec.Token() // }
	return err
}
