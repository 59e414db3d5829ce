package main

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"
)

// callFunc performs call number i of the mix (i indexes the mix).
type callFunc func(ctx context.Context, i int) error

// sample is what one round (or several merged) measured.
type sample struct {
	calls   int
	elapsed time.Duration
	// lat holds every latency; perCall by mix index.
	lat     []time.Duration
	perCall map[int][]time.Duration
	// limited counts 429 answers (not in calls or latencies).
	limited int
	err     error
}

func (s *sample) merge(o sample) {
	s.calls += o.calls
	s.elapsed += o.elapsed
	s.lat = append(s.lat, o.lat...)
	s.limited += o.limited
	if s.perCall == nil {
		s.perCall = map[int][]time.Duration{}
	}
	for k, v := range o.perCall {
		s.perCall[k] = append(s.perCall[k], v...)
	}
	if s.err == nil {
		s.err = o.err
	}
}

func (s sample) rate() float64 {
	if s.elapsed <= 0 {
		return 0
	}
	return float64(s.calls) / s.elapsed.Seconds()
}

// pct is the q-quantile (nearest rank) of d.
func pct(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

// round runs clients workers for d, each walking the mix of n calls from
// its own offset, and stops at the first error.
func round(clients, n int, d time.Duration, f callFunc) sample {
	ctx, cancel := context.WithTimeout(context.Background(), d+30*time.Second)
	defer cancel()
	deadline := time.Now().Add(d)
	var mu sync.Mutex
	out := sample{perCall: map[int][]time.Duration{}}
	var wg sync.WaitGroup
	start := time.Now()
	for w := range clients {
		wg.Go(func() {
			var lat []time.Duration
			per := map[int][]time.Duration{}
			var err error
			limited := 0
			for i := w; time.Now().Before(deadline); i++ {
				k := i % n
				t0 := time.Now()
				if err = f(ctx, k); errors.Is(err, errRateLimited) {
					limited++
					err = nil
					time.Sleep(10 * time.Millisecond)
					continue
				}
				if err != nil {
					break
				}
				dt := time.Since(t0)
				lat = append(lat, dt)
				per[k] = append(per[k], dt)
			}
			mu.Lock()
			defer mu.Unlock()
			out.calls += len(lat)
			out.limited += limited
			out.lat = append(out.lat, lat...)
			for k, v := range per {
				out.perCall[k] = append(out.perCall[k], v...)
			}
			if err != nil && out.err == nil {
				out.err = err
			}
		})
	}
	wg.Wait()
	out.elapsed = time.Since(start)
	return out
}
