package hosted

import (
	"testing"
	"time"
)

// A token the RS refused after it was vouched for is charged again: the
// vouch is forgotten with the refusal.
func TestRefusedTokenIsNoLongerVouched(t *testing.T) {
	t.Parallel()
	l := newVerifyLimiter(5, 30, time.Now)
	l.vouch("k")
	if !l.isVouched("k") {
		t.Fatal("a vouched token is not vouched")
	}
	l.unvouch("k")
	if l.isVouched("k") {
		t.Error("a refused token is still vouched: its re-checks would skip the budget")
	}
}
