package aggregation

import (
	"slices"
	"time"
)

// groupSet accumulates counts per key, remembering the first raw value seen
// for each identity so the response echoes the record's own representation.
type groupSet struct {
	index  map[string]int
	groups []Group
}

func newGroupSet() *groupSet { return &groupSet{index: make(map[string]int)} }

func (g *groupSet) add(key any, n int64) {
	id := identity(key)
	i, ok := g.index[id]
	if !ok {
		i = len(g.groups)
		g.index[id] = i
		g.groups = append(g.groups, Group{Key: key})
	}
	g.groups[i].Count += n
}

// groupScalar counts rows per raw value of field; missing fields are null.
func groupScalar(rows []map[string]any, field string) []Group {
	g := newGroupSet()
	for _, r := range rows {
		g.add(r[field], 1)
	}
	return g.groups
}

// groupTime counts rows per time bucket of spec.GroupByTime; values that are
// missing, not strings or unparseable all land in the nil bucket.
func groupTime(rows []map[string]any, spec Spec) []Group {
	loc := spec.location()
	g := newGroupSet()
	for _, r := range rows {
		var key any
		if s, ok := r[spec.GroupByTime].(string); ok {
			if t, ok := parseTime(s, loc); ok {
				key = BucketKey(t, spec.Granularity, loc)
			}
		}
		g.add(key, 1)
	}
	return g.groups
}

// finishGroups orders groups (time buckets chronologically ascending, scalar
// groups by count desc then key ascending, nil last in both) and keeps the
// first limit of them, returning the count of the rest. The result is never
// nil so an empty grouping encodes as [] rather than null.
func finishGroups(groups []Group, byTime bool, limit int) ([]Group, int64) {
	if byTime {
		// Bucket keys share one zero-padded layout per granularity, so
		// string order is chronological order.
		slices.SortStableFunc(groups, func(a, b Group) int { return compareKeys(a.Key, b.Key) })
	} else {
		slices.SortStableFunc(groups, func(a, b Group) int {
			if a.Count != b.Count {
				if a.Count > b.Count {
					return -1
				}
				return 1
			}
			return compareKeys(a.Key, b.Key)
		})
	}
	var other int64
	if len(groups) > limit {
		for _, g := range groups[limit:] {
			other += g.Count
		}
		groups = groups[:limit]
	}
	return append(make([]Group, 0, len(groups)), groups...), other
}

// validGranularity reports whether g is a group_by_time granularity.
func validGranularity(g string) bool {
	switch g {
	case Minute, Hour, Day, Week, Month, Quarter, Year:
		return true
	}
	return false
}

// BucketKey returns the group_by_time key of t: the start of its bucket in
// loc (nil = UTC), formatted `YYYY-MM-DDTHH:MM` for minute,
// `YYYY-MM-DDTHH:00` for hour and `YYYY-MM-DD` for day, week (weeks start on
// Monday), month, quarter and year. Calendar arithmetic goes through
// time.Date so DST transitions never shift a day bucket. It returns "" for
// an unknown granularity.
func BucketKey(t time.Time, granularity string, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	t = t.In(loc)
	y, m, d := t.Date()
	switch granularity {
	case Minute:
		return t.Format("2006-01-02T15:04")
	case Hour:
		return t.Format("2006-01-02T15") + ":00"
	case Day:
	case Week:
		back := (int(t.Weekday()) + 6) % 7 // days since Monday
		y, m, d = time.Date(y, m, d-back, 12, 0, 0, 0, time.UTC).Date()
	case Month:
		d = 1
	case Quarter:
		m, d = (m-1)/3*3+1, 1
	case Year:
		m, d = time.January, 1
	default:
		return ""
	}
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Format("2006-01-02")
}

// Merge combines per-connection results of one spec (the RS fan-in):
// counts and sums add up, min takes the least and max the greatest original
// value, grouped counts are summed per key, re-ordered and cut to the limit.
// Merged grouped results always have OtherCount 0, because the RS emits no
// other_count on merged grouped responses (each part's tail is unknown per
// key, so it cannot be summed honestly). count_distinct is not mergeable —
// the RS rejects it across connections — so Merge returns the single part's
// value, or the sum of parts as an upper bound when given several.
func Merge(parts []Result, spec Spec) Result {
	var res Result
	for _, p := range parts {
		res.FilteredRecordCount += p.FilteredRecordCount
	}
	if spec.grouped() {
		g := newGroupSet()
		for _, p := range parts {
			for _, gr := range p.Groups {
				g.add(gr.Key, gr.Count)
			}
		}
		res.Groups, _ = finishGroups(g.groups, spec.GroupByTime != "", spec.limit())
		return res
	}
	switch spec.Metric {
	case MetricCount, MetricSum, MetricCountDistinct:
		if spec.Metric == MetricCountDistinct && len(parts) == 1 {
			res.Value = parts[0].Value
			break
		}
		var s sum
		for _, p := range parts {
			s.add(p.Value)
		}
		res.Value = s.value()
	case MetricMin, MetricMax:
		var e extreme
		for _, p := range parts {
			if p.Value != nil {
				e.add(p.Value, spec.Metric == MetricMax)
			}
		}
		res.Value = e.value
	}
	return res
}
