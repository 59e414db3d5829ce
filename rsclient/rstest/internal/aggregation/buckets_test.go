package aggregation

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestBucketKey(t *testing.T) {
	t.Parallel()
	chicago := mustLoad(t, "America/Chicago")
	utc := func(s string) time.Time {
		t.Helper()
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		at          string
		granularity string
		loc         *time.Location
		want        string
	}{
		{"2026-03-02T10:07:59Z", Minute, nil, "2026-03-02T10:07"},
		{"2026-03-02T10:07:59Z", Hour, nil, "2026-03-02T10:00"},
		{"2026-03-02T10:07:59Z", Day, nil, "2026-03-02"},
		{"2026-03-02T10:07:59Z", Month, nil, "2026-03-01"},
		{"2026-03-02T10:07:59Z", Quarter, nil, "2026-01-01"},
		{"2026-12-31T23:59:59Z", Quarter, time.UTC, "2026-10-01"},
		{"2026-07-01T00:00:00Z", Quarter, nil, "2026-07-01"},
		{"2026-06-30T23:59:59Z", Quarter, nil, "2026-04-01"},
		{"2026-03-02T10:07:59Z", Year, nil, "2026-01-01"},
		// Weeks start on Monday: a Monday is its own start, a Sunday
		// belongs to the previous Monday, across months and years.
		{"2026-03-09T00:00:00Z", Week, nil, "2026-03-09"},
		{"2026-03-08T23:59:59Z", Week, nil, "2026-03-02"},
		{"2026-01-01T12:00:00Z", Week, nil, "2025-12-29"},
		{"2026-03-01T12:00:00Z", Week, nil, "2026-02-23"},
		// America/Chicago: the zone moves day, week and month edges.
		{"2026-03-01T05:59:59Z", Month, chicago, "2026-02-01"},
		{"2026-03-01T06:00:00Z", Month, chicago, "2026-03-01"},
		{"2026-01-01T03:00:00Z", Year, chicago, "2025-01-01"},
		{"2026-03-09T04:59:59Z", Week, chicago, "2026-03-02"}, // Sun 23:59 CDT
		{"2026-03-09T05:00:00Z", Week, chicago, "2026-03-09"}, // Mon 00:00 CDT
		// Spring forward on 2026-03-08: 02:00 CST jumps to 03:00 CDT.
		{"2026-03-08T07:30:00Z", Hour, chicago, "2026-03-08T01:00"},
		{"2026-03-08T08:30:00Z", Hour, chicago, "2026-03-08T03:00"},
		{"2026-03-08T08:30:00Z", Day, chicago, "2026-03-08"},
		{"2026-03-09T04:30:00Z", Day, chicago, "2026-03-08"},
		{"2026-03-09T05:30:00Z", Day, chicago, "2026-03-09"},
		// Fall back on 2026-11-01: 01:30 happens twice, one bucket key.
		{"2026-11-01T06:30:00Z", Hour, chicago, "2026-11-01T01:00"},
		{"2026-11-01T07:30:00Z", Hour, chicago, "2026-11-01T01:00"},
		{"2026-11-01T07:30:00Z", Minute, chicago, "2026-11-01T01:30"},
		{"2026-11-02T05:59:00Z", Day, chicago, "2026-11-01"},
		{"2026-03-02T10:07:59Z", "fortnight", nil, ""},
	}
	for _, tt := range tests {
		if got := BucketKey(utc(tt.at), tt.granularity, tt.loc); got != tt.want {
			t.Errorf("BucketKey(%s, %s, %v) = %q, want %q", tt.at, tt.granularity, tt.loc, got, tt.want)
		}
	}
}

func TestGroupByTime(t *testing.T) {
	t.Parallel()
	chicago := mustLoad(t, "America/Chicago")
	rows := decodeRows(t, `[
	 {"at":"2026-04-10T12:00:00Z"},
	 {"at":"2026-03-01T05:00:00Z"},
	 {"at":"garbage"},
	 {"at":"2026-02-14T00:00:00Z"},
	 {"at":"2026-03-31T23:00:00-05:00"},
	 {"at":12345},
	 {},
	 {"at":"2026-03-01"},
	 {"at":"2026-01-31T23:00:00-06:00"}
	]`)
	tests := []struct {
		name string
		spec Spec
		want Result
	}{
		{"month in Chicago, chronological, null last", Spec{Metric: "count", GroupByTime: "at", Granularity: Month, Location: chicago},
			Result{Groups: []Group{
				{"2026-01-01", 1}, // Jan 31 23:00 CST
				{"2026-02-01", 2}, // Feb 13 18:00 CST; Feb 28 23:00 CST
				{"2026-03-01", 2}, // bare date is a civil day; Mar 31 23:00 CDT
				{"2026-04-01", 1},
				{nil, 3},
			}, FilteredRecordCount: 9}},
		{"month in UTC", Spec{Metric: "count", GroupByTime: "at", Granularity: Month},
			Result{Groups: []Group{
				{"2026-02-01", 2}, {"2026-03-01", 2}, {"2026-04-01", 2}, {nil, 3},
			}, FilteredRecordCount: 9}},
		{"limit keeps the earliest buckets", Spec{Metric: "count", GroupByTime: "at", Granularity: Year, Limit: 1},
			Result{Groups: []Group{{"2026-01-01", 6}}, OtherCount: 3, FilteredRecordCount: 9}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Compute(rows, tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		spec  Spec
		parts []Result
		want  Result
	}{
		{"count", Spec{Metric: "count"},
			[]Result{{Value: int64(3), FilteredRecordCount: 3}, {Value: int64(4), FilteredRecordCount: 4}},
			Result{Value: int64(7), FilteredRecordCount: 7}},
		{"no parts", Spec{Metric: "count"}, nil, Result{Value: int64(0)}},
		{"sum int stays int", Spec{Metric: "sum", Field: "n"},
			[]Result{{Value: int64(3)}, {Value: int64(-1)}}, Result{Value: int64(2)}},
		{"sum int and float", Spec{Metric: "sum", Field: "n"},
			[]Result{{Value: int64(3)}, {Value: 0.5}}, Result{Value: 3.5}},
		{"min numbers, nil part ignored", Spec{Metric: "min", Field: "n"},
			[]Result{{Value: json.Number("5")}, {Value: nil}, {Value: json.Number("-2.5")}}, Result{Value: json.Number("-2.5")}},
		{"max date-times keep the original", Spec{Metric: "max", Field: "d"},
			[]Result{{Value: "2026-03-01T12:00:00Z"}, {Value: "2026-03-01T07:00:00-06:00"}}, Result{Value: "2026-03-01T07:00:00-06:00"}},
		{"all nil", Spec{Metric: "max", Field: "d"}, []Result{{}, {}}, Result{}},
		{"count_distinct single part", Spec{Metric: "count_distinct", Field: "d"},
			[]Result{{Value: int64(4), FilteredRecordCount: 9}}, Result{Value: int64(4), FilteredRecordCount: 9}},
		{"grouped scalar: summed, reordered, cut, no other_count", Spec{Metric: "count", GroupBy: "k", Limit: 2},
			[]Result{
				{Groups: []Group{{"a", 5}, {"b", 1}}, OtherCount: 9, FilteredRecordCount: 15},
				{Groups: []Group{{"b", 6}, {nil, 2}, {"c", 1}}, OtherCount: 4, FilteredRecordCount: 13},
			},
			Result{Groups: []Group{{"b", 7}, {"a", 5}}, FilteredRecordCount: 28}},
		{"grouped time: chronological, null last", Spec{Metric: "count", GroupByTime: "at", Granularity: Day},
			[]Result{
				{Groups: []Group{{"2026-03-02", 1}, {nil, 1}}},
				{Groups: []Group{{"2026-03-01", 4}, {"2026-03-02", 2}}},
			},
			Result{Groups: []Group{{"2026-03-01", 4}, {"2026-03-02", 3}, {nil, 1}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, Merge(tt.parts, tt.spec)); diff != "" {
				t.Errorf("Merge (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMergeMatchesCompute checks fan-in against computing over all rows.
func TestMergeMatchesCompute(t *testing.T) {
	t.Parallel()
	a := decodeRows(t, `[{"n":1,"k":"x","at":"2026-01-05T00:00:00Z"},{"n":2.5,"k":"y","at":"2026-01-06T00:00:00Z"}]`)
	b := decodeRows(t, `[{"n":-4,"k":"x","at":"2026-01-12T00:00:00Z"},{"k":"z"}]`)
	for _, spec := range []Spec{
		{Metric: "count"}, {Metric: "sum", Field: "n"}, {Metric: "min", Field: "n"}, {Metric: "max", Field: "at"},
		{Metric: "count", GroupBy: "k"}, {Metric: "count", GroupByTime: "at", Granularity: Week},
	} {
		ra, _ := Compute(a, spec)
		rb, _ := Compute(b, spec)
		whole, _ := Compute(append(append([]map[string]any{}, a...), b...), spec)
		if diff := cmp.Diff(whole, Merge([]Result{ra, rb}, spec)); diff != "" {
			t.Errorf("%+v: Merge != Compute over all rows (-compute +merge):\n%s", spec, diff)
		}
	}
}
