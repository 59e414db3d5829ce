// Package regularfile opens files that must be regular files (secrets,
// credentials, configuration) without ever blocking on what else may sit
// at their path: a FIFO waits for a writer on a plain open, a device
// feeds endless bytes. Any layer may use it; it imports no project
// package.
package regularfile

import (
	"fmt"
	"os"
)

// Open opens path for reading only when it is a regular file; what names
// the file in the error (e.g. "cursor secret"). A FIFO, socket or device
// at a secret's or credential's path would
// block a plain open (a FIFO waits for a writer) or feed endless bytes, so
// the path is checked before it is opened and the opened file again after
// (openNoBlock never waits on a FIFO), closing the window between the two.
func Open(path, what string) (*os.File, os.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, notRegular(path, what, st)
	}
	f, err := openNoBlock(path)
	if err != nil {
		return nil, nil, err
	}
	if st, err = f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = notRegular(path, what, st)
		}
		return nil, nil, err
	}
	return f, st, nil
}

// notRegular names what is at path instead of a regular file.
func notRegular(path, what string, st os.FileInfo) error {
	kind := "not a regular file"
	switch m := st.Mode(); {
	case m&os.ModeNamedPipe != 0:
		kind = "a named pipe (FIFO), not a regular file"
	case m.IsDir():
		kind = "a directory, not a regular file"
	case m&os.ModeSocket != 0:
		kind = "a socket, not a regular file"
	case m&os.ModeDevice != 0:
		kind = "a device, not a regular file"
	}
	return fmt.Errorf("%s %s is %s; refusing to read it", what, path, kind)
}

// OthersMayRead is the warning for a file whose mode lets other users
// read or write it, "" when it is private.
func OthersMayRead(path, what string, st os.FileInfo) string {
	if st.Mode().Perm()&0o077 == 0 {
		return ""
	}
	return fmt.Sprintf("%s %s is readable by other users (mode %#o); run: chmod 600 %s", what, path, st.Mode().Perm(), path)
}
