package schemaindex

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseFlagsRoundTrip(t *testing.T) {
	t.Parallel()
	usable := Capability{Declared: true, Usable: true}
	tests := []struct {
		flags string
		want  Caps
	}{
		{"declared", Caps{Granted: true}},
		{"t=string", Caps{Type: "string", Granted: true}},
		{"t=text,role=primary-title,lex,sem", Caps{Type: "text", Role: "primary-title", Granted: true, Lexical: usable, Semantic: usable}},
		{"t=array,g=false", Caps{Type: "array", Granted: false}},
		{"t=string|null,a=group_by_time|max|min", Caps{Type: "string|null", Granted: true, Aggs: []string{"group_by_time", "max", "min"}}},
		{"t=integer|null,a=max|min|sum", Caps{Type: "integer|null", Granted: true, Aggs: []string{"max", "min", "sum"}}},
		{"t=string,eq", Caps{Type: "string", Granted: true, Exact: usable}},
		{"t=timestamp,r=gte|lt,a=group_by_time", Caps{Type: "timestamp", Granted: true, Range: usable, RangeOps: []string{"gte", "lt"}, Aggs: []string{"group_by_time"}}},
		{"t=number,r", Caps{Type: "number", Granted: true, Range: usable}},
		{"t=string,g=false,eq=unusable", Caps{Type: "string", Granted: false, Exact: Capability{Declared: true}}},
		{"t=string,g=false,lex=unusable:field_not_granted", Caps{Type: "string", Lexical: Capability{Declared: true, Reason: "field_not_granted"}}},
		{"t=string,role=primary-title,eq,lex,sem,a=count_distinct", Caps{Type: "string", Role: "primary-title", Granted: true, Exact: usable, Lexical: usable, Semantic: usable, Aggs: []string{"count_distinct"}}},
		{"a=count_distinct|group_by|group_by_time|max|min|sum|median", Caps{Granted: true, Aggs: []string{"count_distinct", "group_by", "group_by_time", "max", "min", "sum", "median"}}},
		{"r=unusable:field_not_granted,sem=unusable", Caps{Granted: true, Range: Capability{Declared: true, Reason: "field_not_granted"}, Semantic: Capability{Declared: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.flags, func(t *testing.T) {
			t.Parallel()
			got, err := ParseFlags(tt.flags)
			if err != nil {
				t.Fatalf("ParseFlags(%q): %v", tt.flags, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseFlags(%q) (-want +got):\n%s", tt.flags, diff)
			}
			if back := FormatFlags(got); back != tt.flags {
				t.Errorf("FormatFlags(ParseFlags(%q)) = %q", tt.flags, back)
			}
		})
	}
}

func TestParseFlagsErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ flags, token string }{
		{"", ""},
		{"t=string,bogus", "bogus"},
		{"t=string,t=text", "t=text"},
		{"g=true", "g=true"},
		{"t=", "t="},
		{"declared,t=string", "declared"},
		{"lex=yes", "lex=yes"},
		{"eq=unusable:", "eq=unusable:"},
		{"a=max|max", "a=max|max"},
		{"a=max||min", "a=max||min"},
		{"role=a|b", "role=a|b"},
		{"t=string,r=gte|", "r=gte|"},
	}
	for _, tt := range tests {
		t.Run(tt.flags, func(t *testing.T) {
			t.Parallel()
			_, err := ParseFlags(tt.flags)
			var fe *FlagError
			if !errors.As(err, &fe) || !errors.Is(err, ErrInvalidFlags) {
				t.Fatalf("ParseFlags(%q) err = %v, want *FlagError", tt.flags, err)
			}
			if fe.Token != tt.token {
				t.Errorf("ParseFlags(%q) token = %q, want %q", tt.flags, fe.Token, tt.token)
			}
			if !strings.Contains(err.Error(), tt.token) {
				t.Errorf("error %q does not name token %q", err, tt.token)
			}
		})
	}
}

// Unknown tokens do not lose the known ones: Parse relies on this leniency.
func TestParseFlagsKeepsKnownTokens(t *testing.T) {
	t.Parallel()
	got, err := ParseFlags("t=string,future_flag,lex")
	if err == nil {
		t.Fatal("want error for future_flag")
	}
	want := Caps{Type: "string", Granted: true, Lexical: Capability{Declared: true, Usable: true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestFormatFlagsCanonical(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		caps Caps
		want string
	}{
		{"empty granted", Caps{Granted: true}, "declared"},
		{"empty ungranted", Caps{}, "g=false"},
		{"agg order", Caps{Granted: true, Aggs: []string{"sum", "max", "count_distinct"}}, "a=count_distinct|max|sum"},
		{"unusable aggs not listed", Caps{Granted: true, UnusableAggs: map[string]string{"sum": "field_not_granted"}}, "declared"},
		{"sanitised", Caps{Type: "a b,c", Role: "x=y", Granted: true, Lexical: Capability{Declared: true, Reason: "not;granted"}}, "t=a_b_c,role=x_y,lex=unusable:not_granted"},
		{"ops ignored when unusable", Caps{Granted: true, Range: Capability{Declared: true}, RangeOps: []string{"gte"}}, "r=unusable"},
		{"order", Caps{Type: "string", Role: "event-time", Granted: false, Exact: Capability{Usable: true}, Range: Capability{Usable: true}, RangeOps: []string{"gte"}, Lexical: Capability{Usable: true}, Semantic: Capability{Usable: true}, Aggs: []string{"max"}},
			"t=string,role=event-time,g=false,eq,r=gte,lex,sem,a=max"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := FormatFlags(tt.caps)
			if got != tt.want {
				t.Errorf("FormatFlags = %q, want %q", got, tt.want)
			}
			if _, err := ParseFlags(got); err != nil {
				t.Errorf("ParseFlags(FormatFlags) = %v", err)
			}
		})
	}
}

// Every token FormatFlags can emit is explained by the legend.
func TestLegendCoversGrammar(t *testing.T) {
	t.Parallel()
	var tokens []string
	for _, e := range Legend {
		if e.Token == "" || e.Meaning == "" || strings.Contains(e.Token+e.Meaning, "\n") {
			t.Errorf("legend entry %+v: want a token and a one-line meaning", e)
		}
		tokens = append(tokens, e.Token)
	}
	want := []string{"t=", "role=", "g=false", "eq", "r=", "lex", "sem", "a=", "=unusable:<reason>", "declared"}
	if diff := cmp.Diff(want, tokens); diff != "" {
		t.Errorf("legend tokens (-want +got):\n%s", diff)
	}
}

func FuzzParseFlags(f *testing.F) {
	for _, s := range []string{"declared", "t=string", "t=text,role=primary-title,lex,sem", "t=array,g=false",
		"t=timestamp,r=gte|lt,a=group_by_time", "eq=unusable:field_not_granted", "a=max|min|sum", "", ",", "t==", "r=unusable:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseFlags(s)
		if err != nil {
			return
		}
		canon := FormatFlags(c)
		c2, err := ParseFlags(canon)
		if err != nil {
			t.Fatalf("ParseFlags(FormatFlags(ParseFlags(%q))=%q): %v", s, canon, err)
		}
		if again := FormatFlags(c2); again != canon {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, canon, again)
		}
		// A string already in canonical order must survive unchanged.
		if isCanonicalOrder(s) && canon != s {
			t.Fatalf("FormatFlags(ParseFlags(%q)) = %q", s, canon)
		}
	})
}

// isCanonicalOrder reports whether s's tokens follow grammar order, a= kinds
// follow AggKinds, and s has no forms FormatFlags normalises away.
func isCanonicalOrder(s string) bool {
	order := []string{"t", "role", "g", "eq", "r", "lex", "sem", "a"}
	last := -1
	for _, tok := range strings.Split(s, ",") {
		name, val, _ := strings.Cut(tok, "=")
		i := indexOf(order, name)
		if i <= last {
			return s == "declared"
		}
		last = i
		if name == "a" && strings.Join(canonicalAggs(strings.Split(val, "|")), "|") != val {
			return false
		}
	}
	return true
}

func indexOf(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}
