//go:build !unix

package credcache

import (
	"context"
	"sync"
)

// processLock serialises refreshes within this process off Unix, where
// there is no flock; processes are not excluded there.
var processLock sync.Mutex

// lockFile takes the process-wide lock.
func lockFile(context.Context, string) (func(), error) {
	processLock.Lock()
	return processLock.Unlock, nil
}
