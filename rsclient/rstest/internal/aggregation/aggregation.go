// Package aggregation computes the results of the RS aggregate endpoint
// (GET /v1/streams/{stream}/aggregate, rs-contract §2.7) over decoded
// records: count, sum, min, max and count_distinct, plain or grouped by a
// scalar field or a time bucket, and the fan-in merge of per-connection
// results.
//
// It is pure arithmetic: which fields are declared, granted or aggregatable
// is validated by the caller (the mock RS), so the errors here are only for
// input no request could legitimately produce.
package aggregation

import (
	"errors"
	"fmt"
	"time"
)

// Metrics, as spelled on the wire.
const (
	MetricCount         = "count"
	MetricSum           = "sum"
	MetricMin           = "min"
	MetricMax           = "max"
	MetricCountDistinct = "count_distinct"
)

// Granularities of group_by_time, as spelled on the wire.
const (
	Minute  = "minute"
	Hour    = "hour"
	Day     = "day"
	Week    = "week"
	Month   = "month"
	Quarter = "quarter"
	Year    = "year"
)

// DefaultLimit is the number of groups kept when Spec.Limit is not positive.
const DefaultLimit = 10

// Spec is one aggregate request. Field names the metric's field (unused by
// count); GroupBy or GroupByTime (never both, only with count) selects
// grouping; Granularity and Location (nil = UTC) shape time buckets; Limit
// caps the groups returned (DefaultLimit when <= 0).
type Spec struct {
	Metric, Field, GroupBy, GroupByTime, Granularity string
	Location                                         *time.Location
	Limit                                            int
}

// Group is one bucket of a grouped count. Key is the raw JSON value of a
// group_by field (string, json.Number, bool or nil) or the bucket-start
// string of a group_by_time granularity (nil for unparseable dates).
type Group struct {
	Key   any
	Count int64
}

// Result is an aggregate outcome. Scalar metrics set Value: int64 for count
// and count_distinct, int64 or float64 for sum, the original field value for
// min/max (nil when no row has one). Grouped counts set Groups and
// OtherCount (the count of groups cut by the limit). FilteredRecordCount is
// the number of rows aggregated.
type Result struct {
	Value               any
	Groups              []Group
	OtherCount          int64
	FilteredRecordCount int64
}

// ErrInvalidSpec is wrapped by every error of Compute.
var ErrInvalidSpec = errors.New("aggregation: invalid spec")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidSpec, fmt.Sprintf(format, args...))
}

// grouped reports whether spec asks for groups.
func (s Spec) grouped() bool { return s.GroupBy != "" || s.GroupByTime != "" }

// limit returns the effective group limit.
func (s Spec) limit() int {
	if s.Limit <= 0 {
		return DefaultLimit
	}
	return s.Limit
}

// location returns the effective bucket zone.
func (s Spec) location() *time.Location {
	if s.Location == nil {
		return time.UTC
	}
	return s.Location
}

// validate rejects specs no valid request produces.
func (s Spec) validate() error {
	switch s.Metric {
	case MetricCount:
	case MetricSum, MetricMin, MetricMax, MetricCountDistinct:
		if s.Field == "" {
			return invalid("metric %q needs a field", s.Metric)
		}
		if s.grouped() {
			return invalid("grouping is only allowed with metric count, not %q", s.Metric)
		}
	default:
		return invalid("unknown metric %q", s.Metric)
	}
	if s.GroupBy != "" && s.GroupByTime != "" {
		return invalid("group_by %q and group_by_time %q are exclusive", s.GroupBy, s.GroupByTime)
	}
	if s.GroupByTime != "" && !validGranularity(s.Granularity) {
		return invalid("unknown granularity %q", s.Granularity)
	}
	return nil
}

// Compute aggregates rows (records decoded with json.Decoder.UseNumber, so
// numbers are json.Number; float64 and Go integers are accepted too).
// Values a metric cannot use are skipped rather than failing the request:
// non-numeric values for sum, values that are neither numbers nor
// date/date-time strings for min/max, nulls everywhere. It errors (wrapping
// ErrInvalidSpec) only for an unknown metric or granularity, a missing
// field, or grouping combined with a non-count metric.
func Compute(rows []map[string]any, spec Spec) (Result, error) {
	if err := spec.validate(); err != nil {
		return Result{}, err
	}
	res := Result{FilteredRecordCount: int64(len(rows))}
	switch {
	case spec.GroupBy != "":
		res.Groups, res.OtherCount = finishGroups(groupScalar(rows, spec.GroupBy), false, spec.limit())
	case spec.GroupByTime != "":
		res.Groups, res.OtherCount = finishGroups(groupTime(rows, spec), true, spec.limit())
	case spec.Metric == MetricCount:
		res.Value = int64(len(rows))
	case spec.Metric == MetricSum:
		var s sum
		for _, r := range rows {
			s.add(r[spec.Field])
		}
		res.Value = s.value()
	case spec.Metric == MetricMin, spec.Metric == MetricMax:
		var e extreme
		for _, r := range rows {
			e.add(r[spec.Field], spec.Metric == MetricMax)
		}
		res.Value = e.value
	case spec.Metric == MetricCountDistinct:
		seen := make(map[string]struct{})
		for _, r := range rows {
			if v := r[spec.Field]; v != nil {
				seen[identity(v)] = struct{}{}
			}
		}
		res.Value = int64(len(seen))
	}
	return res, nil
}
