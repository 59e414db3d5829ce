package page

import (
	"sort"
)

// shareBudget splits room bytes among lines that want natural[i] bytes
// and need at least floor[i] (their handles): every line gets
// max(floor, min(natural, cap)) for the largest common cap that fits, so
// long lines are cut evenly and short ones stay whole. ok is false when
// even the floors do not fit.
func shareBudget(natural, floor []int, room int) (sizes []int, ok bool) {
	total := func(c int) int {
		sum := 0
		for i := range natural {
			sum += max(floor[i], min(natural[i], c))
		}
		return sum
	}
	top := 0
	for _, n := range natural {
		top = max(top, n)
	}
	if total(0) > room {
		return nil, false
	}
	// The largest cap in [0, top] whose total fits (total is monotonic).
	c := sort.Search(top+1, func(c int) bool { return total(c) > room }) - 1
	sizes = make([]int, len(natural))
	for i := range natural {
		sizes[i] = max(floor[i], min(natural[i], c))
	}
	return sizes, true
}
