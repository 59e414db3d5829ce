package rstest_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
)

// TestParseQSMatchesReferenceQS replays queries whose parse the reference
// server's own qs (6.15.3, {arrayLimit: 64, depth: 8}) recorded in
// testdata/qs (gen.cjs, run by hand): cases.json covers bracket keys,
// encoded brackets, repeated keys, array limits, depth, the prototype
// guard, bad escapes and the 1,000-parameter limit; random.json 1,500
// random queries over the same pieces.
func TestParseQSMatchesReferenceQS(t *testing.T) {
	t.Parallel()
	var cases []struct {
		Query string         `json:"query"`
		Want  map[string]any `json:"want"`
	}
	for _, file := range []string{"testdata/qs/cases.json", "testdata/qs/random.json"} {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var some []struct {
			Query string         `json:"query"`
			Want  map[string]any `json:"want"`
		}
		if err := json.Unmarshal(raw, &some); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		cases = append(cases, some...)
	}
	if len(cases) < 1500 {
		t.Fatalf("only %d recorded cases", len(cases))
	}
	for _, c := range cases {
		name := c.Query
		if len(name) > 60 {
			name = name[:60] + "…"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(c.Want, rstest.ParseQS(c.Query)); diff != "" {
				t.Errorf("ParseQS(%q) (-qs +got):\n%s", c.Query, diff)
			}
		})
	}
}

// FuzzParseQS: any query parses without panicking into string, array and
// object values only, and a query without brackets (raw or escaped) or
// repeated keys is flat.
func FuzzParseQS(f *testing.F) {
	for _, s := range []string{"", "a=1", "a[0][b]=1&a[0][c]=2", "connector_id[]=x", "a%5B0%5D=1", "a=1&a=2",
		"a[64]=x&a[65]=y", "__proto__[x]=1", "a[b][c][d][e][f][g][h][i][j]=1", "a=%ZZ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got := rstest.ParseQS(raw)
		var walk func(v any, depth int)
		walk = func(v any, depth int) {
			if depth > 12 {
				t.Fatalf("nesting deeper than qs's depth: %q", raw)
			}
			switch x := v.(type) {
			case string:
			case []any:
				for _, it := range x {
					walk(it, depth+1)
				}
			case map[string]any:
				for _, it := range x {
					walk(it, depth+1)
				}
			default:
				t.Fatalf("value of type %T in %q", v, raw)
			}
		}
		walk(got, 0)
		lower := strings.ToLower(raw)
		if strings.ContainsAny(raw, "[]") || strings.Contains(lower, "%5b") || strings.Contains(lower, "%5d") {
			return
		}
		for k, v := range got {
			if _, ok := v.(string); !ok {
				if _, arr := v.([]any); !arr {
					t.Fatalf("flat query %q gave %q a %T", raw, k, v)
				}
			}
		}
	})
}
