package adapter

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/pdpp/pdpp-mcp/page"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

var aggregateTool = toolSpec{
	Name:  "aggregate",
	Title: "Aggregate PDPP records",
	Description: "Compute count, sum, min, max or count_distinct over one stream without reading record bodies. " +
		"Group a count by one field (group_by) or by time (group_by_time + granularity), not both. " +
		"Buckets beyond limit are summed in other_count: a positive other_count means the list is top-N truncated." + wholePage,
	Handle: aggregateLogic.handle,
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
	GrantID      string          `json:"grant_id"`
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

// aggregateLogic is aggregate's part of a call: one aggregation over one
// stream, routed to the grant that serves it; the read is the parsed
// filter.
var aggregateLogic = toolLogic[aggregateArgs, rsclient.Filter]{
	check:   checkAggregate,
	grantID: func(a aggregateArgs) string { return a.GrantID },
	source:  func(a aggregateArgs, _ rsclient.Filter) (string, string) { return a.Stream, a.ConnectionID },
	refused: func(a aggregateArgs, filter rsclient.Filter) refusedRead {
		return refusedRead{tool: "aggregate", stream: a.Stream, connectionID: a.ConnectionID, filter: filter,
			metric: a.Metric, field: a.Field, mayRead: true}
	},
	run: readAggregate,
}

// checkAggregate checks grant_id, the names, the cross-field rules and the
// filter, in that order, and returns the parsed filter.
func checkAggregate(_ *Server, a *aggregateArgs) (rsclient.Filter, *toolError) {
	if e := validateSegments(seg{"grant_id", a.GrantID}); e != nil {
		return nil, e
	}
	if e := validateSegments(seg{"stream", a.Stream}, seg{"connection_id", a.ConnectionID}); e != nil {
		return nil, e
	}
	if e := a.check(); e != nil {
		return nil, e
	}
	return parseFilter(a.Filter)
}

// readAggregate asks the RS for the aggregation and renders its answer.
func readAggregate(ctx context.Context, c *routedCall, a aggregateArgs, filter rsclient.Filter) (*mcp.CallToolResult, *toolError) {
	agg, _, err := c.s.rs.Aggregate(ctx, c.grant.Bearer, rsclient.AggregateQuery{
		Stream: a.Stream, Metric: a.Metric, Field: a.Field, GroupBy: a.GroupBy, GroupByTime: a.GroupByTime,
		Granularity: a.Granularity, TimeZone: a.TimeZone, Limit: a.Limit, ConnectionID: a.ConnectionID, Filter: filter,
	})
	if err != nil {
		return nil, c.refusal(ctx, err)
	}
	return pageResult(page.Aggregate(page.AggregateRead{Stream: a.Stream, Metric: a.Metric, Field: a.Field, GroupBy: a.GroupBy,
		GroupByTime: a.GroupByTime, Granularity: a.Granularity, Limit: a.Limit, ConnectionID: a.ConnectionID,
		Answer: aggregateAnswer(agg), SourceWarnings: pageWarnings(c.set.warns)})), nil
}
