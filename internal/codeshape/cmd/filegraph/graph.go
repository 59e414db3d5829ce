package main

import (
	"slices"
)

// graph is a directed graph over files: arrows[a] holds each file a refers
// to, never a itself.
type graph struct {
	files  []string
	arrows map[string][]string
}

// shape is what the report counts of a graph.
type shape struct {
	Arrows int
	// Floors is the length, in arrows, of the longest path through the
	// graph once each strongly connected component is collapsed to one
	// node, plus one: the number of levels the files stand on when every
	// arrow points down or stays within a level. A graph without arrows
	// has one floor.
	Floors int
	// BackUp counts the arrows that run back up: those whose two files lie
	// in the same strongly connected component. For each such arrow a→b
	// there is a path b→…→a, so the arrow closes a cycle; an arrow between
	// two components never does.
	BackUp int
	// Cycles lists the components of more than one file, largest first.
	Cycles [][]string
	// Floor is each file's floor: 1 for a file whose component points at
	// no other component, else one above the highest it points at.
	Floor map[string]int
}

// measure counts g's arrows, floors and the arrows that close cycles.
func measure(g graph) shape {
	comp := components(g)
	s := shape{Floor: map[string]int{}}
	members := map[int][]string{}
	for _, f := range g.files {
		members[comp[f]] = append(members[comp[f]], f)
		for _, to := range g.arrows[f] {
			s.Arrows++
			if comp[to] == comp[f] {
				s.BackUp++
			}
		}
	}
	// Tarjan numbers components in reverse topological order: a component
	// only points at components numbered lower, so ascending order sees
	// every target's floor before its sources'.
	ids := make([]int, 0, len(members))
	for id := range members {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	floor := map[int]int{}
	for _, id := range ids {
		floor[id] = 1
		for _, f := range members[id] {
			for _, to := range g.arrows[f] {
				if c := comp[to]; c != id {
					floor[id] = max(floor[id], floor[c]+1)
				}
			}
		}
		s.Floors = max(s.Floors, floor[id])
		if m := members[id]; len(m) > 1 {
			s.Cycles = append(s.Cycles, slices.Sorted(slices.Values(m)))
		}
	}
	for _, f := range g.files {
		s.Floor[f] = floor[comp[f]]
	}
	slices.SortStableFunc(s.Cycles, func(a, b []string) int { return len(b) - len(a) })
	return s
}

// components numbers g's strongly connected components (Tarjan's
// algorithm): files on a common cycle share a number, and an arrow between
// components always points at the lower number.
func components(g graph) map[string]int {
	index, low := map[string]int{}, map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	comp := map[string]int{}
	next, nextComp := 0, 0
	var visit func(string)
	visit = func(v string) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range g.arrows[v] {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[w] = false
			comp[w] = nextComp
			if w == v {
				break
			}
		}
		nextComp++
	}
	for _, f := range g.files {
		if _, seen := index[f]; !seen {
			visit(f)
		}
	}
	return comp
}

// ordered is a second reading of the same graph, finer than the
// components: the files in one order top to bottom, chosen so that few
// arrows point up (Eades, Lin and Smyth's greedy heuristic for a small
// feedback arc set), then counted against that order.
type ordered struct {
	// Order is the files, top first: a file mostly above the files it
	// refers to.
	Order []string
	// BackUp counts the arrows a→b with b above a in Order.
	BackUp int
	// Floors is the length, in arrows, of the longest path of downward
	// arrows, plus one.
	Floors int
}

// order ranks g's files by the greedy heuristic, deterministically (ties
// go to the file whose name sorts first): repeatedly, files that refer to
// no remaining file go to the bottom, files no remaining file refers to go
// to the top, and otherwise the file with the most outgoing less incoming
// arrows among the remaining goes to the top.
func order(g graph) ordered {
	r := newRemainder(g)
	var top, bottom []string
	for len(top)+len(bottom) < len(g.files) {
		if f, ok := r.first(func(f string) bool { return r.out(f) == 0 }); ok {
			bottom = append(bottom, r.take(f))
		} else if f, ok := r.first(func(f string) bool { return r.in(f) == 0 }); ok {
			top = append(top, r.take(f))
		} else {
			top = append(top, r.take(r.mostOutward()))
		}
	}
	slices.Reverse(bottom)
	return countAgainst(g, append(top, bottom...))
}

// remainder is the part of a graph the heuristic has not placed yet.
type remainder struct {
	g         graph
	names     []string // the files, sorted
	referrers map[string][]string
	left      map[string]bool
}

func newRemainder(g graph) *remainder {
	r := &remainder{g: g, names: slices.Sorted(slices.Values(g.files)), referrers: map[string][]string{}, left: map[string]bool{}}
	for _, f := range g.files {
		r.left[f] = true
		for _, to := range g.arrows[f] {
			r.referrers[to] = append(r.referrers[to], f)
		}
	}
	return r
}

func (r *remainder) countLeft(files []string) int {
	n := 0
	for _, f := range files {
		if r.left[f] {
			n++
		}
	}
	return n
}

func (r *remainder) out(f string) int { return r.countLeft(r.g.arrows[f]) }
func (r *remainder) in(f string) int  { return r.countLeft(r.referrers[f]) }

func (r *remainder) take(f string) string { r.left[f] = false; return f }

// first is the first remaining file, by name, that ok accepts.
func (r *remainder) first(ok func(string) bool) (string, bool) {
	for _, f := range r.names {
		if r.left[f] && ok(f) {
			return f, true
		}
	}
	return "", false
}

// mostOutward is the remaining file with the most outgoing less incoming
// arrows; there is one whenever any file remains.
func (r *remainder) mostOutward() string {
	best, bestScore := "", 0
	for _, f := range r.names {
		if score := r.out(f) - r.in(f); r.left[f] && (best == "" || score > bestScore) {
			best, bestScore = f, score
		}
	}
	return best
}

// countAgainst counts g's arrows against files in order, top first.
func countAgainst(g graph, order []string) ordered {
	o := ordered{Order: order}
	rank := map[string]int{}
	for i, f := range order {
		rank[f] = i
	}
	floor := map[string]int{}
	for i := len(order) - 1; i >= 0; i-- {
		f := order[i]
		floor[f] = 1
		for _, to := range g.arrows[f] {
			if rank[to] < rank[f] {
				o.BackUp++
				continue
			}
			floor[f] = max(floor[f], floor[to]+1)
		}
		o.Floors = max(o.Floors, floor[f])
	}
	return o
}
