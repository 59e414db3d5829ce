// Command filegraph draws one package's file graph and measures how
// tangled it is, so a refactor can say how its layout changed in figures
// rather than impressions.
//
//	go run ./internal/codeshape/cmd/filegraph [-v] ./adapter
//
// The graph: one node per production file of the package (the non-test
// .go files go/build selects for this platform); an arrow from file A to
// file B when A uses a package-level func, type, var or const declared in
// B, or calls, takes or names a method declared in B (a concrete method,
// or an interface's — resolved by the receiver's type with go/types).
// Struct fields, locals and other packages' names draw no arrow, nor does
// a file's use of its own declarations; two files have at most one arrow
// each way.
//
// The figures, on one line:
//
//   - files and lines: the production files and their lines (newlines);
//   - arrows: the number of arrows;
//   - floors: collapse each strongly connected component (the files
//     reachable from each other) to one node; the result has no cycle,
//     and floors is the length in arrows of its longest path, plus one —
//     a package whose files all stand side by side has one floor;
//   - back up: the arrows whose two files lie in the same strongly
//     connected component. Each such arrow a→b has a path b→…→a beside
//     it, so it closes a cycle (it runs "back up" against the floors); an
//     arrow between components never does. Every arrow of a cycle counts,
//     not a smallest set whose removal would break the cycles;
//   - cycles: the sizes of the components of more than one file;
//   - ordered: a finer reading of the same arrows. Inside one large
//     component every arrow counts as back up; here the files are put in
//     one order, top to bottom, by Eades, Lin and Smyth's greedy heuristic
//     for a small feedback arc set (files that refer to no remaining file
//     go to the bottom, files none refers to go to the top, else the file
//     with the most outgoing less incoming arrows goes to the top; ties
//     by name), and counted against it: back up, the arrows that point
//     up that order; floors, the longest path of the arrows that point
//     down, plus one. The heuristic's order is not the best possible, so
//     these figures are an upper bound on the fewest arrows whose removal
//     leaves no cycle; they are deterministic, so two versions compare.
//
// -v adds each floor's files, each back-up arrow and the ordered list.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

func main() {
	verbose := flag.Bool("v", false, "list each floor's files and each arrow that runs back up")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: filegraph [-v] DIR")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	p, err := load(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "filegraph:", err)
		os.Exit(1)
	}
	g := fileGraph(p)
	report(os.Stdout, p.importPath, p.lines, g, measure(g), order(g), *verbose)
}

// report prints the figures on one line, then with verbose the floors,
// top first, and the arrows that run back up.
func report(w io.Writer, name string, lines int, g graph, s shape, o ordered, verbose bool) {
	sizes := make([]string, len(s.Cycles))
	for i, c := range s.Cycles {
		sizes[i] = fmt.Sprint(len(c))
	}
	fmt.Fprintf(w, "%s: files %d, lines %d, arrows %d, floors %d, back up %d, cycles [%s]; ordered: floors %d, back up %d\n",
		name, len(g.files), lines, s.Arrows, s.Floors, s.BackUp, strings.Join(sizes, " "), o.Floors, o.BackUp)
	if !verbose {
		return
	}
	for f := s.Floors; f >= 1; f-- {
		var on []string
		for _, file := range g.files {
			if s.Floor[file] == f {
				on = append(on, file)
			}
		}
		fmt.Fprintf(w, "floor %d: %s\n", f, strings.Join(on, " "))
	}
	inCycle := map[string]int{}
	for i, c := range s.Cycles {
		for _, f := range c {
			inCycle[f] = i + 1
		}
	}
	for _, from := range slices.Sorted(slices.Values(g.files)) {
		for _, to := range g.arrows[from] {
			if inCycle[from] != 0 && inCycle[from] == inCycle[to] {
				fmt.Fprintf(w, "back up: %s -> %s\n", from, to)
			}
		}
	}
	fmt.Fprintf(w, "ordered, top first: %s\n", strings.Join(o.Order, " "))
}
