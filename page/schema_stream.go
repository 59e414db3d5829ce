package page

import (
	"fmt"
	"strings"

	"github.com/pdpp/pdpp-mcp/schemaindex"
)

// SchemaStream renders the schema tool's stream-scoped view as the two
// channels of one page. The text for content[] has the flag legend first,
// then one block per source with every argument the next call needs, in
// the argument syntax of the tools (sort:"-f", fields:[…], filter:{…},
// connection_id:"…"), then the closing notes. fullTypes is the JSON Schema
// types line of detail:"full" (SchemaFullTypes), "" for the compact view:
// the text ends in it and the structured page carries it.
func SchemaStream(v schemaindex.StreamView, fullTypes string) (string, SchemaStreamPage) {
	text := schemaStreamText(v)
	if fullTypes != "" {
		text += "\n" + fullTypes
	}
	p := schemaStreamPage(v)
	p.Types = fullTypes
	return text, p
}

func schemaStreamText(v schemaindex.StreamView) string {
	var b strings.Builder
	fmt.Fprintf(&b, "PDPP schema stream=%s sources=%d", schemaToken(v.Stream), v.SourceCount)
	if v.ConnectionID != "" {
		b.WriteString(" scope connection_id=" + schemaToken(v.ConnectionID))
	}
	b.WriteString("\n" + schemaLegendLine() + "\n")
	for i, s := range v.Sources {
		writeSchemaSource(&b, s, v.Stream, i+1, v.SourceCount)
	}
	for _, n := range schemaStreamNotes(v) {
		b.WriteString(n + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// schemaStreamNotes are the view's closing lines: sources left out, and
// the need for connection_id when the stream has several connections.
func schemaStreamNotes(v schemaindex.StreamView) []string {
	var out []string
	if omitted := v.SourcesOmitted(); omitted > 0 {
		out = append(out, fmt.Sprintf("more_sources=%d: call schema(stream, connection_id) for one source", omitted))
	}
	if v.SeveralConnections() {
		out = append(out, schemaSeveralConnectionsNote(v))
	}
	return out
}

// schemaSeveralConnectionsNote says what connection_id is for on a stream
// with several connections: paging one connection and detail:"full", and
// count_distinct only where a source advertises it (elsewhere naming it
// is a dead end).
func schemaSeveralConnectionsNote(v schemaindex.StreamView) string {
	if v.CountDistinctAdvertised() {
		return `stream has several connections: pass connection_id to page one connection, for count_distinct, or with detail:"full"`
	}
	return `stream has several connections: pass connection_id to page one connection or with detail:"full"`
}

func writeSchemaSource(b *strings.Builder, s schemaindex.StreamSource, stream string, n, total int) {
	fmt.Fprintf(b, "source %d/%d connector_key=%s", n, total, schemaToken(s.ConnectorKey))
	if s.DisplayName != "" {
		b.WriteString(" label=" + schemaLabel(s.DisplayName))
	}
	if s.GrantID != "" {
		b.WriteString(" grant_id=" + schemaToken(s.GrantID))
	}
	if s.TokenKind != "" {
		b.WriteString(" token=" + schemaToken(s.TokenKind))
	}
	b.WriteString(" primary_key=" + schemaPrimaryKeyText(s))
	if s.RecordCount != nil {
		fmt.Fprintf(b, " record_count=%d", *s.RecordCount)
	}
	b.WriteString("\n connection_id: " + schemaConnectionsText(s.Connections, s.ConnectionsOmitted) + "\n")
	b.WriteString(" sort: " + schemaSortText(s, stream) + "\n")
	b.WriteString(" count: " + schemaCountText(s) + "\n")
	fmt.Fprintf(b, " fields(%d): ", s.FieldCount)
	for i, f := range s.Fields {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(schemaToken(f.Name) + "[" + f.Flags + "]")
	}
	if s.FieldsOmitted > 0 {
		fmt.Fprintf(b, "; more:%d", s.FieldsOmitted)
	}
	b.WriteString("\n projection: " + schemaProjectionText(s) + "\n")
	b.WriteString(" filters: " + schemaFiltersText(s) + "\n")
	b.WriteString(" aggregate: " + schemaAggregateText(s, stream) + "\n")
	b.WriteString(" expand: " + schemaExpandText(s) + "\n")
	b.WriteString(" search: " + schemaSearchText(s, stream) + "\n")
}

// SchemaStreamPage is the stream view as structuredContent.data: the
// legend, one entry per source with every argument hint of the text, the
// closing notes, and (detail:"full") the JSON Schema types line.
type SchemaStreamPage struct {
	Stream       string             `json:"stream"`
	ConnectionID string             `json:"connection_id,omitempty"`
	SourceCount  int                `json:"source_count"`
	Legend       string             `json:"legend"`
	Sources      []SchemaSourcePage `json:"sources"`
	Notes        []string           `json:"notes,omitempty"`
	Types        string             `json:"json_schema_types,omitempty"`
}

// SchemaSourcePage is one source of a stream: identity, then the text's
// lines keyed by what they answer.
type SchemaSourcePage struct {
	ConnectorKey       string                 `json:"connector_key"`
	Label              string                 `json:"label,omitempty"`
	GrantID            string                 `json:"grant_id,omitempty"`
	Token              string                 `json:"token,omitempty"`
	PrimaryKey         string                 `json:"primary_key"`
	RecordCount        *int64                 `json:"record_count,omitempty"`
	Connections        SchemaConnectionLabels `json:"connections"`
	ConnectionsOmitted int                    `json:"connections_omitted,omitempty"`
	Sort               string                 `json:"sort"`
	Count              string                 `json:"count"`
	Fields             schemaindex.FieldFlags `json:"fields"`
	FieldCount         int                    `json:"field_count"`
	FieldsOmitted      int                    `json:"fields_omitted,omitempty"`
	Projection         string                 `json:"projection"`
	Filters            string                 `json:"filters"`
	Aggregate          string                 `json:"aggregate"`
	Expand             string                 `json:"expand"`
	Search             string                 `json:"search"`
}

func schemaStreamPage(v schemaindex.StreamView) SchemaStreamPage {
	p := SchemaStreamPage{Stream: v.Stream, ConnectionID: v.ConnectionID, SourceCount: v.SourceCount, Legend: schemaLegendLine(),
		Sources: make([]SchemaSourcePage, len(v.Sources)), Notes: schemaStreamNotes(v)}
	for i, s := range v.Sources {
		p.Sources[i] = SchemaSourcePage{ConnectorKey: s.ConnectorKey, Label: s.DisplayName, GrantID: s.GrantID, Token: s.TokenKind,
			PrimaryKey: schemaPrimaryKeyText(s), RecordCount: s.RecordCount, Connections: SchemaConnectionLabels(s.Connections),
			ConnectionsOmitted: s.ConnectionsOmitted, Sort: schemaSortText(s, v.Stream), Count: schemaCountText(s), Fields: s.Fields,
			FieldCount: s.FieldCount, FieldsOmitted: s.FieldsOmitted, Projection: schemaProjectionText(s), Filters: schemaFiltersText(s),
			Aggregate: schemaAggregateText(s, v.Stream), Expand: schemaExpandText(s), Search: schemaSearchText(s, v.Stream)}
	}
	return p
}
