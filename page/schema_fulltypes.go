package page

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// schemaMaxTypesLine bounds one stream's type line in SchemaFullTypes, so
// a stream of hundreds of fields cannot flood the text.
const schemaMaxTypesLine = 6000

// SchemaFullTypes renders, from an RS `detail=full` schema document, the
// JSON Schema types line of schema's detail:"full" page (SchemaStream's
// fullTypes): one compact line per stream source with every field's type
// and format — "received_at string/date-time; labels array<string>;
// size_bytes integer|null" — so a model that reads only content[] sees
// what structuredContent holds. A field's own schema
// (field_capabilities.<f>.schema) wins over the stream's
// schema.properties; a field with neither says "type not advertised".
func SchemaFullTypes(body json.RawMessage) (string, error) {
	var doc struct {
		Connectors []struct {
			ConnectorKey string             `json:"connector_key"`
			Streams      []schemaFullStream `json:"streams"`
		} `json:"connectors"`
		Streams []schemaFullStream `json:"streams"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		// The prefix predates this package; the model reads it in the
		// schema tool's invalid_response error, so it stays as it was.
		return "", fmt.Errorf("schemaindex: full schema: %w", err)
	}
	var b strings.Builder
	b.WriteString("json_schema types (field type/format; array<item>; a|null when nullable; \"-\" = type not advertised):")
	n := 0
	write := func(connector string, s schemaFullStream) {
		n++
		fmt.Fprintf(&b, "\n%s", schemaToken(s.Name))
		if connector != "" {
			b.WriteString(" connector_key=" + schemaToken(connector))
		}
		b.WriteString(": " + s.typesLine())
	}
	for _, c := range doc.Connectors {
		for _, s := range c.Streams {
			write(c.ConnectorKey, s)
		}
	}
	if n == 0 {
		for _, s := range doc.Streams {
			write("", s)
		}
	}
	if n == 0 {
		b.WriteString(" no stream in the document")
	}
	return b.String(), nil
}

type schemaFullStream struct {
	Name   string `json:"name"`
	Schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	} `json:"schema"`
	// Values are capability objects in full documents (compact strings
	// elsewhere); only an object's `schema` member is read.
	FieldCapabilities map[string]json.RawMessage `json:"field_capabilities"`
}

// fieldSchema is a field's own JSON Schema from its capability object.
func (s schemaFullStream) fieldSchema(f string) json.RawMessage {
	var c struct {
		Schema json.RawMessage `json:"schema"`
	}
	if json.Unmarshal(s.FieldCapabilities[f], &c) != nil {
		return nil
	}
	return c.Schema
}

// typesLine lists the stream's fields in name order with their types.
func (s schemaFullStream) typesLine() string {
	names := map[string]bool{}
	for f := range s.Schema.Properties {
		names[f] = true
	}
	for f := range s.FieldCapabilities {
		names[f] = true
	}
	sorted := make([]string, 0, len(names))
	for f := range names {
		sorted = append(sorted, f)
	}
	sort.Strings(sorted)
	var b strings.Builder
	for i, f := range sorted {
		schema := s.fieldSchema(f)
		if schemaTypeOf(schema) == "-" {
			schema = s.Schema.Properties[f]
		}
		item := schemaToken(f) + " " + schemaTypeOf(schema)
		if b.Len()+len(item) > schemaMaxTypesLine {
			fmt.Fprintf(&b, "; more:%d fields past the text bound", len(sorted)-i)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(item)
	}
	return b.String()
}

// schemaTypeOf renders one JSON Schema compactly: type (or types joined by |),
// /format, array<items>, enum(n), "-" when the schema says nothing.
func schemaTypeOf(raw json.RawMessage) string {
	var s schemaTypeSummary
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return "-"
	}
	types := s.types()
	if len(types) == 0 {
		if len(s.Enum) > 0 {
			return fmt.Sprintf("enum(%d)", len(s.Enum))
		}
		return "-"
	}
	s.decorate(types)
	out := strings.Join(types, "|")
	if len(s.Enum) > 0 {
		out += fmt.Sprintf(" enum(%d)", len(s.Enum))
	}
	return out
}

// schemaTypeSummary is the part of a JSON Schema schemaTypeOf renders.
type schemaTypeSummary struct {
	Type   json.RawMessage `json:"type"`
	Format string          `json:"format"`
	Items  json.RawMessage `json:"items"`
	Enum   []any           `json:"enum"`
	AnyOf  []json.RawMessage
	OneOf  []json.RawMessage
}

// types returns the declared type (a string or an array of them) or, when
// there is none, the rendered types of the anyOf/oneOf alternatives.
func (s *schemaTypeSummary) types() []string {
	var one string
	if json.Unmarshal(s.Type, &one) == nil && one != "" {
		return []string{one}
	}
	var types []string
	_ = json.Unmarshal(s.Type, &types)
	if len(types) > 0 {
		return types
	}
	for _, alt := range append(s.AnyOf, s.OneOf...) {
		if t := schemaTypeOf(alt); t != "-" {
			types = append(types, t)
		}
	}
	return types
}

// decorate adds the item type to arrays and the format to every other
// non-null type, in place.
func (s *schemaTypeSummary) decorate(types []string) {
	for i, t := range types {
		switch {
		case t == "array" && len(s.Items) > 0:
			types[i] = "array<" + schemaTypeOf(s.Items) + ">"
		case t != "null" && s.Format != "":
			types[i] = t + "/" + s.Format
		}
	}
}
