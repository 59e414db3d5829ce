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
	// The reference refuses a fan-in count_distinct before it validates the
	// field (capture 0115: an undeclared field still gets this message).
	if optParam(q, "metric") == aggregation.MetricCountDistinct && len(sc.targets) > 1 {
		return nil, aggInvalid("invalid_request", "count_distinct across multiple connections is not supported; scope with connection_id")
	}
	spec, err := aggSpec(q, t)
	if err != nil {
		return nil, err
	}
	filters, err := parseFilters(q, t)
	if err != nil {
		return nil, err
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

// Aggregate validation follows the reference's normalizeAggregateRequest:
// same order, same messages, and no `param` on any of its errors (D6, D8;
// captures 0115, 0116, 0165).

// aggGranularities is the reference's granularity vocabulary.
var aggGranularities = []string{"minute", "hour", "day", "week", "month", "quarter", "year"}

// aggInvalid is the reference's invalidQueryError: a 400 without param.
func aggInvalid(code, format string, args ...any) *apiError {
	return newErr(code, "", format, args...)
}

// optParam is a trimmed parameter value, "" when absent or empty.
func optParam(q *query, name string) string {
	v, _ := q.one(name)
	return strings.TrimSpace(v)
}

// aggMetrics is the reference's metric vocabulary, in its message's order.
var aggMetrics = []string{"count", "sum", "min", "max", "count_distinct"}

// aggSpec validates the aggregate parameters against the declaration. The
// steps run in the reference's order, so the first rule broken is the one
// reported.
func aggSpec(q *query, t *target) (aggregation.Spec, *apiError) {
	var sp aggregation.Spec
	decl := t.info.decl.Query.Aggregations
	if decl == nil {
		return sp, aggInvalid("invalid_request", "Aggregations are not declared for stream '%s'", t.info.decl.Name)
	}
	sp.Metric = optParam(q, "metric")
	if !contains(aggMetrics, sp.Metric) {
		return sp, aggInvalid("invalid_request", "metric must be one of count, sum, min, max, count_distinct")
	}
	field, gb, gbt := optParam(q, "field"), optParam(q, "group_by"), optParam(q, "group_by_time")
	if gb != "" && gbt != "" {
		return sp, aggInvalid("invalid_request", "group_by and group_by_time cannot be combined; choose one grouping dimension")
	}
	grouped := gb != "" || gbt != ""
	if err := aggLimit(q, grouped, &sp); err != nil {
		return sp, err
	}
	if err := aggTime(q, gbt, &sp); err != nil {
		return sp, err
	}
	if err := aggMetricField(t, decl, sp.Metric, field, grouped); err != nil {
		return sp, err
	}
	sp.Field = field
	if err := aggGroupBy(t, decl, gb, &sp); err != nil {
		return sp, err
	}
	if err := aggGroupByTime(t, decl, gbt, &sp); err != nil {
		return sp, err
	}
	return sp, nil
}

// aggMetricField checks the metric's field (and whether the metric may be
// grouped), dispatching on the metric because each has its own rules.
func aggMetricField(t *target, decl *AggregationDecl, metric, field string, grouped bool) *apiError {
	switch metric {
	case "count":
		return aggCountField(t, decl, field)
	case "count_distinct":
		return aggDistinctField(t, decl, field, grouped)
	default:
		return aggNumericField(t, decl, metric, field, grouped)
	}
}

// aggCountField applies count's rules: no field, and count declared.
func aggCountField(t *target, decl *AggregationDecl, field string) *apiError {
	if field != "" {
		return aggInvalid("invalid_request", "field is not supported for count")
	}
	if !decl.Count {
		return aggInvalid("invalid_request", "Count aggregation is not declared for stream '%s'", t.info.decl.Name)
	}
	return nil
}

// aggDistinctField applies count_distinct's rules: ungrouped, over a
// declared scalar field.
func aggDistinctField(t *target, decl *AggregationDecl, field string, grouped bool) *apiError {
	if grouped {
		return aggInvalid("invalid_request", "count_distinct does not support grouping; omit group_by and group_by_time")
	}
	p, err := aggField(t, field, decl.CountDistinct, "count_distinct")
	if err != nil {
		return err
	}
	if p.scalarType() == "" {
		return aggInvalid("invalid_request", "count_distinct requires a scalar field; '%s' is not scalar", field)
	}
	return nil
}

// aggNumericField applies sum/min/max's rules: ungrouped, over a field
// declared for that metric and of a kind it can order or add.
func aggNumericField(t *target, decl *AggregationDecl, metric, field string, grouped bool) *apiError {
	if grouped {
		return aggInvalid("invalid_request", "%s does not support grouping; group_by and group_by_time are only valid with metric=count", metric)
	}
	lists := map[string][]string{"sum": decl.Sum, "min": decl.Min, "max": decl.Max}
	p, err := aggField(t, field, lists[metric], metric)
	if err != nil {
		return err
	}
	return numericKind(p, metric, field)
}

// aggGroupBy validates group_by, when given, and records it in sp.
func aggGroupBy(t *target, decl *AggregationDecl, gb string, sp *aggregation.Spec) *apiError {
	if gb == "" {
		return nil
	}
	p, err := aggField(t, gb, decl.GroupBy, "group_by")
	if err != nil {
		return err
	}
	if p.scalarType() == "" {
		return aggInvalid("invalid_request", "Grouped counts require a scalar field; '%s' is not scalar", gb)
	}
	sp.GroupBy = gb
	return nil
}

// aggGroupByTime validates group_by_time, when given, and records it in sp.
func aggGroupByTime(t *target, decl *AggregationDecl, gbt string, sp *aggregation.Spec) *apiError {
	if gbt == "" {
		return nil
	}
	if sp.Metric != "count" {
		return aggInvalid("invalid_request", "group_by_time is only valid with metric=count")
	}
	p, err := aggField(t, gbt, decl.GroupByTime, "group_by_time")
	if err != nil {
		return err
	}
	if p.scalarType() != "string" || !isTimeField(p) {
		return aggInvalid("invalid_request", "group_by_time requires a date or date-time field; '%s' is not supported", gbt)
	}
	sp.GroupByTime = gbt
	return nil
}

// aggField checks a field is in the schema, granted, and declared for kind.
func aggField(t *target, field string, list []string, kind string) (*prop, *apiError) {
	if field == "" {
		return nil, aggInvalid("invalid_request", "field is required for %s", kind)
	}
	p := t.info.propIdx[field]
	if p == nil {
		return nil, aggInvalid("unknown_field", "Unknown field: %s", field)
	}
	if !t.granted(field) {
		return nil, aggInvalid("field_not_granted", "Aggregation field '%s' not in grant", field)
	}
	if !contains(list, field) {
		return nil, aggInvalid("invalid_request", "Aggregation %s is not declared for '%s'", kind, field)
	}
	return p, nil
}

// numericKind applies the sum and min/max type rules.
func numericKind(p *prop, metric, field string) *apiError {
	st := p.scalarType()
	numeric := st == "integer" || st == "number"
	if metric == "sum" && !numeric {
		return aggInvalid("invalid_request", "Aggregation sum requires a numeric field; '%s' is not numeric", field)
	}
	if !numeric && !(st == "string" && (p.format == "date" || p.format == "date-time")) {
		return aggInvalid("invalid_request", "Aggregation %s requires a numeric, date, or date-time field; '%s' is not supported", metric, field)
	}
	return nil
}

// isTimeField reports a date or date-time field.
func isTimeField(p *prop) bool {
	return p.format == "date" || p.format == "date-time" || p.xType == "timestamp" || p.xType == "date"
}

// aggLimit validates the group limit (only with grouping; out of range is
// an error, not a clamp).
func aggLimit(q *query, grouped bool, sp *aggregation.Spec) *apiError {
	lim, hasLim := q.one("limit")
	if !grouped {
		if hasLim {
			return aggInvalid("invalid_request", "limit is only supported with group_by or group_by_time")
		}
		return nil
	}
	sp.Limit = aggDefaultLimit
	if strings.TrimSpace(lim) == "" {
		return nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(lim))
	if err != nil || n < 1 || n > aggMaxLimit {
		return aggInvalid("invalid_request", "limit must be an integer between 1 and %d", aggMaxLimit)
	}
	sp.Limit = n
	return nil
}

// aggTime validates granularity and time_zone against group_by_time.
func aggTime(q *query, gbt string, sp *aggregation.Spec) *apiError {
	gran, tz := optParam(q, "granularity"), optParam(q, "time_zone")
	if gbt == "" {
		if gran != "" {
			return aggInvalid("invalid_request", "granularity is only supported with group_by_time")
		}
		if tz != "" {
			return aggInvalid("invalid_request", "time_zone is only supported with group_by_time")
		}
		return nil
	}
	if gran == "" {
		return aggInvalid("invalid_request", "granularity is required when group_by_time is present")
	}
	if !contains(aggGranularities, gran) {
		return aggInvalid("invalid_request", "granularity must be one of %s", strings.Join(aggGranularities, ", "))
	}
	sp.Granularity = gran
	sp.Location = time.UTC
	if tz != "" {
		loc, err := time.LoadLocation(tz)
		if err != nil || strings.EqualFold(tz, "Local") {
			return aggInvalid("invalid_request", "Unknown time_zone '%s'; use an IANA name", tz)
		}
		sp.Location = loc
	}
	return nil
}
