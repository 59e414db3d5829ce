package rstest

import (
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // IANA zones must resolve even on hosts without tzdata

	"github.com/pdpp/pdpp-mcp/rsclient/rstest/internal/aggregation"
)

// aggregateAllowed is the /aggregate query allowlist (§2.7).
var aggregateAllowed = []string{"connection_id", "connector_id", "connector_instance_id", "field", "filter",
	"granularity", "group_by", "group_by_time", "limit", "metric", "subject_id", "time_zone"}

// Aggregate group-limit bounds (§2.7): out of range is an error, not a clamp.
const (
	aggDefaultLimit = 10
	aggMaxLimit     = 100
)

// aggregate serves GET /v1/streams/{stream}/aggregate.
func (s *Server) aggregate(c *call, stream string) (obj, *apiError) {
	q := c.q
	if err := q.checkAllowed(aggregateAllowed...); err != nil {
		return nil, err
	}
	if !c.p.owner {
		if err := q.rejectClientExtras(); err != nil {
			return nil, err
		}
	}
	sc, err := s.streamScope(c, stream)
	if err != nil {
		return nil, err
	}
	t := &sc.targets[0]
	spec, err := aggSpec(q, t)
	if err != nil {
		return nil, err
	}
	filters, err := parseFilters(q, t)
	if err != nil {
		return nil, err
	}
	if spec.Metric == aggregation.MetricCountDistinct && len(sc.targets) > 1 {
		return nil, newErr("invalid_request", "metric", "count_distinct cannot be merged across connections; scope with connection_id")
	}
	var parts []aggregation.Result
	for i := range sc.targets {
		tt := &sc.targets[i]
		var rows []map[string]any
		if tt.set != nil {
			for _, r := range tt.set.asc {
				if admit(tt, r, filters) {
					rows = append(rows, decodePayload(r.Data))
				}
			}
		}
		res, cerr := aggregation.Compute(rows, spec)
		if cerr != nil {
			return nil, newErr("invalid_request", "", "%v", cerr)
		}
		parts = append(parts, res)
	}
	res := parts[0]
	if len(parts) > 1 {
		res = aggregation.Merge(parts, spec)
	}
	return s.finish(c, aggBody(spec, stream, res, len(parts) > 1, sc.warnings)), nil
}

// aggBody renders the aggregation object.
func aggBody(spec aggregation.Spec, stream string, res aggregation.Result, merged bool, warnings []any) obj {
	nullable := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	var tz any
	if spec.GroupByTime != "" {
		tz = spec.Location.String()
	}
	o := obj{{"approximate", false}, {"field", nullable(spec.Field)}, {"filtered_record_count", res.FilteredRecordCount},
		{"granularity", nullable(spec.Granularity)}, {"group_by", nullable(spec.GroupBy)}, {"group_by_time", nullable(spec.GroupByTime)}}
	if spec.GroupBy != "" || spec.GroupByTime != "" {
		groups := []obj{}
		for _, g := range res.Groups {
			groups = append(groups, obj{{"key", g.Key}, {"count", g.Count}})
		}
		o = append(o, kv{"groups", groups}, kv{"limit", spec.Limit})
		if !merged {
			o = append(o, kv{"other_count", res.OtherCount})
		}
	}
	o = append(o, kv{"metric", spec.Metric}, kv{"object", "aggregation"}, kv{"stream", stream}, kv{"time_zone", tz})
	if spec.GroupBy == "" && spec.GroupByTime == "" {
		o = append(o, kv{"value", res.Value})
	}
	if len(warnings) > 0 {
		o = append(o, kv{"meta", obj{{"count", obj{{"kind", "none"}}}, {"warnings", warnings}}})
	}
	return o
}

// aggSpec validates the aggregate parameters against the declaration.
func aggSpec(q *query, t *target) (aggregation.Spec, *apiError) {
	var sp aggregation.Spec
	decl := t.info.decl.Query.Aggregations
	sp.Metric, _ = q.one("metric")
	switch sp.Metric {
	case "count", "sum", "min", "max", "count_distinct":
	case "":
		return sp, newErr("invalid_request", "metric", "metric is required (count, sum, min, max, count_distinct)")
	default:
		return sp, newErr("invalid_request", "metric", "Unsupported metric '%s'", sp.Metric)
	}
	if decl == nil {
		return sp, newErr("invalid_request", "", "Aggregations are not declared for stream '%s'", t.info.decl.Name)
	}
	field, hasField := q.one("field")
	lists := map[string][]string{"sum": decl.Sum, "min": decl.Min, "max": decl.Max, "count_distinct": decl.CountDistinct}
	if sp.Metric == "count" {
		if !decl.Count {
			return sp, newErr("invalid_request", "metric", "count is not declared for stream '%s'", t.info.decl.Name)
		}
		if hasField {
			return sp, newErr("invalid_request", "field", "metric=count does not take a field")
		}
	} else {
		p, err := aggField(t, "field", field, lists[sp.Metric], sp.Metric)
		if err != nil {
			return sp, err
		}
		if !fieldKindOK(p, sp.Metric) {
			return sp, newErr("invalid_request", "field", "Field '%s' has a type that does not support %s", field, sp.Metric)
		}
		sp.Field = field
	}
	if err := aggGrouping(q, t, decl, &sp); err != nil {
		return sp, err
	}
	return sp, nil
}

// aggField checks a field is declared in the schema, granted, and listed.
func aggField(t *target, param, field string, list []string, kind string) (*prop, *apiError) {
	if field == "" {
		return nil, newErr("invalid_request", param, "%s is required for %s", param, kind)
	}
	p := t.info.propIdx[field]
	if p == nil {
		return nil, newErr("unknown_field", param, "Unknown field '%s' for stream '%s'", field, t.info.decl.Name)
	}
	if !t.granted(field) {
		return nil, newErr("field_not_granted", param, "Field '%s' is not granted", field)
	}
	if !contains(list, field) {
		return nil, newErr("invalid_request", param, "Field '%s' is not declared for %s on stream '%s'", field, kind, t.info.decl.Name)
	}
	return p, nil
}

// isTimeField reports a date or date-time field.
func isTimeField(p *prop) bool {
	return p.format == "date" || p.format == "date-time" || p.xType == "timestamp" || p.xType == "date"
}

// fieldKindOK applies the per-metric type rules.
func fieldKindOK(p *prop, metric string) bool {
	st := p.scalarType()
	switch metric {
	case "sum":
		return st == "integer" || st == "number"
	case "min", "max":
		return st == "integer" || st == "number" || (st == "string" && isTimeField(p))
	case "count_distinct", "group_by":
		return st != ""
	}
	return true
}

// aggGrouping validates group_by / group_by_time / granularity / time_zone
// / limit.
func aggGrouping(q *query, t *target, decl *AggregationDecl, sp *aggregation.Spec) *apiError {
	gb, hasGB := q.one("group_by")
	gbt, hasGBT := q.one("group_by_time")
	gran, hasGran := q.one("granularity")
	tz, hasTZ := q.one("time_zone")
	lim, hasLim := q.one("limit")
	if (hasGB || hasGBT) && sp.Metric != "count" {
		return newErr("invalid_request", "group_by", "Grouping is only supported with metric=count")
	}
	if hasGB && hasGBT {
		return newErr("invalid_request", "group_by_time", "group_by and group_by_time are mutually exclusive")
	}
	if hasGB {
		p, err := aggField(t, "group_by", gb, decl.GroupBy, "group_by")
		if err != nil {
			return err
		}
		if !fieldKindOK(p, "group_by") {
			return newErr("invalid_request", "group_by", "group_by requires a scalar field")
		}
		sp.GroupBy = gb
	}
	if hasGBT {
		p, err := aggField(t, "group_by_time", gbt, decl.GroupByTime, "group_by_time")
		if err != nil {
			return err
		}
		if !isTimeField(p) {
			return newErr("invalid_request", "group_by_time", "group_by_time requires a date or date-time field")
		}
		sp.GroupByTime = gbt
		switch gran {
		case "minute", "hour", "day", "week", "month", "quarter", "year":
			sp.Granularity = gran
		case "":
			return newErr("invalid_request", "granularity", "granularity is required with group_by_time")
		default:
			return newErr("invalid_request", "granularity", "Unsupported granularity '%s'", gran)
		}
		sp.Location = time.UTC
		if hasTZ {
			loc, err := time.LoadLocation(tz)
			if err != nil || tz == "" || strings.EqualFold(tz, "Local") {
				return newErr("invalid_request", "time_zone", "Unknown time_zone '%s'; use an IANA name", tz)
			}
			sp.Location = loc
		}
	} else {
		if hasGran {
			return newErr("invalid_request", "granularity", "granularity is only allowed with group_by_time")
		}
		if hasTZ {
			return newErr("invalid_request", "time_zone", "time_zone is only allowed with group_by_time")
		}
	}
	if !hasGB && !hasGBT {
		if hasLim {
			return newErr("invalid_request", "limit", "limit is only allowed with group_by or group_by_time")
		}
		return nil
	}
	sp.Limit = aggDefaultLimit
	if hasLim {
		n, err := strconv.Atoi(lim)
		if err != nil || n < 1 || n > aggMaxLimit {
			return newErr("invalid_request", "limit", "limit must be an integer between 1 and 100")
		}
		sp.Limit = n
	}
	return nil
}
