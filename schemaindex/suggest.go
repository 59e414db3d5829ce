package schemaindex

import (
	"github.com/agnivade/levenshtein"

	"slices"
	"strings"
)

// CheckNames reports whether connectionID (when not empty) and stream (when
// not empty, within that connection) are granted, from membership alone: a
// data tool calls it before any RS request. The error is an
// *UnknownConnectionError or *UnknownStreamError listing granted names.
func (ix *Index) CheckNames(stream, connectionID string) error {
	if connectionID != "" {
		if _, ok := ix.Connection(connectionID); !ok {
			return ix.UnknownConnection(connectionID)
		}
	}
	if stream == "" {
		return nil
	}
	for _, e := range ix.sources {
		if (connectionID == "" || e.ConnectionID == connectionID) && slices.Contains(e.Streams, stream) {
			return nil
		}
	}
	return ix.UnknownStream(stream, connectionID)
}

// UnknownStream builds the error for a stream no (scoped) source carries,
// listing up to DefaultCandidateCap granted names, closest first, so the
// model can retry directly.
func (ix *Index) UnknownStream(name, connectionID string) *UnknownStreamError {
	var names []string
	for _, e := range ix.sources {
		if connectionID != "" && e.ConnectionID != connectionID {
			continue
		}
		for _, s := range e.Streams {
			if !slices.Contains(names, s) {
				names = append(names, s)
			}
		}
	}
	return &UnknownStreamError{Stream: name, ConnectionID: connectionID,
		Known: closest(name, names, DefaultCandidateCap), Total: len(names)}
}

// UnknownConnection builds the error for a connection id no grant carries,
// listing up to DefaultCandidateCap granted connection ids, closest first.
func (ix *Index) UnknownConnection(id string) *UnknownConnectionError {
	var ids []string
	for _, e := range ix.sources {
		if e.ConnectionID != "" && !slices.Contains(ids, e.ConnectionID) {
			ids = append(ids, e.ConnectionID)
		}
	}
	return &UnknownConnectionError{ConnectionID: id, Known: closest(id, ids, DefaultCandidateCap), Total: len(ids)}
}

// NearNames returns up to n of names, the likeliest meant by want first
// (a "did you mean" list for a misspelt field, tool or argument), without
// the names that share nothing with want: empty when no name is a
// plausible misspelling of it.
func NearNames(want string, names []string, n int) []string {
	return slices.DeleteFunc(closest(want, names, n), func(s string) bool { return similarity(want, s) > 1 })
}

// closest returns up to n names, those sharing a substring with want
// first (a cheap similarity that catches "message" vs "messages"), then
// those sharing a prefix or within two edits ("subjet" vs "subject"),
// then the rest in index order.
func closest(want string, names []string, n int) []string {
	score := func(s string) int { return similarity(want, s) }
	out := slices.Clone(names)
	slices.SortStableFunc(out, func(a, b string) int { return score(a) - score(b) })
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// similarity ranks name against want: 0 one contains the other, 1 a
// shared prefix or at most two edits apart, 2 unrelated.
func similarity(want, name string) int {
	w, l := strings.ToLower(want), strings.ToLower(name)
	switch {
	case w != "" && (strings.Contains(l, w) || strings.Contains(w, l)):
		return 0
	case commonPrefix(l, w) >= 3 || levenshtein.ComputeDistance(l, w) <= 2:
		return 1
	}
	return 2
}

func commonPrefix(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}
