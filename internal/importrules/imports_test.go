package importrules

import (
	"errors"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The import rules of DESIGN.md / CONTRIBUTING.md:
//
//	cmd ──▶ hosted ──▶ adapter ──▶ page, rsclient, schemaindex, contentladder
//	hosted ──▶ bearerauth, and the leaves
//	bearerauth ──▶ no project package, no MCP module
//	page ──▶ contentladder, schemaindex; no MCP module, not rsclient, not context
//	rsclient, schemaindex, contentladder ──▶ no project package, no MCP module
//	internal/credcache ◀── cmd (and e2e tests, which drive the cmd binary;
//	                       internal/ritest, which writes the cache they read)
//	internal/ritest ◀── test files only (it builds and runs the reference server)
//	internal/golden ◀── test files only (golden files; it registers -update)
//	internal/softcache, internal/bearer, internal/regularfile, internal/fanout ◀── any layer; they import no project package
//	e2e ──▶ cmd (binary), adapter, hosted, rsclient/rstest (the mock RS)
//	rsclient/rstest ──▶ nothing of the adapter, not even rsclient
//
// They are checked on the production import graph (transitively) read from
// the source with go/build, which needs neither the network nor go.sum.
// Test files may import helpers freely, except that nothing imports e2e or
// cmd at all, only cmd, e2e and internal/ritest import internal/credcache,
// and no production file imports internal/ritest. Packages that
// do not exist yet are simply absent.

const modulePath = "github.com/pdpp/pdpp-mcp"

// sharedUtilities are small internal packages every layer shares (one
// cache mechanism, one bearer grammar, one bounded fan-out) that any layer may import; they
// import no project package.
var sharedUtilities = []string{"internal/softcache", "internal/bearer", "internal/regularfile", "internal/fanout"}

// mcpModules are the MCP SDKs; only adapter, hosted and cmd may use them.
var mcpModules = []string{"github.com/mark3labs/mcp-go", "github.com/modelcontextprotocol/go-sdk"}

// pageLayer builds what the model sees from typed reads: pure functions,
// so it reaches no RS client and no MCP module and takes no context.
const pageLayer = "page"

// pageMayImport are the project packages page builds on, besides the
// shared utilities.
var pageMayImport = []string{"contentladder", "schemaindex"}

// impureStandard are the standard-library packages a pure layer does not
// import: a function that takes a context waits on or cancels something.
var impureStandard = []string{"context"}

// pkgGraph maps a module-relative package dir ("." for the root) to the
// module-relative dirs it imports.
type pkgGraph struct {
	imports     map[string][]string // non-test imports
	testImports map[string][]string // _test.go imports, both packages
	external    map[string][]string // non-test imports from outside the module
	standard    map[string][]string // non-test imports of the standard library
}

// within reports whether pkg is dir or below it.
func within(pkg, dir string) bool {
	return pkg == dir || strings.HasPrefix(pkg, dir+"/")
}

func withinAny(pkg string, dirs ...string) bool {
	return slices.ContainsFunc(dirs, func(d string) bool { return within(pkg, d) })
}

// closure returns every project package pkg depends on, transitively.
func (g pkgGraph) closure(pkg string) []string {
	seen := map[string]bool{}
	var visit func(string)
	visit = func(p string) {
		for _, dep := range g.imports[p] {
			if !seen[dep] {
				seen[dep] = true
				visit(dep)
			}
		}
	}
	visit(pkg)
	return slices.Sorted(func(yield func(string) bool) {
		for p := range seen {
			if !yield(p) {
				return
			}
		}
	})
}

// leaves are the adapter's leaf packages.
var leaves = []string{"rsclient", "schemaindex", "contentladder"}

// layerRule: the production imports (transitively) of the packages it
// applies to must be allowed by it.
type layerRule struct {
	appliesTo func(pkg string) bool
	allows    func(pkg, dep string) bool
	why       string
}

func under(dirs ...string) func(string) bool {
	return func(pkg string) bool { return withinAny(pkg, dirs...) }
}

// isLeaf: the mock RS lives under rsclient but is no leaf of the adapter.
// The shared utilities (one cache mechanism) are leaves every layer may use.
func isLeaf(dep string) bool {
	return (withinAny(dep, leaves...) && !within(dep, "rsclient/rstest")) || withinAny(dep, sharedUtilities...)
}

// layerRules are checked in order; a dependency reports the first rule it
// breaks.
var layerRules = []layerRule{
	{under(leaves...), func(pkg, dep string) bool {
		return within(dep, strings.SplitN(pkg, "/", 2)[0]) || withinAny(dep, sharedUtilities...)
	}, "rsclient, schemaindex and contentladder import no other project package"},
	{under(pageLayer), func(_, dep string) bool {
		return within(dep, pageLayer) || withinAny(dep, pageMayImport...) || withinAny(dep, sharedUtilities...)
	}, "page imports only contentladder, schemaindex and the shared utilities"},
	{under("bearerauth"), func(_, dep string) bool {
		return withinAny(dep, "bearerauth") || withinAny(dep, sharedUtilities...)
	}, "bearerauth imports no other project package"},
	{under(sharedUtilities...), func(pkg, dep string) bool { return within(dep, pkg) },
		"shared utilities import no other project package"},
	{under("adapter"), func(_, dep string) bool { return withinAny(dep, "adapter", pageLayer) || isLeaf(dep) },
		"adapter imports only page, rsclient, schemaindex and contentladder"},
	{under("hosted"), func(_, dep string) bool {
		return withinAny(dep, "hosted", "adapter", "bearerauth", pageLayer) || isLeaf(dep)
	}, "hosted imports only adapter, bearerauth, page and the leaves"},
	{under("rsclient/rstest"), func(_, dep string) bool { return within(dep, "rsclient/rstest") },
		"rsclient/rstest imports nothing of the adapter side"},
}

// importViolations returns one line per broken rule, sorted.
func importViolations(g pkgGraph) []string {
	var out []string
	report := func(pkg, dep, rule string) {
		out = append(out, pkg+" imports "+dep+": "+rule)
	}
	for pkg := range g.imports {
		closure := g.closure(pkg)
		for _, dep := range closure {
			if i := slices.IndexFunc(layerRules, func(r layerRule) bool { return r.appliesTo(pkg) && !r.allows(pkg, dep) }); i >= 0 {
				report(pkg, dep, layerRules[i].why)
			}
		}
		for _, ext := range mcpImports(g, pkg, closure) {
			report(pkg, ext, "no MCP types in page, rsclient, schemaindex, contentladder, bearerauth or shared utilities")
		}
		if within(pkg, pageLayer) {
			for _, std := range g.standard[pkg] {
				if withinAny(std, impureStandard...) {
					report(pkg, std, "page is pure: it imports no context")
				}
			}
		}
	}
	for pkg, deps := range g.imports {
		for _, dep := range deps {
			if within(dep, "internal/ritest") && !within(pkg, "internal/ritest") {
				report(pkg, dep, "only test files import internal/ritest")
			}
			if within(dep, "internal/golden") {
				report(pkg, dep, "only test files import internal/golden (it registers the -update flag)")
			}
		}
	}
	for _, m := range []map[string][]string{g.imports, g.testImports} {
		for pkg, deps := range m {
			for _, dep := range deps {
				if why := testOrProdImportRule(pkg, dep); why != "" {
					report(pkg, dep, why)
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// mcpImports lists the MCP SDK packages that pkg, a package that must not
// carry MCP types, reaches through its own or its dependencies' imports.
func mcpImports(g pkgGraph, pkg string, closure []string) []string {
	if !withinAny(pkg, append(slices.Concat(leaves, sharedUtilities), "bearerauth", pageLayer)...) {
		return nil
	}
	var out []string
	for _, p := range append([]string{pkg}, closure...) {
		for _, ext := range g.external[p] {
			if slices.ContainsFunc(mcpModules, func(m string) bool { return within(ext, m) }) {
				out = append(out, ext)
			}
		}
	}
	return out
}

// testOrProdImportRule is the rule a direct import breaks in test and
// production code alike ("" when none): nothing imports e2e or cmd, and
// only cmd and e2e use the credential cache.
func testOrProdImportRule(pkg, dep string) string {
	for _, top := range []string{"e2e", "cmd"} {
		if within(dep, top) && !within(pkg, top) {
			return "nothing imports " + top
		}
	}
	if within(dep, "internal/credcache") && !withinAny(pkg, "internal/credcache", "cmd", "e2e", "internal/ritest") {
		return "only cmd (and e2e) use internal/credcache"
	}
	return ""
}

// moduleRoot walks up from the package directory to go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found")
		}
		dir = parent
	}
}

// skipDir names directories that hold no package of the module.
func skipDir(name string) bool {
	return name == "testdata" || name == "vendor" || name == "node_modules" ||
		strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// project keeps the module's own import paths, module-relative.
func project(paths []string) []string {
	var out []string
	for _, p := range paths {
		if p == modulePath {
			out = append(out, ".")
		} else if rel, ok := strings.CutPrefix(p, modulePath+"/"); ok {
			out = append(out, rel)
		}
	}
	return out
}

// outside keeps the imports of other modules (a dot in the first path
// element; the standard library has none).
func outside(paths []string) []string {
	var out []string
	for _, p := range paths {
		if p != modulePath && !strings.HasPrefix(p, modulePath+"/") && strings.Contains(strings.SplitN(p, "/", 2)[0], ".") {
			out = append(out, p)
		}
	}
	return out
}

// standard keeps the imports of the standard library (no dot in the first
// path element; "C" is cgo, not a package).
func standard(paths []string) []string {
	var out []string
	for _, p := range paths {
		if p != "C" && !strings.Contains(strings.SplitN(p, "/", 2)[0], ".") {
			out = append(out, p)
		}
	}
	return out
}

// readGraph reads the import graph of every package under root.
func readGraph(t *testing.T, root string) pkgGraph {
	t.Helper()
	g := pkgGraph{imports: map[string][]string{}, testImports: map[string][]string{}, external: map[string][]string{}, standard: map[string][]string{}}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if path != root && skipDir(d.Name()) {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(path, build.ImportComment)
		var noGo *build.NoGoError
		if errors.As(err, &noGo) {
			return nil
		}
		if err != nil {
			// A package mid-edit by another helper must not hide the others;
			// go/build still returns what it could read.
			t.Logf("reading %s: %v", path, err)
			if pkg == nil {
				return nil
			}
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		g.imports[rel] = project(pkg.Imports)
		g.external[rel] = outside(pkg.Imports)
		g.standard[rel] = standard(pkg.Imports)
		g.testImports[rel] = project(append(slices.Clone(pkg.TestImports), pkg.XTestImports...))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestImportRules(t *testing.T) {
	t.Parallel()
	g := readGraph(t, moduleRoot(t))
	if _, ok := g.imports["internal/importrules"]; !ok {
		t.Fatalf("graph misses this package; packages read: %v", len(g.imports))
	}
	if diff := cmp.Diff([]string(nil), importViolations(g)); diff != "" {
		t.Errorf("import rule violations (-want +got):\n%s", diff)
	}
}

// TestImportRulesCatchViolations proves the checker can fail, on graphs
// that break each rule.
func TestImportRulesCatchViolations(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		graph pkgGraph
		want  []string
	}{
		{name: "clean layering", graph: pkgGraph{imports: map[string][]string{
			"cmd/pdpp-mcp":           {"hosted", "adapter", "bearerauth", "internal/credcache", "."},
			"hosted":                 {"adapter", "bearerauth", "rsclient"},
			"bearerauth":             {"internal/softcache"},
			"internal/softcache":     nil,
			"internal/credcache":     {"bearerauth"},
			"adapter":                {"page", "rsclient", "schemaindex", "contentladder", "internal/softcache", "internal/fanout"},
			"page":                   {"contentladder", "schemaindex", "internal/softcache"},
			"rsclient":               {"rsclient/internal/wire"},
			"rsclient/rstest":        {"rsclient/rstest/internal/searchindex", "rsclient/rstest/demodata"},
			"e2e":                    {"adapter", "rsclient/rstest", "e2e/harness"},
			"schemaindex":            nil,
			"internal/contract":      {"."},
			"e2e/harness":            nil,
			"rsclient/internal/wire": nil,
			"internal/ritest":        {"internal/credcache"},
		}, testImports: map[string][]string{
			"e2e": {"internal/credcache", "hosted", "internal/ritest"},
		}, external: map[string][]string{
			"adapter":    {"github.com/mark3labs/mcp-go/mcp"},
			"hosted":     {"github.com/mark3labs/mcp-go/server"},
			"bearerauth": {"github.com/golang-jwt/jwt/v5"},
		}, standard: map[string][]string{
			"adapter": {"context", "encoding/json"},
			"page":    {"encoding/json", "unicode/utf8"},
		}}},
		{name: "leaf imports leaf", graph: pkgGraph{imports: map[string][]string{
			"schemaindex": {"contentladder"},
		}}, want: []string{"schemaindex imports contentladder: rsclient, schemaindex and contentladder import no other project package"}},
		{name: "leaf imports adapter through a helper", graph: pkgGraph{imports: map[string][]string{
			"rsclient":        {"internal/helper"},
			"internal/helper": {"adapter"},
		}}, want: []string{
			"rsclient imports adapter: rsclient, schemaindex and contentladder import no other project package",
			"rsclient imports internal/helper: rsclient, schemaindex and contentladder import no other project package",
		}},
		{name: "leaf imports page", graph: pkgGraph{imports: map[string][]string{
			"contentladder": {"page"},
		}}, want: []string{"contentladder imports page: rsclient, schemaindex and contentladder import no other project package"}},
		{name: "page imports the RS client", graph: pkgGraph{imports: map[string][]string{
			"page":     {"contentladder", "rsclient"},
			"rsclient": nil,
		}}, want: []string{"page imports rsclient: page imports only contentladder, schemaindex and the shared utilities"}},
		{name: "page imports the adapter", graph: pkgGraph{imports: map[string][]string{
			"page":    {"adapter"},
			"adapter": {"rsclient"},
		}}, want: []string{
			"page imports adapter: page imports only contentladder, schemaindex and the shared utilities",
			"page imports rsclient: page imports only contentladder, schemaindex and the shared utilities",
		}},
		{name: "page takes a context", graph: pkgGraph{imports: map[string][]string{
			"page":            {"page/internal/x"},
			"page/internal/x": nil,
		}, standard: map[string][]string{
			"page":            {"context", "encoding/json"},
			"page/internal/x": {"context"},
		}}, want: []string{
			"page imports context: page is pure: it imports no context",
			"page/internal/x imports context: page is pure: it imports no context",
		}},
		{name: "page uses an MCP SDK", graph: pkgGraph{imports: map[string][]string{
			"page": nil,
		}, external: map[string][]string{
			"page": {"github.com/mark3labs/mcp-go/mcp"},
		}}, want: []string{"page imports github.com/mark3labs/mcp-go/mcp: no MCP types in page, rsclient, schemaindex, contentladder, bearerauth or shared utilities"}},
		{name: "adapter imports the mock", graph: pkgGraph{imports: map[string][]string{
			"adapter/toolschemas": {"rsclient/rstest/internal/searchindex"},
		}}, want: []string{"adapter/toolschemas imports rsclient/rstest/internal/searchindex: adapter imports only page, rsclient, schemaindex and contentladder"}},
		{name: "adapter imports the HTTP door", graph: pkgGraph{imports: map[string][]string{
			"adapter": {"hosted"},
		}}, want: []string{"adapter imports hosted: adapter imports only page, rsclient, schemaindex and contentladder"}},
		{name: "adapter imports token verification", graph: pkgGraph{imports: map[string][]string{
			"adapter": {"bearerauth"},
		}}, want: []string{"adapter imports bearerauth: adapter imports only page, rsclient, schemaindex and contentladder"}},
		{name: "hosted imports the credential cache", graph: pkgGraph{imports: map[string][]string{
			"hosted":             {"internal/credcache"},
			"internal/credcache": nil,
		}}, want: []string{
			"hosted imports internal/credcache: hosted imports only adapter, bearerauth, page and the leaves",
			"hosted imports internal/credcache: only cmd (and e2e) use internal/credcache",
		}},
		{name: "bearerauth imports the adapter", graph: pkgGraph{imports: map[string][]string{
			"bearerauth": {"adapter"},
			"adapter":    {"rsclient"},
		}}, want: []string{
			"bearerauth imports adapter: bearerauth imports no other project package",
			"bearerauth imports rsclient: bearerauth imports no other project package",
		}},
		{name: "bearerauth uses an MCP SDK", graph: pkgGraph{imports: map[string][]string{
			"bearerauth": nil,
		}, external: map[string][]string{
			"bearerauth": {"github.com/modelcontextprotocol/go-sdk/auth"},
		}}, want: []string{"bearerauth imports github.com/modelcontextprotocol/go-sdk/auth: no MCP types in page, rsclient, schemaindex, contentladder, bearerauth or shared utilities"}},
		{name: "leaf uses MCP types through a subpackage", graph: pkgGraph{imports: map[string][]string{
			"schemaindex":            {"schemaindex/internal/x"},
			"schemaindex/internal/x": nil,
		}, external: map[string][]string{
			"schemaindex/internal/x": {"github.com/mark3labs/mcp-go/mcp"},
		}}, want: []string{
			"schemaindex imports github.com/mark3labs/mcp-go/mcp: no MCP types in page, rsclient, schemaindex, contentladder, bearerauth or shared utilities",
			"schemaindex/internal/x imports github.com/mark3labs/mcp-go/mcp: no MCP types in page, rsclient, schemaindex, contentladder, bearerauth or shared utilities",
		}},
		{name: "shared utility imports the adapter", graph: pkgGraph{imports: map[string][]string{
			"internal/softcache": {"adapter"},
		}}, want: []string{"internal/softcache imports adapter: shared utilities import no other project package"}},
		{name: "the fan-out imports the cache", graph: pkgGraph{imports: map[string][]string{
			"internal/fanout": {"internal/softcache"},
		}}, want: []string{"internal/fanout imports internal/softcache: shared utilities import no other project package"}},
		{name: "a leaf and the door use the fan-out", graph: pkgGraph{imports: map[string][]string{
			"rsclient": {"internal/fanout"}, "bearerauth": {"internal/fanout"}, "hosted": {"internal/fanout"},
			"adapter": {"internal/fanout"}, "internal/fanout": nil,
		}}},
		{name: "adapter test uses the credential cache", graph: pkgGraph{testImports: map[string][]string{
			"adapter": {"internal/credcache"},
		}}, want: []string{"adapter imports internal/credcache: only cmd (and e2e) use internal/credcache"}},
		{name: "mock imports the client", graph: pkgGraph{imports: map[string][]string{
			"rsclient/rstest/internal/aggregation": {"rsclient"},
		}}, want: []string{"rsclient/rstest/internal/aggregation imports rsclient: rsclient/rstest imports nothing of the adapter side"}},
		{name: "production code imports the RI harness", graph: pkgGraph{imports: map[string][]string{
			"e2e/harness":     {"internal/ritest"},
			"internal/ritest": nil,
		}}, want: []string{"e2e/harness imports internal/ritest: only test files import internal/ritest"}},
		{name: "production code imports the golden helper", graph: pkgGraph{imports: map[string][]string{
			"e2e/harness":     {"internal/golden"},
			"internal/golden": nil,
		}}, want: []string{"e2e/harness imports internal/golden: only test files import internal/golden (it registers the -update flag)"}},
		{name: "test imports e2e", graph: pkgGraph{testImports: map[string][]string{
			"adapter": {"e2e/harness"},
		}}, want: []string{"adapter imports e2e/harness: nothing imports e2e"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, importViolations(tc.graph)); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}
