package testbin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBinaryFromEnv: a named executable is used as is (absolute); a name
// that is missing, a directory or not executable is an error naming the
// variable, never a silent rebuild.
func TestBinaryFromEnv(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "pdpp-mcp")
	plain := filepath.Join(dir, "plain")
	for path, mode := range map[string]os.FileMode{exe: 0o755, plain: 0o644} {
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name, env, want, wantErr string
	}{
		{name: "executable", env: exe, want: exe},
		{name: "missing", env: filepath.Join(dir, "nope"), wantErr: "no such file"},
		{name: "directory", env: dir, wantErr: "not an executable file"},
		{name: "not executable", env: plain, wantErr: "not an executable file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvVar, tc.env) // t.Setenv forbids t.Parallel
			got, err := Binary(t.TempDir())
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), EnvVar) {
					t.Fatalf("Binary() error = %v, want one naming %s and %q", err, EnvVar, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Binary() (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBuildNeedsDir: without a directory nothing is built.
func TestBuildNeedsDir(t *testing.T) {
	t.Parallel()
	if _, err := build(""); err == nil {
		t.Fatal("build(\"\") succeeded")
	}
}
