package page

import "encoding/json"

// AggregateRead is one aggregate call and the RS's answer, everything its
// page is rendered from.
type AggregateRead struct {
	// What was asked: metric over Stream (and Field), grouped by GroupBy
	// or by GroupByTime at Granularity, Limit buckets (0: the RS's
	// default), within ConnectionID ("" for every connection).
	Stream, Metric, Field             string
	GroupBy, GroupByTime, Granularity string
	Limit                             int
	ConnectionID                      string
	Answer                            AggregateAnswer
	// SourceWarnings are the call's warnings about its sources.
	SourceWarnings []Warning
}

// AggregateAnswer is what the RS answered.
type AggregateAnswer struct {
	// Value is an ungrouped answer's JSON value.
	Value json.RawMessage
	// Groups are a grouped answer's buckets, in the RS's order.
	Groups []AggregateGroup
	// Limit is the bucket cap the RS applied, OtherCount the records in
	// buckets beyond it (nil when the RS did not say).
	Limit      *int
	OtherCount *int64
	// TimeZone is the zone time buckets were cut in ("" for UTC).
	TimeZone string
	// FilteredRecordCount is how many records the answer is over.
	FilteredRecordCount int64
}

// AggregateGroup is one bucket: its key as the RS wrote it, and its count.
type AggregateGroup struct {
	Key   json.RawMessage
	Count int64
}

// Aggregate renders an aggregate answer: the answer first, keyed by what
// was asked, then every bucket, the truncation facts and the warnings.
func Aggregate(a AggregateRead) Result {
	v := newAggregateView(a)
	return result(v.text(), v, nil)
}
