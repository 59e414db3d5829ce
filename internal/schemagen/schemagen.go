// Package schemagen generates realistic RS GET /v1/schema bodies for tests
// and byte budgets: deterministic, any number of streams, fields and
// connections, in the compact (flag string) or full (capability object)
// view. It imports nothing of the project, so the schema index's own tests
// can use it, and it writes flag strings itself rather than with the
// parser's formatter, so the index is tested on input it did not produce.
package schemagen

import (
	"encoding/json"
	"fmt"
	"slices"
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

// Connection is one granted connection of the generated grant.
type Connection struct {
	ID, DisplayName string
}

// SchemaBody returns a realistic RS GET /v1/schema body for one client
// grant on connectorKey with the given number of streams, fields per stream
// and connections: flag strings with a connector-level connection set when
// compact, full capability objects with per-stream connections otherwise.
// Output is deterministic.
func SchemaBody(connectorKey string, streams, fields int, connections []Connection, compact bool) []byte {
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
			caps.add(f.name, f.flags())
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

// capability is one declared/usable pair as the RS reports it.
type capability struct {
	declared, usable bool
	reason           string
}

func (f synthField) lexical() capability  { return f.capability(f.lex) }
func (f synthField) semantic() capability { return f.capability(f.sem) }

func (f synthField) capability(declared bool) capability {
	if !declared {
		return capability{}
	}
	c := capability{declared: true, usable: !f.ungranted}
	if f.ungranted {
		c.reason = "field_not_granted"
	}
	return c
}

// flags is the compact view's flag string (the grammar of the RS's
// capability legend: t=, role=, g=false, lex, sem, a=).
func (f synthField) flags() string {
	toks := []string{"t=" + f.typ}
	if f.role != "" {
		toks = append(toks, "role="+f.role)
	}
	if f.ungranted {
		toks = append(toks, "g=false")
	}
	for _, c := range []struct {
		flag string
		cap  capability
	}{{"lex", f.lexical()}, {"sem", f.semantic()}} {
		switch {
		case c.cap.usable:
			toks = append(toks, c.flag)
		case c.cap.declared:
			toks = append(toks, c.flag+"=unusable:"+c.cap.reason)
		}
	}
	if !f.ungranted && len(f.aggs) > 0 {
		toks = append(toks, "a="+strings.Join(f.aggs, "|")) // synthFields list them in canonical order
	}
	return strings.Join(toks, ",")
}

// aggKinds are the RS's aggregation kinds in canonical order.
var aggKinds = []string{"count_distinct", "group_by", "group_by_time", "max", "min", "sum"}

// fullCap renders the full-view FieldCapability object for f.
func fullCap(f synthField) map[string]any {
	capObj := func(x capability) map[string]any {
		m := map[string]any{"declared": x.declared, "usable": x.usable}
		if x.reason != "" {
			m["reason"] = x.reason
		}
		return m
	}
	aggs := map[string]any{}
	for _, k := range aggKinds {
		declared := slices.Contains(f.aggs, k)
		aggs[k] = capObj(capability{declared: declared, usable: declared && !f.ungranted})
	}
	m := map[string]any{
		"type": f.typ, "granted": !f.ungranted, "schema": map[string]any{"type": schemaTypeOf(f.typ)},
		"lexical_search": capObj(f.lexical()), "semantic_search": capObj(f.semantic()), "aggregation": aggs,
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
