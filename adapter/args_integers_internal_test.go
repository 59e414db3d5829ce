package adapter

import (
	"cmp"
	"encoding/json"
	"math/big"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

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

func TestPlainIntegers(t *testing.T) {
	t.Parallel()
	// Only top-level numbers are respelled: a filter value goes to the RS
	// as the caller wrote it.
	got := plainIntegers(json.RawMessage(`{"stream":"messages","limit":25.0,"filter":{"n":1.0},"q":"1.0"}`))
	if want := `{"stream":"messages","limit":25,"filter":{"n":1.0},"q":"1.0"}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if raw := json.RawMessage(`{"limit":25}`); &plainIntegers(raw)[0] != &raw[0] {
		t.Error("plain arguments rebuilt instead of returned as they are")
	}
}

func TestExpandLimitAcceptsIntegralSpellings(t *testing.T) {
	t.Parallel()
	got, e := parseExpandLimit(json.RawMessage(`{"thread":2.0,"labels":1e1}`))
	if e != nil {
		t.Fatal(e)
	}
	if diff := gocmp.Diff([]rsclient.ExpandLimit{{Relation: "thread", Limit: 2}, {Relation: "labels", Limit: 10}}, got); diff != "" {
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
	if diff := gocmp.Diff(string(plain.ExpandLimit), string(spelled.ExpandLimit)); diff != "" {
		t.Error(diff)
	}
}

func TestGivenArguments(t *testing.T) {
	t.Parallel()
	optional := func(name string) bool { return name == "cursor" || name == "limit" || name == "filter" }
	for _, tc := range []struct {
		name, raw, want string // want "" = raw comes back as it is
	}{
		{"drops optional nulls", `{"stream":"m","cursor":null,"limit": null }`, `{"stream":"m"}`},
		{"escaped name", `{"stream":"m","cur\u0073or":null}`, `{"stream":"m"}`},
		{"required null kept", `{"stream":null,"cursor":null}`, `{"stream":null}`},
		{"integers respelled in the same walk", `{"stream":"m","limit":25.0,"cursor":null}`, `{"stream":"m","limit":25}`},
		{"unknown null kept", `{"stream":"m","limt":null}`, ""},
		{"nested null kept", `{"filter":{"a":null}}`, ""},
		{"null string kept", `{"cursor":"null"}`, ""},
		{"repeated name: nulls left to validation", `{"cursor":"abc","cursor":null}`, ""},
		{"repeated name: integers still respelled", `{"limit":5.0,"limit":5.0}`, `{"limit":5,"limit":5}`},
		{"not an object", `[null]`, ""},
		{"nothing to change", `{"stream":"m","limit":25}`, ""},
	} {
		got := givenArguments(json.RawMessage(tc.raw), optional)
		want := cmp.Or(tc.want, tc.raw)
		if string(got) != want {
			t.Errorf("%s: givenArguments(%s) = %s; want %s", tc.name, tc.raw, got, want)
		}
	}
}
