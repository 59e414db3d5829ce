package main

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// pkgFiles are one package's production files, parsed and type-checked.
type pkgFiles struct {
	importPath string
	fset       *token.FileSet
	names      []string // base names, as in the graph
	files      []*ast.File
	lines      int // lines of the production files
	pkg        *types.Package
	info       *types.Info
}

// load parses dir's production files (those go/build selects for this
// platform, without tests) and type-checks them, importing every
// dependency from source so that selections through imported generics
// resolve too.
func load(dir string) (*pkgFiles, error) {
	bp, err := build.ImportDir(dir, 0)
	if err != nil {
		return nil, err
	}
	p := &pkgFiles{importPath: bp.ImportPath, fset: token.NewFileSet()}
	for _, name := range bp.GoFiles {
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		p.lines += strings.Count(string(src), "\n")
		f, err := parser.ParseFile(p.fset, filepath.Join(dir, name), src, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		p.names = append(p.names, name)
		p.files = append(p.files, f)
	}
	if bp.ImportPath == "." || bp.ImportPath == "" {
		p.importPath = bp.Name
	}
	p.info = &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(p.fset, "source", nil)}
	p.pkg, err = conf.Check(p.importPath, p.fset, p.files, p.info)
	if err != nil {
		return nil, fmt.Errorf("type-check %s: %w", dir, err)
	}
	return p, nil
}

// fileGraph draws an arrow from file a to file b when a uses a
// package-level func, type, var or const declared in b, or a method
// (concrete or of an interface) declared in b. Struct fields, locals and
// imported names draw none; a file's uses of its own declarations draw
// none.
func fileGraph(p *pkgFiles) graph {
	g := graph{files: p.names, arrows: map[string][]string{}}
	fileOf := func(pos token.Pos) string { return filepath.Base(p.fset.Position(pos).Filename) }
	for i, f := range p.files {
		from := p.names[i]
		to := map[string]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			if obj := p.info.Uses[id]; obj != nil && declaredAtPackageLevel(obj, p.pkg) {
				to[fileOf(obj.Pos())] = true
			}
			return true
		})
		delete(to, from)
		g.arrows[from] = slices.Sorted(func(yield func(string) bool) {
			for b := range to {
				if !yield(b) {
					return
				}
			}
		})
	}
	return g
}

// declaredAtPackageLevel reports whether obj is one of pkg's package-level
// funcs, types, vars or consts, or a method declared in pkg.
func declaredAtPackageLevel(obj types.Object, pkg *types.Package) bool {
	if obj.Pkg() != pkg {
		return false
	}
	if fn, ok := obj.(*types.Func); ok && fn.Signature().Recv() != nil {
		return true
	}
	switch obj.(type) {
	case *types.Func, *types.TypeName, *types.Var, *types.Const:
		return obj.Parent() == pkg.Scope()
	}
	return false
}
