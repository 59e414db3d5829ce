package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// figures is what the report line says of a graph.
type figures struct {
	Arrows, Floors, BackUp, OrderedFloors, OrderedBackUp int
	Cycles                                               [][]string
}

func figuresOf(g graph) figures {
	s, o := measure(g), order(g)
	return figures{Arrows: s.Arrows, Floors: s.Floors, BackUp: s.BackUp, OrderedFloors: o.Floors, OrderedBackUp: o.BackUp, Cycles: s.Cycles}
}

func TestMeasure(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		files  []string
		arrows map[string][]string
		want   figures
	}{
		{"no arrows: one floor", []string{"a", "b"}, nil, figures{Floors: 1, OrderedFloors: 1}},
		{"a chain", []string{"a", "b", "c"}, map[string][]string{"a": {"b"}, "b": {"c"}},
			figures{Arrows: 2, Floors: 3, OrderedFloors: 3}},
		{"a shortcut adds no floor", []string{"a", "b", "c"}, map[string][]string{"a": {"b", "c"}, "b": {"c"}},
			figures{Arrows: 3, Floors: 3, OrderedFloors: 3}},
		{"a pair that refer to each other is one floor, both arrows back up", []string{"a", "b", "c"},
			map[string][]string{"a": {"b"}, "b": {"a", "c"}},
			figures{Arrows: 3, Floors: 2, BackUp: 2, OrderedFloors: 3, OrderedBackUp: 1, Cycles: [][]string{{"a", "b"}}}},
		{"a cycle of three under a top file", []string{"top", "x", "y", "z"},
			map[string][]string{"top": {"x"}, "x": {"y"}, "y": {"z"}, "z": {"x"}},
			figures{Arrows: 4, Floors: 2, BackUp: 3, OrderedFloors: 4, OrderedBackUp: 1, Cycles: [][]string{{"x", "y", "z"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, figuresOf(graph{files: tc.files, arrows: tc.arrows})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// The arrows come from uses of package-level names and methods, not from
// fields, locals or a file's own declarations.
func TestFileGraph(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, src := range map[string]string{
		"go.mod":      "module example.test/p\n\ngo 1.22\n",
		"types.go":    "package p\n\ntype T struct{ n int }\n\ntype Namer interface{ Name() string }\n",
		"method.go":   "package p\n\nfunc (t T) Name() string { return \"t\" }\n",
		"use.go":      "package p\n\nfunc use(t T, n Namer) (string, int) { local := t.n; return n.Name() + t.Name(), local + limit }\n",
		"consts.go":   "package p\n\nconst limit = 3\n\nvar _ = limit\n",
		"use_test.go": "package p\n\nvar _ = use\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p, err := load(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"consts.go": nil,
		"method.go": {"types.go"},
		"types.go":  nil,
		"use.go":    {"consts.go", "method.go", "types.go"},
	}
	if diff := cmp.Diff(want, fileGraph(p).arrows); diff != "" {
		t.Errorf("arrows (-want +got):\n%s", diff)
	}
	if p.lines != 16 {
		t.Errorf("lines %d, want 16 (the test file's not counted)", p.lines)
	}
}
