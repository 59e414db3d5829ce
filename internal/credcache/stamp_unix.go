//go:build unix

package credcache

import (
	"os"
	"strconv"
	"syscall"
)

// fileID is the file's device and inode.
func fileID(st os.FileInfo) string {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return "-"
	}
	return strconv.FormatUint(uint64(sys.Dev), 10) + "." + strconv.FormatUint(uint64(sys.Ino), 10)
}
