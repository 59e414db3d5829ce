package adapter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/pdpp/pdpp-mcp/page"
	"strings"

	"github.com/pdpp/pdpp-mcp/rsclient"
)

// maxFilterFields bounds a filter: the RS ANDs fields, and no real query
// needs more than a handful.
const maxFilterFields = 32

// parseFilter turns the typed `filter` argument into an rsclient.Filter,
// keeping the caller's field and operator order (golden query strings and
// RS error messages then match what the model wrote). The input schema has
// already rejected strings; this re-checks shape so a bypassed validator
// still cannot smuggle bracket syntax to the RS.
func parseFilter(raw json.RawMessage) (rsclient.Filter, *toolError) {
	if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
		return nil, nil
	}
	fields, err := orderedObject(raw)
	if err != nil {
		return nil, newAdapterError("invalid_filter", "filter must be a typed object such as {\"field\": \"value\"} or {\"field\": {\"gte\": 1}}")
	}
	if len(fields) == 0 {
		return nil, newAdapterError("invalid_filter", "filter must name at least one field; omit it to read unfiltered")
	}
	if len(fields) > maxFilterFields {
		return nil, newAdapterError("invalid_filter", fmt.Sprintf("filter has %d fields; at most %d are accepted", len(fields), maxFilterFields))
	}
	out := make(rsclient.Filter, 0, len(fields))
	for _, f := range fields {
		ff, te := parseFilterField(f)
		if te != nil {
			return nil, te
		}
		out = append(out, ff)
	}
	return out, nil
}

// parseFilterField parses one filter member: a plain field name with a
// scalar to match or a range object.
func parseFilterField(f kv) (rsclient.FilterField, *toolError) {
	if f.key == "" || strings.ContainsAny(f.key, "[]") {
		return rsclient.FilterField{}, newAdapterError("invalid_filter", fmt.Sprintf("filter field %q must be a plain field name from schema, not bracket syntax", f.key))
	}
	trimmed := bytes.TrimSpace(f.value)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return parseFilterRange(f.key, trimmed)
	}
	v, ok := scalarValue(trimmed)
	if !ok {
		return rsclient.FilterField{}, newAdapterError("invalid_filter", fmt.Sprintf("filter %q must be a string, number, boolean or a range object", f.key))
	}
	return rsclient.FilterField{Field: f.key, Value: v}, nil
}

// parseFilterRange parses the range object of field key: one or more
// bounds gte, gt, lte, lt, each a scalar, kept in the caller's order.
func parseFilterRange(key string, raw json.RawMessage) (rsclient.FilterField, *toolError) {
	ops, err := orderedObject(raw)
	if err != nil || len(ops) == 0 {
		return rsclient.FilterField{}, newAdapterError("invalid_filter", fmt.Sprintf("filter range on %q needs at least one of gte, gt, lte, lt", key))
	}
	ff := rsclient.FilterField{Field: key}
	for _, op := range ops {
		switch op.key {
		case "gte", "gt", "lte", "lt":
		default:
			return rsclient.FilterField{}, newAdapterError("invalid_filter", fmt.Sprintf("unsupported range operator %q on %q; use gte, gt, lte or lt", op.key, key))
		}
		v, ok := scalarValue(op.value)
		if !ok {
			return rsclient.FilterField{}, newAdapterError("invalid_filter", fmt.Sprintf("filter %s.%s must be a string, number or boolean", key, op.key))
		}
		ff.Range = append(ff.Range, rsclient.RangeBound{Op: op.key, Value: v})
	}
	return ff, nil
}

// parseExpandLimit turns {relation: n} into ordered rsclient.ExpandLimit.
func parseExpandLimit(raw json.RawMessage) ([]rsclient.ExpandLimit, *toolError) {
	if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
		return nil, nil
	}
	fields, err := orderedObject(plainIntegers(raw)) // {"rel": 3.0} is the integer 3
	if err != nil || len(fields) == 0 {
		return nil, newAdapterError("invalid_expand", "expand_limit must be an object such as {\"relation\": 3}")
	}
	out := make([]rsclient.ExpandLimit, 0, len(fields))
	for _, f := range fields {
		if f.key == "" || strings.ContainsAny(f.key, "[]") {
			return nil, newAdapterError("invalid_expand", fmt.Sprintf("expand_limit relation %q must be a relation name, not bracket syntax", f.key))
		}
		var n int
		if err := json.Unmarshal(f.value, &n); err != nil || n < 1 {
			return nil, newAdapterError("invalid_expand", fmt.Sprintf("expand_limit %q must be a positive integer", f.key))
		}
		out = append(out, rsclient.ExpandLimit{Relation: f.key, Limit: n})
	}
	return out, nil
}

type kv struct {
	key   string
	value json.RawMessage
}

// orderedObject decodes one JSON object into its members in document order.
func orderedObject(raw json.RawMessage) ([]kv, error) {
	if members, ok := page.ObjectMembers(raw); ok {
		out := make([]kv, len(members))
		for i, m := range members {
			out[i] = kv{m.Key, m.Value}
		}
		return out, nil
	}
	// Not one valid object: the token stream says what is wrong.
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not an object")
	}
	var out []kv
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, kv{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return out, nil
}

// scalarValue decodes a JSON string, number or boolean for query encoding.
func scalarValue(raw json.RawMessage) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	switch v.(type) {
	case string, bool, json.Number:
		return v, true
	}
	return nil, false
}
