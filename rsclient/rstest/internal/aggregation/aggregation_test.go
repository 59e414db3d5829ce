package aggregation

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// decodeRows decodes a JSON array of records the way the mock RS does.
func decodeRows(t testing.TB, s string) []map[string]any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var rows []map[string]any
	if err := d.Decode(&rows); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return rows
}

const mail = `[
 {"id":"1","size":100,"score":1.5,"label":"inbox","sent":"2026-03-02T10:00:00Z","day":"2026-03-02","flag":true},
 {"id":"2","size":250,"score":2,"label":"work","sent":"2026-03-01T23:30:00-06:00","day":"2026-02-28","flag":false},
 {"id":"3","size":"n/a","score":null,"label":"inbox","sent":"not a date","flag":true},
 {"id":"4","size":-50,"label":null,"sent":"2026-01-15T08:00:00.123Z","day":"2026-01-15"},
 {"id":"5","size":1,"score":0.25,"label":"work","flag":true}
]`

func TestComputeScalar(t *testing.T) {
	t.Parallel()
	rows := decodeRows(t, mail)
	tests := []struct {
		name string
		spec Spec
		want any
	}{
		{"count", Spec{Metric: "count"}, int64(5)},
		{"sum integers stays integer, strings skipped", Spec{Metric: "sum", Field: "size"}, int64(301)},
		{"sum floats", Spec{Metric: "sum", Field: "score"}, 3.75},
		{"sum of nothing", Spec{Metric: "sum", Field: "missing"}, int64(0)},
		{"min number", Spec{Metric: "min", Field: "size"}, json.Number("-50")},
		{"max number", Spec{Metric: "max", Field: "size"}, json.Number("250")},
		{"max mixed int and float", Spec{Metric: "max", Field: "score"}, json.Number("2")},
		{"min date-time keeps original string", Spec{Metric: "min", Field: "sent"}, "2026-01-15T08:00:00.123Z"},
		// 23:30 -06:00 on Mar 1 is 05:30Z on Mar 2, before 10:00Z.
		{"max date-time compares instants", Spec{Metric: "max", Field: "sent"}, "2026-03-02T10:00:00Z"},
		{"min date", Spec{Metric: "min", Field: "day"}, "2026-01-15"},
		{"max date", Spec{Metric: "max", Field: "day"}, "2026-03-02"},
		{"min of nothing is nil", Spec{Metric: "min", Field: "missing"}, nil},
		{"count_distinct skips null", Spec{Metric: "count_distinct", Field: "label"}, int64(2)},
		{"count_distinct bools", Spec{Metric: "count_distinct", Field: "flag"}, int64(2)},
		{"count_distinct mixed kinds", Spec{Metric: "count_distinct", Field: "size"}, int64(5)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Compute(rows, tt.spec)
			if err != nil {
				t.Fatalf("Compute(%+v): %v", tt.spec, err)
			}
			want := Result{Value: tt.want, FilteredRecordCount: 5}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Compute(%+v) (-want +got):\n%s", tt.spec, diff)
			}
		})
	}
}

func TestComputeEdgeNumbers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, rows string
		spec       Spec
		want       any
	}{
		{"int64 overflow falls back to float", `[{"n":9223372036854775807},{"n":1}]`, Spec{Metric: "sum", Field: "n"}, 9223372036854775808.0},
		{"negative overflow", `[{"n":-9223372036854775808},{"n":-1}]`, Spec{Metric: "sum", Field: "n"}, -9223372036854775809.0},
		{"1 and 1.0 are one distinct value", `[{"n":1},{"n":1.0},{"n":"1"}]`, Spec{Metric: "count_distinct", Field: "n"}, int64(2)},
		{"big integers compare exactly", `[{"n":9007199254740993},{"n":9007199254740992}]`, Spec{Metric: "max", Field: "n"}, json.Number("9007199254740993")},
		{"first kind wins for min", `[{"n":"2026-01-01"},{"n":5},{"n":"2025-01-01"}]`, Spec{Metric: "min", Field: "n"}, "2025-01-01"},
		{"objects counted by content", `[{"n":{"a":1}},{"n":{"a":1}},{"n":[1]}]`, Spec{Metric: "count_distinct", Field: "n"}, int64(2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Compute(decodeRows(t, tt.rows), tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.Value); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestComputeErrors(t *testing.T) {
	t.Parallel()
	for _, spec := range []Spec{
		{Metric: "distinct_count", Field: "x"},
		{Metric: ""},
		{Metric: "sum"},
		{Metric: "sum", Field: "x", GroupBy: "y"},
		{Metric: "count", GroupBy: "a", GroupByTime: "b", Granularity: "day"},
		{Metric: "count", GroupByTime: "b", Granularity: "fortnight"},
		{Metric: "count", GroupByTime: "b"},
	} {
		if _, err := Compute(nil, spec); !errors.Is(err, ErrInvalidSpec) {
			t.Errorf("Compute(%+v) error = %v, want ErrInvalidSpec", spec, err)
		}
	}
}

func TestGroupByScalar(t *testing.T) {
	t.Parallel()
	rows := decodeRows(t, `[
	 {"k":"b"},{"k":"a"},{"k":"b"},{"k":null},{},{"k":"c"},{"k":"a"},{"k":3},{"k":true},{"k":10},{"k":false},{"k":"b"}
	]`)
	tests := []struct {
		name  string
		limit int
		want  Result
	}{
		{"count desc then key: bool, number, string, null", 0, Result{
			Groups: []Group{
				{"b", 3}, {"a", 2}, {nil, 2},
				{false, 1}, {true, 1}, {json.Number("3"), 1}, {json.Number("10"), 1}, {"c", 1},
			},
			FilteredRecordCount: 12,
		}},
		{"limit sums the rest into other_count", 2, Result{
			Groups: []Group{{"b", 3}, {"a", 2}}, OtherCount: 7, FilteredRecordCount: 12,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Compute(rows, Spec{Metric: "count", GroupBy: "k", Limit: tt.limit})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestGroupByDefaultLimit(t *testing.T) {
	t.Parallel()
	var rows []map[string]any
	for i := range 15 {
		rows = append(rows, map[string]any{"k": string(rune('a' + i))})
	}
	got, err := Compute(rows, Spec{Metric: "count", GroupBy: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Groups) != DefaultLimit || got.OtherCount != 5 {
		t.Errorf("got %d groups, other %d; want %d and 5", len(got.Groups), got.OtherCount, DefaultLimit)
	}
	empty, _ := Compute(nil, Spec{Metric: "count", GroupBy: "k"})
	if empty.Groups == nil {
		t.Errorf("empty grouping has nil Groups; want [] so it encodes as an array")
	}
}

func mustLoad(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Skipf("time zone %s unavailable: %v", name, err)
	}
	return loc
}
