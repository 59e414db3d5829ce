package rstest

import "strings"

// capFlag is one {declared, usable, reason?} capability.
type capFlag struct {
	declared, usable bool
	reason           string
}

// newCap derives usable from declared and granted (§3.2).
func newCap(declared, granted bool) capFlag {
	c := capFlag{declared: declared, usable: declared && granted}
	if declared && !granted {
		c.reason = "field_not_granted"
	}
	return c
}

// full renders the full-view object.
func (c capFlag) full() map[string]any {
	m := map[string]any{"declared": c.declared, "usable": c.usable}
	if c.reason != "" {
		m["reason"] = c.reason
	}
	return m
}

// aggKinds is the compact a= order.
var aggKinds = []string{"count_distinct", "group_by", "group_by_time", "max", "min", "sum"}

// fieldCaps is every capability of one field under one principal.
type fieldCaps struct {
	p        *prop
	granted  bool
	owner    bool
	lex, sem capFlag
	agg      map[string]capFlag
	eq, rng  capFlag
	rangeOps []string
}

// capsOf computes a field's capabilities.
func capsOf(info *streamInfo, p *prop, granted, owner bool) fieldCaps {
	q := info.decl.Query
	fc := fieldCaps{p: p, granted: granted, owner: owner, agg: map[string]capFlag{}}
	if q.Search != nil {
		fc.lex = newCap(contains(q.Search.LexicalFields, p.name), granted)
		fc.sem = newCap(contains(q.Search.SemanticFields, p.name), granted)
	}
	a := q.Aggregations
	if a == nil {
		a = &AggregationDecl{}
	}
	lists := map[string][]string{"count_distinct": a.CountDistinct, "group_by": a.GroupBy,
		"group_by_time": a.GroupByTime, "max": a.Max, "min": a.Min, "sum": a.Sum}
	for _, k := range aggKinds {
		fc.agg[k] = newCap(contains(lists[k], p.name), granted)
	}
	fc.eq = newCap(p.scalarType() != "", granted)
	fc.rangeOps = q.RangeFilters[p.name]
	fc.rng = newCap(len(fc.rangeOps) > 0, granted)
	return fc
}

// full renders the full-view FieldCapability.
func (fc fieldCaps) full() map[string]any {
	m := map[string]any{"granted": fc.granted, "schema": fc.p.schema,
		"lexical_search": fc.lex.full(), "semantic_search": fc.sem.full()}
	if fc.p.xType != "" {
		m["type"] = fc.p.xType
	}
	if fc.p.role != "" {
		m["role"] = fc.p.role
	}
	agg := map[string]any{}
	for _, k := range aggKinds {
		agg[k] = fc.agg[k].full()
	}
	m["aggregation"] = agg
	if fc.owner {
		m["exact_filter"] = fc.eq.full()
		r := fc.rng.full()
		if fc.rng.declared {
			r["operators"] = fc.rangeOps
		}
		m["range_filter"] = r
	}
	return m
}

// compact renders the §3.3 flag string.
func (fc fieldCaps) compact() string {
	var toks []string
	switch {
	case fc.p.xType != "":
		toks = append(toks, "t="+fc.p.xType)
	case len(fc.p.types) > 0:
		toks = append(toks, "t="+strings.Join(fc.p.types, "|"))
	}
	if fc.p.role != "" {
		toks = append(toks, "role="+fc.p.role)
	}
	if !fc.granted {
		toks = append(toks, "g=false")
	}
	flag := func(name, value string, c capFlag) {
		switch {
		case c.usable:
			toks = append(toks, name+value)
		case c.declared:
			toks = append(toks, name+"=unusable:"+c.reason)
		}
	}
	if fc.owner {
		flag("eq", "", fc.eq)
		flag("r", "="+strings.Join(fc.rangeOps, "|"), fc.rng)
	}
	flag("lex", "", fc.lex)
	flag("sem", "", fc.sem)
	var aggs []string
	for _, k := range aggKinds {
		if fc.agg[k].usable {
			aggs = append(aggs, k)
		}
	}
	if len(aggs) > 0 {
		toks = append(toks, "a="+strings.Join(aggs, "|"))
	}
	if len(toks) == 0 {
		return "declared"
	}
	return strings.Join(toks, ",")
}
