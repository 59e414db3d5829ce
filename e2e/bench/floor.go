package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// spawnFloor builds an empty static Go program (as `make build` builds
// the adapter: CGO_ENABLED=0) and returns a function that runs it once
// and reports exec-to-exit. That is about what starting any Go process
// costs on the machine at hand (exec, the runtime, page faults), which
// varies several-fold between VMs. It is a reference, not an exact lower
// bound: the adapter's spawn is timed to its tools/list answer, not to
// its exit. Spawn minus floor, paired run by run, is roughly what the
// adapter and its dependencies add.
func spawnFloor(dir string) (func() (time.Duration, error), error) {
	src := filepath.Join(dir, "floor")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		return nil, err
	}
	bin := filepath.Join(src, "floor")
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, "main.go")
	build.Dir = src
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build the floor program: %v: %s", err, out)
	}
	return func() (time.Duration, error) {
		t0 := time.Now()
		err := exec.Command(bin).Run()
		return time.Since(t0), err
	}, nil
}
