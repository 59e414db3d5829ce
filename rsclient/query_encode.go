package rsclient

import (
	"strconv"
	"strings"
)

// Encoding of each query type into a raw query string. The order of the
// add calls IS the wire order documented on each type; do not reorder.

func (q SchemaQuery) encode() string {
	var b queryBuilder
	b.addIf("view", q.View)
	b.addIf("detail", q.Detail)
	b.addIf("stream", q.Stream)
	b.addIf("connection_id", q.ConnectionID)
	return b.String()
}

func (q RecordsQuery) encode() (string, error) {
	if err := checkExpand(q.Expand); err != nil {
		return "", err
	}
	var b queryBuilder
	b.addInt("limit", q.Limit)
	b.addIf("cursor", q.Cursor)
	b.addIf("order", q.Order)
	b.addEach("sort", q.Sort)
	b.addIf("count", q.Count)
	b.addEach("fields", q.Fields)
	b.addIf("view", q.View)
	b.addEach("expand", q.Expand)
	b.addIf("changes_since", q.ChangesSince)
	b.addIf("connection_id", q.ConnectionID)
	if err := addFilter(&b, q.Filter); err != nil {
		return "", err
	}
	if err := addExpandLimits(&b, q.ExpandLimit); err != nil {
		return "", err
	}
	return b.String(), nil
}

func (q RecordQuery) encode() (string, error) {
	if err := checkExpand(q.Expand); err != nil {
		return "", err
	}
	var b queryBuilder
	b.addEach("fields", q.Fields)
	b.addEach("expand", q.Expand)
	b.addIf("connection_id", q.ConnectionID)
	if err := addExpandLimits(&b, q.ExpandLimit); err != nil {
		return "", err
	}
	return b.String(), nil
}

func (q FieldWindowQuery) encode() string {
	var b queryBuilder
	b.addIf("connection_id", q.ConnectionID)
	b.addIf("field", q.Field)
	b.addIntPtr("offset_chars", q.OffsetChars)
	b.addIntPtr("limit_chars", q.LimitChars)
	b.addIf("q", q.Q)
	b.addIntPtr("before_chars", q.BeforeChars)
	b.addIntPtr("after_chars", q.AfterChars)
	return b.String()
}

func (q AggregateQuery) encode() (string, error) {
	var b queryBuilder
	b.addIf("metric", q.Metric)
	b.addIf("field", q.Field)
	b.addIf("group_by", q.GroupBy)
	b.addIf("group_by_time", q.GroupByTime)
	b.addIf("granularity", q.Granularity)
	b.addIf("time_zone", q.TimeZone)
	b.addInt("limit", q.Limit)
	b.addIf("connection_id", q.ConnectionID)
	if err := addFilter(&b, q.Filter); err != nil {
		return "", err
	}
	return b.String(), nil
}

// searchPath maps SearchQuery.Mode to its route.
func searchPath(mode string) (string, error) {
	switch mode {
	case "", ModeLexical:
		return "/v1/search", nil
	case ModeSemantic:
		return "/v1/search/semantic", nil
	case ModeHybrid:
		return "/v1/search/hybrid", nil
	}
	return "", &QueryError{Param: "mode", Message: strconv.Quote(mode) + " is not one of lexical, semantic, hybrid"}
}

func (q SearchQuery) encode() (string, error) {
	var b queryBuilder
	b.addIf("q", q.Q)
	b.addEach("streams", q.Streams)
	b.addInt("limit", q.Limit)
	b.addIf("cursor", q.Cursor)
	b.addIf("connection_id", q.ConnectionID)
	if err := addFilter(&b, q.Filter); err != nil {
		return "", err
	}
	return b.String(), nil
}

// hasBracket reports names that would be re-parsed by the RS's qs parser as
// nested keys: a field "a][b" would silently become a different filter.
func hasBracket(s string) bool { return strings.ContainsAny(s, "[]") }

func checkExpand(rels []string) error {
	for _, r := range rels {
		if r == "" || hasBracket(r) {
			return &QueryError{Param: "expand", Message: "relation " + strconv.Quote(r) + " must be a non-empty name without '[' or ']'"}
		}
	}
	return nil
}

func addExpandLimits(b *queryBuilder, limits []ExpandLimit) error {
	seen := make(map[string]bool, len(limits))
	for _, l := range limits {
		if l.Relation == "" || hasBracket(l.Relation) {
			return &QueryError{Param: "expand_limit", Message: "relation " + strconv.Quote(l.Relation) + " must be a non-empty name without '[' or ']'"}
		}
		if seen[l.Relation] {
			return &QueryError{Param: "expand_limit", Message: "relation " + strconv.Quote(l.Relation) + " given twice"}
		}
		seen[l.Relation] = true
		b.add("expand_limit["+l.Relation+"]", strconv.Itoa(l.Limit))
	}
	return nil
}

var rangeOps = map[string]bool{OpGTE: true, OpGT: true, OpLTE: true, OpLT: true}

// addFilter appends filter[f]=v and filter[f][op]=v in the given order. It
// validates the whole filter first so a bad entry never yields a partial
// query.
func addFilter(b *queryBuilder, f Filter) error {
	params := make([]filterParam, 0, len(f))
	seen := make(map[string]bool, len(f))
	for _, ff := range f {
		name := strconv.Quote(ff.Field)
		if err := checkFilterField(ff, name, seen); err != nil {
			return err
		}
		seen[ff.Field] = true
		var err error
		if params, err = appendFilterParams(params, ff, name); err != nil {
			return err
		}
	}
	for _, p := range params {
		b.add(p.k, p.v)
	}
	return nil
}

// filterParam is one query parameter a filter entry becomes, held back
// until the whole filter has validated.
type filterParam struct{ k, v string }

// checkFilterField checks one entry's shape: a plain, unrepeated field name
// (name is its quoted form for messages) with exactly one of an exact value
// or a range.
func checkFilterField(ff FilterField, name string, seen map[string]bool) error {
	switch {
	case ff.Field == "":
		return filterErr("field name must not be empty")
	case hasBracket(ff.Field):
		return filterErr("field " + name + " must be a field name, not pre-encoded bracket syntax")
	case seen[ff.Field]:
		return filterErr("field " + name + " given twice")
	case ff.Value != nil && len(ff.Range) > 0:
		return filterErr("field " + name + " has both an exact value and a range")
	case ff.Value == nil && len(ff.Range) == 0:
		return filterErr("field " + name + " needs an exact value or at least one of gte/gt/lte/lt")
	}
	return nil
}

// appendFilterParams appends the parameters of one checked entry:
// filter[f]=v for an exact value, else one filter[f][op]=v per bound.
func appendFilterParams(params []filterParam, ff FilterField, name string) ([]filterParam, error) {
	if ff.Value == nil {
		return appendRangeParams(params, ff, name)
	}
	s, err := formatScalar(ff.Value)
	if err != nil {
		return params, filterErr("field " + name + ": " + err.Error())
	}
	return append(params, filterParam{"filter[" + ff.Field + "]", s}), nil
}

// appendRangeParams appends filter[f][op]=v per bound in the given order,
// refusing an unknown or repeated operator.
func appendRangeParams(params []filterParam, ff FilterField, name string) ([]filterParam, error) {
	ops := make(map[string]bool, len(ff.Range))
	for _, r := range ff.Range {
		if !rangeOps[r.Op] {
			return params, filterErr("field " + name + ": unknown range operator " + strconv.Quote(r.Op) + " (want gte, gt, lte or lt)")
		}
		if ops[r.Op] {
			return params, filterErr("field " + name + ": operator " + r.Op + " given twice")
		}
		ops[r.Op] = true
		s, err := formatScalar(r.Value)
		if err != nil {
			return params, filterErr("field " + name + " " + r.Op + ": " + err.Error())
		}
		params = append(params, filterParam{"filter[" + ff.Field + "][" + r.Op + "]", s})
	}
	return params, nil
}

func filterErr(msg string) error { return &QueryError{Param: "filter", Message: msg} }
