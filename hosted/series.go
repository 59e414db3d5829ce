package hosted

import (
	"sync"
	"sync/atomic"
)

// series remembers a metric vector's children per label key, so the hot
// paths (every request, every tool call, every RS answer) resolve a child
// once per key instead of paying WithLabelValues each time (a label hash,
// the vector's lock and a variadic slice). Keys are the vectors' bounded
// label sets, so the map stays small. Reads take no lock: the map is
// copied on the rare insert and swapped in whole.
type series[K comparable, V any] struct {
	m       atomic.Pointer[map[K]V]
	mu      sync.Mutex // serialises inserts
	resolve func(K) V
}

func newSeries[K comparable, V any](resolve func(K) V) *series[K, V] {
	s := &series[K, V]{resolve: resolve}
	s.m.Store(&map[K]V{})
	return s
}

// get returns the child for k, resolving it on first use.
func (s *series[K, V]) get(k K) V {
	if v, ok := (*s.m.Load())[k]; ok {
		return v
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old := *s.m.Load()
	if v, ok := old[k]; ok {
		return v
	}
	v := s.resolve(k)
	next := make(map[K]V, len(old)+1)
	for ok, ov := range old {
		next[ok] = ov
	}
	next[k] = v
	s.m.Store(&next)
	return v
}
