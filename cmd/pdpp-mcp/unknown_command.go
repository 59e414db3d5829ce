package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// unknownCommand answers a first argument that is neither a command nor a
// flag (`pdpp-mcp server`): the commands there are, the nearest one when
// the name looks like a typo of it, and exit 64. Without it the word
// reached the stdio server as a stray argument.
func unknownCommand(name string, stderr io.Writer) int {
	names := append(slices.Sorted(maps.Keys(subcommands)), "help")
	fmt.Fprintf(stderr, "pdpp-mcp: unknown command %q", name)
	if near := nearestCommand(name, names); near != "" {
		fmt.Fprintf(stderr, "; did you mean %q?", near)
	}
	fmt.Fprintf(stderr, "\ncommands: %s (pdpp-mcp help shows what each does)\n", strings.Join(names, ", "))
	return exitUsage
}

// nearestCommand is the command within two edits of name (a prefix counts
// too: `mock` for mockrs), the closest first; "" when none is that close.
func nearestCommand(name string, names []string) string {
	best, bestDist := "", 3
	for _, n := range names {
		d := editDistance(strings.ToLower(name), n)
		if strings.HasPrefix(n, strings.ToLower(name)) && len(name) >= 3 {
			d = min(d, 1)
		}
		if d < bestDist {
			best, bestDist = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes
// (command names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
