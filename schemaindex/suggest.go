package schemaindex

import (
	"slices"
	"strings"
)

// unknownStream builds the error for a stream no (scoped) source carries,
// listing the closest granted names first so the model can retry directly.
func (ix *Index) unknownStream(name, connectionID string) error {
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
		Known: closest(name, names, maxKnownNames), Total: len(names)}
}

func (ix *Index) unknownConnection(id string) error {
	var ids []string
	for _, e := range ix.sources {
		if e.ConnectionID != "" && !slices.Contains(ids, e.ConnectionID) {
			ids = append(ids, e.ConnectionID)
		}
	}
	return &UnknownConnectionError{ConnectionID: id, Known: closest(id, ids, maxKnownNames), Total: len(ids)}
}

// closest returns up to n names, those sharing a substring or prefix with
// want first (a cheap similarity that catches "message" vs "messages"), then
// the rest in index order.
func closest(want string, names []string, n int) []string {
	w := strings.ToLower(want)
	score := func(s string) int {
		l := strings.ToLower(s)
		switch {
		case w != "" && (strings.Contains(l, w) || strings.Contains(w, l)):
			return 0
		case commonPrefix(l, w) >= 3:
			return 1
		}
		return 2
	}
	out := slices.Clone(names)
	slices.SortStableFunc(out, func(a, b string) int { return score(a) - score(b) })
	if len(out) > n {
		out = out[:n]
	}
	return out
}

func commonPrefix(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}
