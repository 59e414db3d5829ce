package adapter

import (
	"encoding/json"
	"math/big"
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
		{"9007199254740993.0", "9007199254740993", true}, // 2^53 + 1: exact, not rounded
		{"1e16", "10000000000000000", true},
		{"9223372036854775807.0", "9223372036854775807", true}, // max int64
		{"25", "", false},                                      // already plain
		{"5.5", "", false},                                     // not whole
		{"1.0000000000000001", "", false},                      // not whole, though float64 rounds it to 1
		{"1e-1", "", false},
		{"1e-400", "", false},
		{"1e400", "", false},
		{"9223372036854775808.0", "", false}, // beyond int64
		{"1e999999999", "", false},           // no 10^999999999 is built
		{`"5.0"`, "", false},                 // a string
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
	for _, s := range []string{"25.0", "1e2", "-0.0", "5.5", "1e400", `"x"`, "9007199254740993.0", "1.0000000000000001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		digits, ok := integralNumber([]byte(raw))
		if !ok {
			return
		}
		// The digits are a plain JSON integer that Go decodes into an
		// int64, and exactly the value raw denotes.
		var n int64
		if err := json.Unmarshal(digits, &n); err != nil {
			t.Fatalf("%q → %q: not an int64: %v", raw, digits, err)
		}
		want, ok := new(big.Rat).SetString(raw)
		if !ok || !json.Valid([]byte(raw)) || want.Cmp(new(big.Rat).SetInt64(n)) != 0 {
			t.Fatalf("%q → %q: not the same value", raw, digits)
		}
	})
}

// A cursor continues the call it was issued for whatever spelling the
// counts of expand_limit had: {"thread": 2.0} and {"thread": 2} are one
// shape.
func TestRecordsShapeSpellsExpandLimitPlainly(t *testing.T) {
	t.Parallel()
	spelled := queryRecordsArgs{ExpandLimit: json.RawMessage(`{"thread":2.0,"labels":1e1}`)}.shape()
	plain := queryRecordsArgs{ExpandLimit: json.RawMessage(`{"thread":2,"labels":10}`)}.shape()
	if diff := cmp.Diff(string(plain.ExpandLimit), string(spelled.ExpandLimit)); diff != "" {
		t.Error(diff)
	}
}

func TestWithoutOptionalNulls(t *testing.T) {
	t.Parallel()
	optional := func(name string) bool { return name == "cursor" || name == "limit" || name == "filter" }
	for _, tc := range []struct {
		name, raw, want string // want "" = nothing to rewrite
	}{
		{"drops optional nulls", `{"stream":"m","cursor":null,"limit": null }`, `{"stream":"m"}`},
		{"escaped name", `{"stream":"m","cur\u0073or":null}`, `{"stream":"m"}`},
		{"required null kept", `{"stream":null,"cursor":null}`, `{"stream":null}`},
		{"unknown null kept", `{"stream":"m","limt":null}`, ""},
		{"nested null kept", `{"filter":{"a":null}}`, ""},
		{"null string kept", `{"cursor":"null"}`, ""},
		{"duplicate name left to validation", `{"cursor":"abc","cursor":null}`, ""},
		{"not an object", `[null]`, ""},
		{"no null", `{"stream":"m"}`, ""},
	} {
		got, ok := withoutOptionalNulls(json.RawMessage(tc.raw), optional)
		if ok != (tc.want != "") || string(got) != tc.want {
			t.Errorf("%s: withoutOptionalNulls(%s) = %s, %v; want %q", tc.name, tc.raw, got, ok, tc.want)
		}
	}
}
