package schemaindex

import (
	"encoding/json"
	"fmt"
	"strings"
)

// synthStreams and synthFields give generated schemas realistic names and
// lengths, so byte budgets measured on them predict real grants.
var synthStreams = []string{
	"messages", "message_bodies", "threads", "labels", "attachments", "contacts",
	"calendar_events", "drafts", "channels", "reactions", "users", "files",
	"repositories", "issues", "pull_requests", "comments", "transactions",
	"accounts", "workouts", "sleep_sessions",
}

type synthField struct {
	name, typ, role     string
	lex, sem, ungranted bool
	aggs                []string
}

var synthFields = []synthField{
	{name: "id", typ: "string"},
	{name: "title", typ: "text", role: "primary-title", lex: true, sem: true},
	{name: "created_at", typ: "string", role: "event-time", aggs: []string{"group_by_time", "max", "min"}},
	{name: "updated_at", typ: "string|null", aggs: []string{"group_by_time", "max", "min"}},
	{name: "author_name", typ: "string|null", lex: true, aggs: []string{"count_distinct", "group_by"}},
	{name: "author_email", typ: "string|null", lex: true},
	{name: "body_text", typ: "string|null", lex: true, sem: true},
	{name: "body_html", typ: "string|null", ungranted: true},
	{name: "size_bytes", typ: "integer|null", aggs: []string{"max", "min", "sum"}},
	{name: "is_read", typ: "boolean", aggs: []string{"group_by"}},
	{name: "tags", typ: "array"},
	{name: "parent_id", typ: "string|null"},
}

// SyntheticSchemaBody returns a realistic RS GET /v1/schema body for one
// client grant on connectorKey with the given number of streams, fields per
// stream and connections: flag strings with a connector-level connection set
// when compact, full capability objects with per-stream connections
// otherwise. Output is deterministic. Tests and byte budgets use it (also
// the adapter's).
func SyntheticSchemaBody(connectorKey string, streams, fields int, connections []Connection, compact bool) []byte {
	var conns []map[string]any
	for _, c := range connections {
		m := map[string]any{"connection_id": c.ID}
		if c.DisplayName != "" {
			m["display_name"] = c.DisplayName
		}
		conns = append(conns, m)
	}
	ss := make([]any, 0, streams)
	for i := range streams {
		name := synthStreams[i%len(synthStreams)]
		if i >= len(synthStreams) {
			name = fmt.Sprintf("%s_%d", name, i/len(synthStreams))
		}
		ss = append(ss, synthStream(name, fields, conns, compact))
	}
	conn := map[string]any{
		"object": "connector", "source": map[string]any{"id": "https://registry.pdpp.dev/connectors/" + connectorKey, "kind": "connector"},
		"stream_count": streams, "streams": ss, "connector_key": connectorKey, "connector_id": connectorKey,
	}
	doc := map[string]any{
		"bearer":     map[string]any{"scope": "grant", "token_kind": "client", "grant_id": "grt_" + connectorKey, "client_id": "cli_synthetic"},
		"connectors": []any{conn}, "object": "schema",
		"links": map[string]any{"self": "/v1/schema"}, "meta": map[string]any{"count": map[string]any{"kind": "none"}, "warnings": []any{}},
	}
	if compact {
		if conns != nil {
			conn["granted_connections"] = conns
		}
		doc["detail"], doc["connector_count"], doc["stream_count"] = "compact", 1, streams
		doc["links"] = map[string]any{"self": "/v1/schema?view=compact"}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err) // only maps of plain values: cannot fail
	}
	return b
}

func synthStream(name string, fields int, conns []map[string]any, compact bool) map[string]any {
	caps := newOrderedObject()
	for j := range fields {
		f := synthFields[j%len(synthFields)]
		if j >= len(synthFields) {
			f.name = fmt.Sprintf("%s_%d", f.name, j/len(synthFields))
			f.role = "" // one title and one event time per stream
		}
		if compact {
			caps.add(f.name, FormatFlags(f.caps()))
		} else {
			caps.add(f.name, fullCap(f))
		}
	}
	s := map[string]any{
		"name": name, "primary_key": []string{"id"}, "cursor_field": "created_at",
		"field_capabilities": caps,
		"expand_capabilities": []any{map[string]any{
			"name": "attachments", "stream": "attachments", "target_stream": "attachments",
			"cardinality": "has_many", "granted": false, "usable": false, "foreign_key": "parent_id",
			"default_limit": 10, "max_limit": 50, "reason": "related_stream_not_granted"}},
	}
	if !compact {
		s["object"] = "stream_metadata"
		s["query"] = map[string]any{"aggregations": map[string]any{"count": true}}
		s["views"] = []any{}
		if conns != nil {
			s["granted_connections"] = conns
		}
	}
	return s
}

func (f synthField) caps() Caps {
	c := Caps{Type: f.typ, Role: f.role, Granted: !f.ungranted}
	if f.lex {
		c.Lexical = Capability{Declared: true, Usable: !f.ungranted, Reason: reasonIf(f.ungranted)}
	}
	if f.sem {
		c.Semantic = Capability{Declared: true, Usable: !f.ungranted, Reason: reasonIf(f.ungranted)}
	}
	if !f.ungranted {
		c.Aggs = f.aggs
	}
	return c
}

func reasonIf(ungranted bool) string {
	if ungranted {
		return "field_not_granted"
	}
	return ""
}

// fullCap renders the full-view FieldCapability object for f.
func fullCap(f synthField) map[string]any {
	c := f.caps()
	capObj := func(x Capability) map[string]any {
		m := map[string]any{"declared": x.Declared, "usable": x.Usable}
		if x.Reason != "" {
			m["reason"] = x.Reason
		}
		return m
	}
	aggs := map[string]any{}
	for _, k := range AggKinds {
		declared := false
		for _, a := range f.aggs {
			declared = declared || a == k
		}
		aggs[k] = capObj(Capability{Declared: declared, Usable: declared && !f.ungranted, Reason: ""})
	}
	m := map[string]any{
		"type": f.typ, "granted": c.Granted, "schema": map[string]any{"type": schemaTypeOf(f.typ)},
		"lexical_search": capObj(c.Lexical), "semantic_search": capObj(c.Semantic), "aggregation": aggs,
	}
	if f.role != "" {
		m["role"] = f.role
	}
	return m
}

// orderedObject marshals as a JSON object keeping insertion order, because
// field order is part of what Parse must preserve.
type orderedObject struct {
	keys []string
	vals []any
}

func newOrderedObject() *orderedObject { return &orderedObject{} }

func (o *orderedObject) add(k string, v any) { o.keys = append(o.keys, k); o.vals = append(o.vals, v) }

// MarshalJSON writes the pairs in insertion order.
func (o *orderedObject) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, k := range o.keys {
		if i > 0 {
			b = append(b, ',')
		}
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(o.vals[i])
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, kb...), ':'), vb...)
	}
	return append(b, '}'), nil
}

// schemaTypeOf renders a "|"-joined union as a JSON Schema type array.
func schemaTypeOf(t string) any {
	if parts := strings.Split(t, "|"); len(parts) > 1 {
		return parts
	}
	return t
}
