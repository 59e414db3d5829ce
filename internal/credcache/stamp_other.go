//go:build !unix

package credcache

import "os"

// fileID is unknown off Unix: size and modification time name the state.
func fileID(os.FileInfo) string { return "-" }
