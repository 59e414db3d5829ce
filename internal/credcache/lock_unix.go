//go:build unix

package credcache

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// lockPoll is how often a held lock is tried again. A refresh holds it
// for one token request, so waiters are few and short.
const lockPoll = 20 * time.Millisecond

// lockFile takes an exclusive flock(2) on path (created 0600 when absent)
// and returns its release. flock binds the open file, not the process, so
// two opens in one process exclude each other as two processes do. It
// waits for a holder until ctx ends.
func lockFile(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("credential lock %s: %v", path, err)
	}
	tick := time.NewTicker(lockPoll)
	defer tick.Stop()
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("credential lock %s: %v", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("credential lock %s: another process holds it: %v", path, ctx.Err())
		case <-tick.C:
		}
	}
}
