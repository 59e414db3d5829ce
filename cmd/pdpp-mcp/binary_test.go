package main

import (
	"os"
	"sync"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/testbin"
)

// builtBinary is the real pdpp-mcp, obtained once per test process: the one
// `make test` built before `go test` started (PDPP_MCP_TEST_BIN), else one
// build here. Every test only executes the file.
var builtBinary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// buildBinary returns the shared pdpp-mcp binary (static, -trimpath, no
// -ldflags), failing the test if it could not be had. The build has no
// deadline of its own: on a cold cache beside the rest of the suite it
// takes minutes, and a deadline here once killed it.
func buildBinary(t testing.TB) string {
	t.Helper()
	b := &builtBinary
	b.once.Do(func() {
		b.dir, b.err = os.MkdirTemp("", "pdpp-mcp-test-")
		if b.err != nil {
			return
		}
		b.path, b.err = testbin.Binary(b.dir)
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// TestMain removes the shared binary after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if builtBinary.dir != "" {
		_ = os.RemoveAll(builtBinary.dir)
	}
	os.Exit(code)
}
