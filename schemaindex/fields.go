package schemaindex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// parseFields decodes field_capabilities in document order: an object of
// name → (flag string | capability object), or an array of {name, flags|…}.
// Order matters because texts list fields as the manifest declares them.
func parseFields(raw json.RawMessage) ([]Field, error) {
	if isNull(raw) {
		return nil, nil
	}
	raw = bytes.TrimSpace(raw)
	if raw[0] == '[' {
		return parseFieldArray(raw)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("want an object or array")
	}
	var out []Field
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		caps, err := parseCaps(v)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", clip(name, 80), err)
		}
		out = append(out, Field{Name: name, Caps: caps})
	}
	return out, nil
}

func parseFieldArray(raw json.RawMessage) ([]Field, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, err
	}
	var out []Field
	for i, it := range items {
		var n struct{ Name, Field, Path string }
		if err := json.Unmarshal(it, &n); err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		caps, err := parseCaps(it)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		if name := firstNonEmpty(n.Name, n.Field, n.Path); name != "" {
			out = append(out, Field{Name: name, Caps: caps})
		}
	}
	return out, nil
}

// parseCaps reads one field's capabilities from a compact flag string or a
// full-view FieldCapability object. Flag strings the grammar does not know
// keep their known tokens (the RS may add flags; the field stays usable).
func parseCaps(v json.RawMessage) (Caps, error) {
	var s string
	if json.Unmarshal(v, &s) == nil {
		c, _ := ParseFlags(s)
		return c, nil
	}
	var w wireFieldCap
	if err := json.Unmarshal(v, &w); err != nil {
		return Caps{Granted: true}, err
	}
	if w.Flags != nil {
		c, _ := ParseFlags(*w.Flags)
		return c, nil
	}
	c := Caps{Type: w.Type, Role: w.Role, Granted: w.Granted == nil || *w.Granted}
	if c.Type == "" {
		c.Type = schemaType(w.Schema)
	}
	c.Exact = capOf(w.ExactFilter)
	c.Range = capOf(w.RangeFilter)
	if w.RangeFilter != nil && c.Range.Usable {
		c.RangeOps = w.RangeFilter.Operators
	}
	c.Lexical = capOf(w.LexicalSearch)
	c.Semantic = capOf(w.SemanticSearch)
	var kinds []string
	for k, a := range w.Aggregation {
		switch {
		case a == nil:
		case a.Usable:
			kinds = append(kinds, k)
		case a.Declared:
			if c.UnusableAggs == nil {
				c.UnusableAggs = map[string]string{}
			}
			c.UnusableAggs[k] = a.Reason
		}
	}
	slices.Sort(kinds) // map order is random; unknown kinds sort stably
	c.Aggs = canonicalAggs(kinds)
	if len(c.Aggs) == 0 {
		c.Aggs = nil
	}
	return c, nil
}

func capOf(w *wireCap) Capability {
	if w == nil {
		return Capability{}
	}
	return Capability{Declared: w.Declared || w.Usable, Usable: w.Usable, Reason: w.Reason}
}

// schemaType derives the type from a field's JSON Schema: x_pdpp_type, else
// `type` (a union joined with "|"), matching the RS compact view.
func schemaType(raw json.RawMessage) string {
	if isNull(raw) {
		return ""
	}
	var s struct {
		XType string          `json:"x_pdpp_type"`
		Type  json.RawMessage `json:"type"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	if s.XType != "" {
		return s.XType
	}
	var one string
	if json.Unmarshal(s.Type, &one) == nil {
		return one
	}
	var many []string
	if json.Unmarshal(s.Type, &many) == nil {
		return strings.Join(many, "|")
	}
	return ""
}
