package deploy_test

import (
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"
)

// TestDockerBuildContext runs the Dockerfile's build step offline: it
// copies the repository as `docker build` would send it (minus what
// .dockerignore excludes, read with Docker's own matcher) and builds the
// binary there with the Dockerfile's flags. A .dockerignore that drops a
// file the build needs (an embedded page, the OpenAPI document, demo data)
// fails here rather than in a release. What must stay out stays out.
//
// It takes several seconds (3.6 s CPU alone), on purpose: copying the
// context and compiling and linking a real binary from it, with the
// Dockerfile's flags, is the proof; a cheaper check (go list) would miss
// what only the build sees.
func TestDockerBuildContext(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(root, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	patterns, err := ignorefile.ReadAll(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	pm, err := patternmatcher.New(patterns)
	if err != nil {
		t.Fatal(err)
	}
	for _, mustExclude := range []string{".git", ".git/config", "bin/pdpp-mcp", "dist/pdpp-mcp_linux_amd64", "e2e/node/node_modules/x", "deploy/kubernetes/deployment.yaml", ".env", "keys/server.key"} {
		if ok, _ := pm.MatchesOrParentMatches(mustExclude); !ok {
			t.Errorf(".dockerignore lets %s into the build context", mustExclude)
		}
	}

	ctxDir := t.TempDir()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if rel == "." {
			return nil
		}
		if excluded, err := pm.MatchesOrParentMatches(filepath.ToSlash(rel)); err != nil || excluded {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(ctxDir, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		return copyFile(path, filepath.Join(ctxDir, rel))
	})
	if err != nil {
		t.Fatalf("copying the build context: %v", err)
	}
	cmd := exec.CommandContext(t.Context(), "go", "build", "-trimpath", "-buildvcs=false",
		"-ldflags", "-s -w -X main.version=context-test", "-o", filepath.Join(t.TempDir(), "pdpp-mcp"), "./cmd/pdpp-mcp")
	cmd.Dir = ctxDir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-mod=readonly")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build in the Docker build context: %v\n%s", err, out)
	}
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
