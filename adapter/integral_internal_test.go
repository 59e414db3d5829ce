package adapter

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/rsclient"
)

func TestIntegralNumber(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		raw, want string
		ok        bool
	}{
		{"25.0", "25", true},
		{"1e2", "100", true},
		{"2E+1", "20", true},
		{"-3.000", "-3", true},
		{"0.0", "0", true},
		{"9007199254740992.0", "9007199254740992", true}, // 2^53
		{"25", "", false},                                // already plain
		{"5.5", "", false},                               // not whole
		{"1e-1", "", false},                              //
		{"1e400", "", false},                             // out of range
		{"9007199254740994.0", "", false},                // beyond 2^53
		{`"5.0"`, "", false},                             // a string
		{"true", "", false},
		{"", "", false},
	} {
		got, ok := integralNumber([]byte(tc.raw))
		if ok != tc.ok || string(got) != tc.want {
			t.Errorf("integralNumber(%q) = %q, %v; want %q, %v", tc.raw, got, ok, tc.want, tc.ok)
		}
	}
}

func TestWithIntegralMembers(t *testing.T) {
	t.Parallel()
	got, ok := withIntegralMembers(json.RawMessage(`{"stream":"messages","limit":25.0,"filter":{"n":1.0},"q":"1.0"}`))
	if !ok {
		t.Fatal("nothing rewritten")
	}
	// Only top-level numbers are respelled: a filter value goes to the RS
	// as the caller wrote it.
	if want := `{"stream":"messages","limit":25,"filter":{"n":1.0},"q":"1.0"}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if _, ok := withIntegralMembers(json.RawMessage(`{"limit":25}`)); ok {
		t.Error("plain arguments rewritten")
	}
}

func TestExpandLimitAcceptsIntegralSpellings(t *testing.T) {
	t.Parallel()
	got, e := parseExpandLimit(json.RawMessage(`{"thread":2.0,"labels":1e1}`))
	if e != nil {
		t.Fatal(e)
	}
	if diff := cmp.Diff([]rsclient.ExpandLimit{{Relation: "thread", Limit: 2}, {Relation: "labels", Limit: 10}}, got); diff != "" {
		t.Error(diff)
	}
}

func FuzzIntegralNumber(f *testing.F) {
	for _, s := range []string{"25.0", "1e2", "-0.0", "5.5", "1e400", `"x"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		digits, ok := integralNumber([]byte(raw))
		if !ok {
			return
		}
		// The digits are a plain JSON integer equal to what raw denotes.
		var n int64
		if err := json.Unmarshal(digits, &n); err != nil {
			t.Fatalf("%q → %q: not an integer: %v", raw, digits, err)
		}
		var f64 float64
		if err := json.Unmarshal([]byte(raw), &f64); err != nil || float64(n) != f64 {
			t.Fatalf("%q → %q: value %v, raw %v (%v)", raw, digits, n, f64, err)
		}
	})
}
