package codeshape

import (
	"go/parser"
	"go/token"
	"regexp"
	"strings"
	"testing"

	"github.com/fzipp/gocyclo"
)

// maxComplexity is the most a production function may have: past it a
// function does several things, and the parts want names.
const maxComplexity = 15

// notProduction are the files the limit does not bind: tests (table
// tests branch by nature), test data and installed npm packages.
var notProduction = regexp.MustCompile(`_test\.go$|/testdata/|/node_modules/`)

func TestCyclomaticComplexity(t *testing.T) {
	t.Parallel()
	stats := gocyclo.Analyze([]string{"../.."}, notProduction)
	if len(stats) < 500 {
		t.Fatalf("analysed %d functions: the walk missed the module", len(stats))
	}
	for _, s := range stats.SortAndFilter(-1, maxComplexity) {
		t.Errorf("%s: %s.%s has cyclomatic complexity %d (at most %d): split it into named steps, or add //gocyclo:ignore with the reason",
			strings.TrimPrefix(s.Pos.String(), "../../"), s.PkgName, s.FuncName, s.Complexity, maxComplexity)
	}
}

// The measure can fail: a function one branch over the limit is reported,
// the same function with the directive is not.
func TestCyclomaticComplexityCanFail(t *testing.T) {
	t.Parallel()
	body := "func f(x int) int {\n" + strings.Repeat("\tif x == 1 {\n\t\tx++\n\t}\n", maxComplexity) + "\treturn x\n}\n"
	for _, tc := range []struct {
		name, src string
		over      int
	}{
		{"over", "package p\n\n" + body, 1},
		{"ignored", "package p\n\n//gocyclo:ignore\n" + body, 0},
		{"at the limit", "package p\n\n" + strings.Replace(body, "\tif x == 1 {\n\t\tx++\n\t}\n", "", 1), 0},
	} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "p.go", tc.src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(gocyclo.AnalyzeASTFile(f, fset, nil).SortAndFilter(-1, maxComplexity)); got != tc.over {
			t.Errorf("%s: %d functions over the limit, want %d", tc.name, got, tc.over)
		}
	}
}
