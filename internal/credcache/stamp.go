package credcache

import (
	"crypto/sha256"
	"encoding/base64"
	"github.com/pdpp/pdpp-mcp/internal/regularfile"
	"io"
	"os"
	"strconv"
	"time"
)

// racyWindow is how recently a file must have been modified for its
// modification time not to be trusted alone. File systems stamp times
// from a coarse clock (a few milliseconds on Linux, 2 s on FAT), so two
// writes of a same-length token within one tick leave size and time equal;
// while the file is that fresh, Stamp also hashes its content (git's
// "racily clean" rule). Later writes get a later time.
const racyWindow = 3 * time.Second

// Stamp names the current state of the file at path: device and inode
// (where the platform has them), size and modification time in
// nanoseconds, and a content hash while the file is younger than
// racyWindow. A `pdpp connect` that rewrites the file in place changes
// its size, time or content; one that writes a new file and renames it
// changes its inode. "absent" when it cannot be stat'ed. It costs one
// stat (and one small read right after a write), so a caller may ask on
// every call.
func Stamp(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return "absent"
	}
	s := fileID(st) + ":" + strconv.FormatInt(st.Size(), 10) + ":" + strconv.FormatInt(st.ModTime().UnixNano(), 10)
	if st.Mode().IsRegular() && time.Since(st.ModTime()) < racyWindow && st.Size() <= maxCredentialFile {
		s += ":" + contentHash(path)
	}
	return s
}

// contentHash is a short hash of the file's first maxCredentialFile
// bytes; "-" when it cannot be read.
func contentHash(path string) string {
	f, _, err := regularfile.Open(path, "credential cache")
	if err != nil {
		return "-"
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, maxCredentialFile)); err != nil {
		return "-"
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:12])
}
