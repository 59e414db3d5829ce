package aggregation

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"2026-03-01", "2026-03-01T05:00:00Z", "2026-03-01 05:00:00.5+02:00", "2026-13-01", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		at, ok := parseTime(s, time.UTC)
		if !ok {
			return
		}
		for _, g := range []string{Minute, Hour, Day, Week, Month, Quarter, Year} {
			key := BucketKey(at, g, time.UTC)
			layout := map[bool]string{true: "2006-01-02T15:04", false: "2006-01-02"}[g == Minute || g == Hour]
			start, err := time.Parse(layout, key)
			if err != nil {
				t.Fatalf("BucketKey(%q, %s) = %q: %v", s, g, key, err)
			}
			if start.After(at) {
				t.Fatalf("bucket %q of %s starts after %v", key, g, at)
			}
		}
	})
}

// FuzzCompute feeds arbitrary JSON values through every metric and checks
// the invariants that hold for any input: no panic, grouped counts (plus
// other_count) add up to the rows, and a two-way fan-in equals the whole.
func FuzzCompute(f *testing.F) {
	f.Add(`[1, "a", null, true, 2.5, "2026-01-01", {"x":1}]`, 2)
	f.Add(`["2026-03-01T05:00:00Z", "2026-03-01T05:00:00-06:00", 9223372036854775807, 1]`, 1)
	f.Fuzz(func(t *testing.T, values string, split int) {
		d := json.NewDecoder(strings.NewReader(values))
		d.UseNumber()
		var vals []any
		if d.Decode(&vals) != nil || len(vals) > 200 {
			return
		}
		rows := make([]map[string]any, len(vals))
		for i, v := range vals {
			rows[i] = map[string]any{"v": v}
		}
		split = min(max(split, 0), len(rows))
		for _, spec := range []Spec{
			{Metric: MetricCount, GroupBy: "v", Limit: 3},
			{Metric: MetricCount, GroupByTime: "v", Granularity: Week, Limit: 2},
			{Metric: MetricSum, Field: "v"}, {Metric: MetricMin, Field: "v"}, {Metric: MetricMax, Field: "v"},
			{Metric: MetricCountDistinct, Field: "v"},
		} {
			res, err := Compute(rows, spec)
			if err != nil {
				t.Fatalf("%+v: %v", spec, err)
			}
			if spec.grouped() {
				total := res.OtherCount
				for _, g := range res.Groups {
					total += g.Count
				}
				if total != int64(len(rows)) {
					t.Fatalf("%+v: groups count %d rows, want %d", spec, total, len(rows))
				}
				continue
			}
			if spec.Metric == MetricCountDistinct || spec.Metric == MetricSum {
				continue // not mergeable / float addition is order-dependent
			}
			a, _ := Compute(rows[:split], spec)
			b, _ := Compute(rows[split:], spec)
			if got, want := fmt.Sprint(Merge([]Result{a, b}, spec).Value), fmt.Sprint(res.Value); got != want {
				t.Fatalf("%+v: merge %s, whole %s", spec, got, want)
			}
		}
	})
}

func BenchmarkComputeGroupByTime100k(b *testing.B) {
	rows := make([]map[string]any, 100_000)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range rows {
		rows[i] = map[string]any{"at": base.Add(time.Duration(i) * 7 * time.Minute).Format(time.RFC3339)}
	}
	loc, err := time.LoadLocation("America/Chicago")
	if err != nil {
		loc = time.UTC
	}
	spec := Spec{Metric: MetricCount, GroupByTime: "at", Granularity: Day, Location: loc, Limit: 100}
	b.ReportAllocs()
	for range b.N {
		if _, err := Compute(rows, spec); err != nil {
			b.Fatal(err)
		}
	}
}
