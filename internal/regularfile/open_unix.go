//go:build unix

package regularfile

import (
	"os"
	"syscall"
)

// openNoBlock opens path read-only with O_NONBLOCK: on a FIFO the open
// returns at once instead of waiting for a writer; on a regular file the
// flag changes nothing.
func openNoBlock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
