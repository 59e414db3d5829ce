package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/pdpp/pdpp-mcp/rsclient"
)

var aggregateTool = toolSpec{
	Name:  "aggregate",
	Title: "Aggregate PDPP records",
	Description: "Compute count, sum, min, max or count_distinct over one stream without reading record bodies. " +
		"Group a count by one field (group_by) or by time (group_by_time + granularity), not both. " +
		"Buckets beyond limit are summed in other_count: a positive other_count means the list is top-N truncated.",
	Handle: handleAggregate,
}

type aggregateArgs struct {
	Stream       string          `json:"stream"`
	Metric       string          `json:"metric"`
	Field        string          `json:"field"`
	GroupBy      string          `json:"group_by"`
	GroupByTime  string          `json:"group_by_time"`
	Granularity  string          `json:"granularity"`
	TimeZone     string          `json:"time_zone"`
	Limit        int             `json:"limit"`
	Filter       json.RawMessage `json:"filter"`
	ConnectionID string          `json:"connection_id"`
}

// check enforces the cross-field rules the input schema cannot express
// without top-level combinators, so bad calls never reach the RS. The
// rules are tried in table order: when several are broken, the first names
// the error.
func (a aggregateArgs) check() *toolError {
	counts := a.Metric == "count"
	grouped := a.GroupBy != "" || a.GroupByTime != ""
	byTime := a.GroupByTime != ""
	for _, r := range []struct {
		broken bool
		param  string
		msg    string
	}{
		{counts && a.Field != "", "field", "metric count takes no field; use count_distinct to count distinct values"},
		{!counts && a.Field == "", "field", fmt.Sprintf("metric %s needs field", a.Metric)},
		{a.GroupBy != "" && byTime, "group_by", "use group_by or group_by_time, not both"},
		{grouped && !counts, "metric", "grouping works only with metric count"},
		{byTime && a.Granularity == "", "granularity", "group_by_time needs granularity"},
		{!byTime && a.Granularity != "", "granularity", "granularity needs group_by_time"},
		{!byTime && a.TimeZone != "", "time_zone", "time_zone applies only with group_by_time"},
		{!grouped && a.Limit != 0, "limit", "limit applies only to grouped counts"},
	} {
		if r.broken {
			return newAdapterError("invalid_aggregate", r.msg, field{"param", r.param})
		}
	}
	return nil
}

func handleAggregate(ctx context.Context, s *Server, raw json.RawMessage) *mcp.CallToolResult {
	var a aggregateArgs
	if e := decodeArgs(raw, &a); e != nil {
		return errorResult(e)
	}
	if e := validateSegments(seg{"stream", a.Stream}, seg{"connection_id", a.ConnectionID}); e != nil {
		return errorResult(e)
	}
	if e := a.check(); e != nil {
		return errorResult(e)
	}
	filter, e := parseFilter(a.Filter)
	if e != nil {
		return errorResult(e)
	}
	set, e := s.sources(ctx)
	if e != nil {
		return errorResult(e)
	}
	g, e := set.route(a.Stream, a.ConnectionID)
	if e != nil {
		return set.annotate(errorResult(e))
	}
	agg, _, err := s.rs.Aggregate(ctx, g.Bearer, rsclient.AggregateQuery{
		Stream: a.Stream, Metric: a.Metric, Field: a.Field, GroupBy: a.GroupBy, GroupByTime: a.GroupByTime,
		Granularity: a.Granularity, TimeZone: a.TimeZone, Limit: a.Limit, ConnectionID: a.ConnectionID, Filter: filter,
	})
	if err != nil {
		return set.annotate(errorResult(s.rsError(set, g, err, a.Stream, a.ConnectionID)))
	}
	return textResult(withWarnings(renderAggregate(a, agg), set.warns), aggregateResult{Data: stripLinks(agg.Raw), Warnings: set.warns})
}

// aggregateResult is aggregate's structuredContent: the RS's aggregation
// without its REST links, in the RS's own member order, and the source
// warnings beside it.
type aggregateResult struct {
	Data     json.RawMessage `json:"data"`
	Warnings []warning       `json:"warnings,omitempty"`
}

func (aggregateResult) toolOutput() {}

// maxBucketsInText bounds the bucket list in text: the largest aggregate
// limit, so every bucket the RS returns is in content[]; keys are
// cut at maxBucketKeyText bytes.
const (
	maxBucketsInText = 100
	maxBucketKeyText = 120
)

func renderAggregate(a aggregateArgs, agg *rsclient.Aggregation) string {
	var b strings.Builder
	subject := a.Stream
	if a.Field != "" {
		subject += "." + a.Field
	}
	fmt.Fprintf(&b, "aggregate %s(%s)", a.Metric, subject)
	if a.ConnectionID != "" {
		fmt.Fprintf(&b, " connection_id=%s", a.ConnectionID)
	}
	if a.GroupBy == "" && a.GroupByTime == "" {
		value := string(agg.Value)
		if value == "" {
			value = "null"
		}
		fmt.Fprintf(&b, " = %s over %d records", value, agg.FilteredRecordCount)
		return b.String()
	}
	if a.GroupBy != "" {
		fmt.Fprintf(&b, " by %s", a.GroupBy)
	} else {
		tz := agg.TimeZone
		if tz == "" {
			tz = "UTC"
		}
		fmt.Fprintf(&b, " by %s(%s) time_zone=%s", a.Granularity, a.GroupByTime, tz)
	}
	fmt.Fprintf(&b, ": %d buckets over %d records", len(agg.Groups), agg.FilteredRecordCount)
	for i, g := range agg.Groups {
		if i == maxBucketsInText {
			fmt.Fprintf(&b, "\n… %d more buckets not shown; narrow with filter", len(agg.Groups)-i)
			break
		}
		fmt.Fprintf(&b, "\n%s = %d", truncateBytes(string(g.Key), maxBucketKeyText), g.Count)
	}
	switch {
	case agg.OtherCount != nil:
		fmt.Fprintf(&b, "\nother_count=%d", *agg.OtherCount)
		if *agg.OtherCount > 0 {
			b.WriteString(" (records in buckets beyond limit: the list is top-N truncated; raise limit up to 100)")
		}
	case len(agg.Groups) >= effectiveLimit(a, agg):
		// Merged fan-in answers carry no other_count: say so rather than
		// let a full bucket list pass for the whole answer.
		b.WriteString("\nother_count not reported (merged across connections): the list may be truncated; pass connection_id or raise limit")
	}
	return b.String()
}

// stripLinks drops the REST `links` member from an RS body.
func stripLinks(body json.RawMessage) json.RawMessage {
	members, err := orderedObject(body)
	if err != nil {
		return body
	}
	fields := make([]field, 0, len(members))
	for _, m := range members {
		if m.key != "links" {
			fields = append(fields, field{m.key, m.value})
		}
	}
	return orderedJSON(fields)
}

// effectiveLimit is the bucket cap the RS applied (default 10).
func effectiveLimit(a aggregateArgs, agg *rsclient.Aggregation) int {
	switch {
	case agg.Limit != nil && *agg.Limit > 0:
		return *agg.Limit
	case a.Limit > 0:
		return a.Limit
	}
	return 10
}
