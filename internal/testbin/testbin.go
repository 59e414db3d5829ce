// Package testbin gives the tests that execute pdpp-mcp (cmd/pdpp-mcp's
// binary tests, e2e) one binary per test run instead of a build per test
// or per package.
//
// On a cold build cache one build of the binary costs about 100 CPU-seconds;
// run inside `go test ./...` beside every other package's race build on two
// cores it took minutes, and a per-test deadline killed it. `make test`
// therefore builds the binary once, before `go test` starts, and names it in
// PDPP_MCP_TEST_BIN; a plain `go test` builds it once per test process, with
// no deadline of its own (the `go test -timeout` bounds it).
package testbin

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// EnvVar names a pdpp-mcp binary built as `CGO_ENABLED=0 go build -trimpath
// ./cmd/pdpp-mcp` (no -ldflags: the version tests read the build info), as
// `make test` builds it. When it is set the tests use it and build nothing.
const EnvVar = "PDPP_MCP_TEST_BIN"

// mainPackage is the binary's import path, buildable from any directory of
// the module.
const mainPackage = "github.com/pdpp/pdpp-mcp/cmd/pdpp-mcp"

// Binary returns the pdpp-mcp binary the tests run: the one EnvVar names,
// or a fresh static build into dir. A set EnvVar that names no executable
// file is an error rather than a silent rebuild, so a broken `make test`
// is seen.
func Binary(dir string) (string, error) {
	if p := os.Getenv(EnvVar); p != "" {
		return given(p)
	}
	return build(dir)
}

// given checks the binary EnvVar names and returns its absolute path (tests
// run it from their own working directories).
func given(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("%s=%q: %w", EnvVar, p, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("%s=%q: %w", EnvVar, p, err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("%s=%q: not an executable file", EnvVar, p)
	}
	return abs, nil
}

// build compiles the binary as `make build` and releases do (static, no
// cgo, -trimpath) but without -ldflags. It has no deadline: a cold build on
// a loaded machine is slow, not hung, and the test binary's own -timeout
// still ends a build that never finishes.
func build(dir string) (string, error) {
	if dir == "" {
		return "", errors.New("testbin: no directory to build into")
	}
	bin := filepath.Join(dir, "pdpp-mcp")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, mainPackage)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", mainPackage, err, out)
	}
	return bin, nil
}
