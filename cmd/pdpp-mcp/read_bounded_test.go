//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO at a *_FILE secret's or --sign-in-details' path is refused at
// once, naming what it is: a plain open would wait for a writer forever
// and start-up would hang with no message.
func TestReadBoundedRefusesAFIFO(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "secret")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	if _, err := readBounded(fifo, 1024); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("readBounded on a FIFO: %v, want a refusal naming the pipe", err)
	}
}
