package rstest

import (
	"encoding/json"
	"strconv"
	"strings"
)

// filterClause is one owner `filter[...]` condition.
type filterClause struct {
	field string
	op    string // "" exact, else gte|gt|lte|lt
	want  sortKey
	str   string // exact string comparisons stay textual
}

// scalarType is the single non-null JSON type of a property, or "".
func (p *prop) scalarType() string {
	var t string
	for _, x := range p.types {
		if x == "null" {
			continue
		}
		if t != "" {
			return ""
		}
		t = x
	}
	switch t {
	case "string", "integer", "number", "boolean":
		return t
	}
	return ""
}

// parseFilters validates owner filters against the stream declaration.
func parseFilters(q *query, t *target) ([]filterClause, *apiError) {
	var out []filterClause
	info := t.info
	var unknown []string
	for _, field := range q.filterOrder {
		if info.propIdx[field] == nil {
			unknown = append(unknown, field)
		}
	}
	if len(unknown) > 0 {
		return nil, unknownFieldErr(unknown)
	}
	for _, field := range q.filterOrder {
		p := info.propIdx[field]
		if !t.granted(field) {
			return nil, newErr("field_not_granted", "filter", "Field '%s' is not granted", field)
		}
		typ := p.scalarType()
		for op, vals := range q.filters[field] {
			if op != "" {
				if !contains(info.decl.Query.RangeFilters[field], op) {
					return nil, newErr("invalid_request", "filter", "Range operator '%s' is not declared for field '%s'", op, field)
				}
			} else if typ == "" {
				return nil, newErr("invalid_request", "filter", "Exact filter on '%s' requires a scalar field", field)
			}
			for _, v := range vals {
				fc, err := coerceFilter(field, op, typ, v)
				if err != nil {
					return nil, err
				}
				out = append(out, fc)
			}
		}
	}
	return out, nil
}

// coerceFilter parses a filter value by the field's declared type.
func coerceFilter(field, op, typ, v string) (filterClause, *apiError) {
	fc := filterClause{field: field, op: op, str: v}
	switch typ {
	case "integer", "number":
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			return fc, newErr("invalid_request", "filter", "filter[%s] expects a number, got %q", field, v)
		}
		fc.want = keyOf(json.Number(v), "")
	case "boolean":
		b, err := strconv.ParseBool(v)
		if err != nil || (v != "true" && v != "false") {
			return fc, newErr("invalid_request", "filter", "filter[%s] expects true or false, got %q", field, v)
		}
		fc.want = keyOf(b, "")
	default:
		fc.want = keyOf(v, "")
		if op != "" && !fc.want.hasT {
			if _, err := strconv.ParseFloat(v, 64); err != nil {
				return fc, newErr("invalid_request", "filter", "filter[%s][%s] expects a date-time or number, got %q", field, op, v)
			}
			fc.want = keyOf(json.Number(v), "")
		}
	}
	return fc, nil
}

// match evaluates the clause against a decoded payload.
func (fc *filterClause) match(payload map[string]any) bool {
	got := keyOf(payload[fc.field], "")
	if got.null || got.rank != fc.want.rank {
		return false
	}
	if fc.op == "" && got.rank == 2 {
		return got.str == fc.str
	}
	c := cmpValue(got, fc.want)
	switch fc.op {
	case "":
		return c == 0
	case "gte":
		return c >= 0
	case "gt":
		return c > 0
	case "lte":
		return c <= 0
	case "lt":
		return c < 0
	}
	return false
}

// contains reports whether list holds s.
func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// unknownFieldErr is the reference's refusal of names the stream's schema
// does not declare, in fields or filter alike: every unknown name in one
// message, in request order, and no param
// (validateRequestedQueryFieldParams in
// reference-implementation/server/index.ts; measured on the reference:
// fields=nope,subject,zzz → "Unknown field: nope, zzz").
func unknownFieldErr(names []string) *apiError {
	return newErr("unknown_field", "", "Unknown field: %s", strings.Join(names, ", "))
}
