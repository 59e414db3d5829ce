package testenv

import (
	"testing"
	"testing/synctest"
	"time"
)

// Await wakes at the write that makes done true, and gives up only when
// within passes; on the bubble's clock, so neither depends on the machine.
func TestOutputAwait(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var o Output
		go func() {
			time.Sleep(time.Second) // the bubble's clock: a writer that answers later
			_, _ = o.Write([]byte("ready\n"))
		}()
		start := time.Now()
		if !o.WaitFor("ready", time.Minute) {
			t.Fatal("WaitFor missed the write")
		}
		if took := time.Since(start); took != time.Second {
			t.Errorf("WaitFor returned after %s, want at the write (1s)", took)
		}
		if o.WaitFor("never", 5*time.Second) {
			t.Error("WaitFor found what was never written")
		}
		if got := o.String(); got != "ready\n" {
			t.Errorf("String = %q", got)
		}
	})
}
