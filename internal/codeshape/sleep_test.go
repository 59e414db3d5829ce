package codeshape

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// waitsForPrefix opens the comment that lets a test sleep: the comment
// group ending on the line before the sleep starts with it and names the
// external process the test waits for.
const waitsForPrefix = "// waits for "

// TestNoSleepsInTests fails on every wall-clock sleep in a test that is
// not waiting for a real external process: such a test either waits for
// our own code (await what the code signals, move an injected clock, or
// run it in a testing/synctest bubble) or depends on the machine's speed.
func TestNoSleepsInTests(t *testing.T) {
	t.Parallel()
	dirs := map[string][]string{} // directory → its _test.go files
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != "../.." && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules" || n == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, "_test.go") {
			dirs[filepath.Dir(path)] = append(dirs[filepath.Dir(path)], path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	for _, paths := range dirs {
		fset := token.NewFileSet()
		var parsed []*ast.File
		for _, p := range paths {
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parser.ParseFile(fset, p, src, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			parsed = append(parsed, f)
		}
		files += len(parsed)
		for _, s := range unexplainedSleeps(fset, parsed) {
			t.Errorf("%s:%d: %s in a test: await what the code signals, move an injected clock or run it in a synctest bubble; "+
				"only a wait for a real external process may stay, under a %q comment naming it (in a package whose tests start processes)",
				strings.TrimPrefix(s.Filename, "../../"), s.Line, sleepCallName, waitsForPrefix+"…")
		}
	}
	if files < 100 {
		t.Fatalf("read %d test files: the walk missed the module", files)
	}
}

// sleepCallName names what the check looks for, in its messages.
const sleepCallName = "time.Sleep (or a bare <-time.After)"

// unexplainedSleeps returns the sleeps in one package's test files that no
// rule allows. A sleep is a use of time.Sleep (called or not), or a
// statement that only receives from time.After. It is allowed
//   - inside a function literal passed to synctest.Test, where time is the
//     bubble's and no real time passes; or
//   - under a comment group, ending on the line before, that starts with
//     "// waits for " — only in a package one of whose test files imports
//     os/exec: a test that waits for a process must start one.
func unexplainedSleeps(fset *token.FileSet, files []*ast.File) []token.Position {
	spawns := false
	for _, f := range files {
		if importName(f, "os/exec") != "" {
			spawns = true
		}
	}
	var out []token.Position
	for _, f := range files {
		timeName := importName(f, "time")
		if timeName == "" {
			continue
		}
		bubbles := synctestBubbles(f)
		explained := waitsForLines(fset, f)
		cases := map[ast.Node]bool{} // a select's cases: a receive there races an event
		ast.Inspect(f, func(n ast.Node) bool {
			if cc, ok := n.(*ast.CommClause); ok && cc.Comm != nil {
				cases[cc.Comm] = true
			}
			if cases[n] || !isSleep(n, timeName) {
				return true
			}
			pos := fset.Position(n.Pos())
			if inAny(n.Pos(), bubbles) || (spawns && explained[pos.Line-1]) {
				return true
			}
			out = append(out, pos)
			return true
		})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Filename != out[j].Filename {
			return out[i].Filename < out[j].Filename
		}
		return out[i].Line < out[j].Line
	})
	return out
}

// isSleep reports whether n is time.Sleep (called or passed on) or a
// statement <-time.After(d), the same wait written otherwise (the caller
// leaves out a select's cases, where time.After bounds a wait for an
// event).
func isSleep(n ast.Node, timeName string) bool {
	switch n := n.(type) {
	case *ast.SelectorExpr:
		return isPkgSelector(n, timeName, "Sleep")
	case *ast.ExprStmt:
		recv, ok := n.X.(*ast.UnaryExpr)
		if !ok || recv.Op != token.ARROW {
			return false
		}
		call, ok := recv.X.(*ast.CallExpr)
		if !ok {
			return false
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		return ok && isPkgSelector(sel, timeName, "After")
	}
	return false
}

func isPkgSelector(sel *ast.SelectorExpr, pkg, name string) bool {
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == pkg && sel.Sel.Name == name
}

// importName is the name f refers to path by; "" when f does not import it.
func importName(f *ast.File, path string) string {
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p != path {
			continue
		}
		if imp.Name != nil {
			return imp.Name.Name
		}
		return path[strings.LastIndex(path, "/")+1:]
	}
	return ""
}

// span is a half-open range of positions.
type span struct{ from, to token.Pos }

func inAny(p token.Pos, spans []span) bool {
	for _, s := range spans {
		if p >= s.from && p < s.to {
			return true
		}
	}
	return false
}

// synctestBubbles are the function literals f passes to synctest.Test.
func synctestBubbles(f *ast.File) []span {
	name := importName(f, "testing/synctest")
	if name == "" {
		return nil
	}
	var out []span
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || !isPkgSelector(sel, name, "Test") {
			return true
		}
		for _, a := range call.Args {
			if lit, ok := a.(*ast.FuncLit); ok {
				out = append(out, span{lit.Pos(), lit.End()})
			}
		}
		return true
	})
	return out
}

// waitsForLines are the last lines of f's comment groups that start with
// waitsForPrefix.
func waitsForLines(fset *token.FileSet, f *ast.File) map[int]bool {
	out := map[int]bool{}
	for _, g := range f.Comments {
		if strings.HasPrefix(g.List[0].Text, waitsForPrefix) {
			out[fset.Position(g.End()).Line] = true
		}
	}
	return out
}

// The check can fail: each kind of sleep is found, each allowance holds
// only where its rule says.
func TestNoSleepsInTestsCanFail(t *testing.T) {
	t.Parallel()
	const header = "package p\n\nimport (\n\t\"testing\"\n\t\"testing/synctest\"\n\t\"time\"\n)\n\n"
	const spawner = "package p\n\nimport \"os/exec\"\n\nvar _ = exec.Command\n"
	for _, tc := range []struct {
		name  string
		src   string
		other string // a second test file of the package, "" for none
		want  []int  // lines reported
	}{
		{"a sleep", header + "func TestX(t *testing.T) {\n\ttime.Sleep(time.Second)\n}\n", "", []int{10}},
		{"a sleep passed on", header + "var nap = time.Sleep\n", "", []int{9}},
		{"a bare receive from time.After", header + "func TestX(t *testing.T) {\n\t<-time.After(time.Second)\n}\n", "", []int{10}},
		{"time.After in a select is an event's bound", header + "func TestX(t *testing.T, c chan int) {\n\tselect {\n\tcase <-c:\n\tcase <-time.After(time.Second):\n\t}\n}\n", "", nil},
		{"under another name", "package p\n\nimport tm \"time\"\n\nfunc f() {\n\ttm.Sleep(1)\n}\n", "", []int{6}},
		{"explained, in a package that starts processes", header + "func TestX(t *testing.T) {\n\t// waits for nginx to listen:\n\t// it signals nothing.\n\ttime.Sleep(time.Second)\n}\n", spawner, nil},
		{"explained, in a package that starts none", header + "func TestX(t *testing.T) {\n\t// waits for nginx to listen\n\ttime.Sleep(time.Second)\n}\n", "", []int{11}},
		{"explained a line too early", header + "func TestX(t *testing.T) {\n\t// waits for nginx to listen\n\n\ttime.Sleep(time.Second)\n}\n", spawner, []int{12}},
		{"another comment", header + "func TestX(t *testing.T) {\n\t// the code needs a moment\n\ttime.Sleep(time.Second)\n}\n", spawner, []int{11}},
		{"in a synctest bubble", header + "func TestX(t *testing.T) {\n\tsynctest.Test(t, func(t *testing.T) {\n\t\ttime.Sleep(time.Minute)\n\t})\n}\n", "", nil},
		{"after the bubble", header + "func TestX(t *testing.T) {\n\tsynctest.Test(t, func(t *testing.T) {})\n\ttime.Sleep(time.Minute)\n}\n", "", []int{11}},
	} {
		fset := token.NewFileSet()
		var files []*ast.File
		for i, src := range []string{tc.src, tc.other} {
			if src == "" {
				continue
			}
			f, err := parser.ParseFile(fset, "f"+strconv.Itoa(i)+"_test.go", src, parser.ParseComments)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			files = append(files, f)
		}
		var got []int
		for _, p := range unexplainedSleeps(fset, files) {
			got = append(got, p.Line)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: lines reported (-want +got):\n%s", tc.name, diff)
		}
	}
}
