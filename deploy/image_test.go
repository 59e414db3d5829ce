package deploy_test

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
)

// imageTestBudget bounds the whole image test: a cold build of the image
// on a loaded two-core machine took about eight minutes.
const imageTestBudget = 20 * time.Minute

// TestImageBuildsAndRuns builds deploy/Dockerfile with podman and runs the
// image as a cluster would: numeric user 65532, read-only root filesystem,
// configuration from the environment only. It checks /healthz, /readyz and
// one tools/call against the mock RS.
//
// The pinned bases (golang, distroless) are not fetched: the build passes
// GO_IMAGE and RUNTIME_IMAGE, the Dockerfile's own build arguments, naming
// local stand-ins assembled here: this machine's Go toolchain with a shell
// and a file module proxy holding exactly the modules go.mod needs (the
// build runs without a network), and an empty runtime image. The
// Dockerfile itself, its defaults included, is what ships.
//
// It skips, with the reason, where podman is missing (.ci/setup-image
// installs it; with CI=true that is a failure) or cannot run a container
// on this machine (a sandbox without the kernel features it needs).
func TestImageBuildsAndRuns(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: the image build takes minutes")
	}
	ctx, cancel := context.WithTimeout(t.Context(), imageTestBudget)
	defer cancel()
	pm := newPodman(t)
	pm.probe(ctx)

	goImage := pm.importRootfs(ctx, "localhost/pdpp-mcp-test/go:local", goStandinRootfs(ctx, t),
		"ENV PATH=/usr/local/go/bin:/bin", "ENV HOME=/root", "ENV GOPROXY=file:///goproxy",
		"ENV GOSUMDB=off", "ENV GOTOOLCHAIN=local", "ENV GOFLAGS=-mod=readonly")
	runtimeImage := pm.importRootfs(ctx, "localhost/pdpp-mcp-test/runtime:local", t.TempDir())
	const image = "localhost/pdpp-mcp-test/pdpp-mcp:image-test"
	build := append([]string{"build", "--layers=false", "--network=none",
		"--build-arg", "GO_IMAGE=" + goImage, "--build-arg", "RUNTIME_IMAGE=" + runtimeImage,
		"--build-arg", "VERSION=image-test", "-f", "Dockerfile", "-t", image}, pm.runArgs...)
	pm.run(ctx, append(build, "..")...)

	var inspected []struct {
		Config struct {
			User   string
			Labels map[string]string
		}
	}
	if err := json.Unmarshal([]byte(pm.run(ctx, "image", "inspect", image)), &inspected); err != nil || len(inspected) != 1 {
		t.Fatalf("image inspect: %v (%d images)", err, len(inspected))
	}
	cfg := inspected[0]
	if cfg.Config.User != "65532:65532" {
		t.Errorf("image user %q, want 65532:65532", cfg.Config.User)
	}
	if got := cfg.Config.Labels["org.opencontainers.image.licenses"]; got != "Apache-2.0" {
		t.Errorf("image licence label %q, want Apache-2.0", got)
	}
	// The files the image holds: the binary and the licence beside it.
	pm.run(ctx, "create", "--name", "pdpp-mcp-image-files", image)
	files := pm.run(ctx, "export", "pdpp-mcp-image-files")
	pm.run(ctx, "rm", "pdpp-mcp-image-files")
	names := tarNames(t, files)
	for _, want := range []string{"pdpp-mcp", "licenses/LICENSE", "licenses/NOTICE"} {
		if !slices.Contains(names, want) {
			t.Errorf("the image lacks /%s; it holds %v", want, names)
		}
	}

	rs := testenv.StartRS(t, testenv.Options{})
	addr := loopbackTwin(t, "0.0.0.0:7670")
	c := pm.serve(ctx, image, "PDPP_PROVIDER_URL="+rs.URL, "PDPP_MCP_ADDR="+addr,
		"PDPP_MCP_METRICS_ADDR="+loopbackTwin(t, "0.0.0.0:9090"))
	for _, ch := range []struct{ path, want string }{{"/healthz", `"ok"`}, {"/readyz", `"ready"`}} {
		if status, body := get(t, "http://"+addr+ch.path); status != 200 || !strings.Contains(body, ch.want) {
			t.Errorf("GET %s = %d %q, want 200 with %s", ch.path, status, body, ch.want)
		}
	}
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"query_records","arguments":{"stream":"messages","limit":1}}}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/mcp", strings.NewReader(call))
	req.Header.Set("Authorization", "Bearer "+testenv.Dataset(t).Grants[0].Token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("tools/call: %v", err)
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "query_records stream=messages records=") {
		t.Errorf("tools/call = %d %s, want a page of messages", resp.StatusCode, body)
	}
	c.stop(t)
}

// podman runs podman against a storage of the test's own (vfs: no kernel
// overlay support needed), so nothing is left in the machine's images.
type podman struct {
	t       *testing.T
	global  []string // storage and runtime flags for every command
	runArgs []string // what run and build need on this machine (runtime, limits)
	logs    string   // a directory for build output
}

// newPodman finds podman or skips naming what installs it.
func newPodman(t *testing.T) *podman {
	t.Helper()
	if _, err := exec.LookPath("podman"); err != nil {
		msg := "podman is not installed; run .ci/setup-image (Debian's podman, buildah and runc)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + " — CI=true, so this is a failure, not a skip")
		}
		t.Skip(msg)
	}
	dir, err := os.MkdirTemp("", "pdpp-mcp-podman-")
	if err != nil {
		t.Fatal(err)
	}
	pm := &podman{t: t, logs: t.TempDir(), global: []string{
		"--root", filepath.Join(dir, "storage"), "--runroot", filepath.Join(dir, "run"),
		"--storage-driver=vfs", "--cgroup-manager=cgroupfs", "--events-backend=file",
	}}
	t.Cleanup(func() {
		// A fresh context: the test's own is cancelled before cleanup.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		_ = exec.CommandContext(ctx, "podman", append(pm.global, "system", "reset", "--force")...).Run()
		_ = os.RemoveAll(dir)
	})
	return pm
}

// probe runs a container holding one static binary with each runtime in
// turn (the default, then runc, which still works where cgroups are in
// the hybrid v1/v2 layout crun refuses) and keeps the first that works;
// when none does, the test skips with podman's own words.
func (pm *podman) probe(ctx context.Context) {
	pm.t.Helper()
	rootfs := pm.t.TempDir()
	bin := buildLikeTheDockerfile(pm.t)
	if err := copyFile(bin, filepath.Join(rootfs, "pdpp-mcp")); err != nil {
		pm.t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(rootfs, "pdpp-mcp"), 0o755); err != nil {
		pm.t.Fatal(err)
	}
	image := pm.importRootfs(ctx, "localhost/pdpp-mcp-test/probe:local", rootfs)
	// Explicit limits: the defaults (the host's hard limits) are refused by
	// the kernel in some sandboxes, and the server needs far fewer.
	limits := []string{"--ulimit", "nofile=4096:4096", "--ulimit", "nproc=1024:1024"}
	var failures []string
	for _, runtime := range [][]string{nil, {"--runtime=runc"}} {
		args := append(append(append([]string{"run", "--rm", "--network=host", "--user", "65532:65532", "--read-only"}, runtime...), limits...), image, "/pdpp-mcp", "--version")
		out, err := exec.CommandContext(ctx, "podman", append(pm.global, args...)...).CombinedOutput()
		if err == nil && strings.Contains(string(out), "container-test") {
			pm.runArgs = append(runtime, limits...)
			return
		}
		failures = append(failures, fmt.Sprintf("podman run %s: %v: %s", strings.Join(runtime, " "), err, bytes.TrimSpace(out)))
	}
	pm.t.Skipf("podman cannot run a container on this machine (probed with a static binary):\n%s", strings.Join(failures, "\n"))
}

// run runs one podman command and returns its standard output; it fails
// the test with the command's output (kept in a file while it runs: a
// build writes megabytes) when the command fails.
func (pm *podman) run(ctx context.Context, args ...string) string {
	pm.t.Helper()
	logFile := filepath.Join(pm.logs, "podman-"+args[0]+".log")
	f, err := os.Create(logFile)
	if err != nil {
		pm.t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "podman", append(pm.global, args...)...)
	cmd.Stdout, cmd.Stderr = io.MultiWriter(&out, f), f
	if err := cmd.Run(); err != nil {
		pm.t.Fatalf("podman %s: %v\n%s", strings.Join(args, " "), err, tail(readFile(pm.t, logFile), 4000))
	}
	return out.String()
}

// importRootfs makes an image of a directory (podman import of its tar),
// with Dockerfile-style changes (ENV …), and returns its name.
func (pm *podman) importRootfs(ctx context.Context, name, dir string, changes ...string) string {
	pm.t.Helper()
	tarFile := filepath.Join(pm.t.TempDir(), "rootfs.tar")
	if out, err := exec.CommandContext(ctx, "tar", "-C", dir, "-cf", tarFile, ".").CombinedOutput(); err != nil {
		pm.t.Fatalf("tar %s: %v\n%s", dir, err, out)
	}
	args := []string{"import"}
	for _, c := range changes {
		args = append(args, "--change", c)
	}
	pm.run(ctx, append(args, tarFile, name)...)
	return name
}

// container is one running `podman run` of the image.
type container struct {
	cmd    *exec.Cmd
	name   string
	pm     *podman
	stderr string
}

// serve starts the image with env (and nothing else), attached, and
// returns once it printed its serving line.
func (pm *podman) serve(ctx context.Context, image string, env ...string) *container {
	pm.t.Helper()
	c := &container{pm: pm, name: "pdpp-mcp-image-test", stderr: filepath.Join(pm.t.TempDir(), "stderr")}
	args := append([]string{"run", "--rm", "--name", c.name, "--network=host", "--user", "65532:65532", "--read-only"}, pm.runArgs...)
	for _, e := range env {
		args = append(args, "--env", e)
	}
	c.cmd = exec.CommandContext(ctx, "podman", append(append(pm.global, args...), image)...)
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		pm.t.Fatal(err)
	}
	errOut, err := os.Create(c.stderr)
	if err != nil {
		pm.t.Fatal(err)
	}
	pm.t.Cleanup(func() { errOut.Close() })
	c.cmd.Stderr = errOut
	c.cmd.WaitDelay = 10 * time.Second
	if err := c.cmd.Start(); err != nil {
		pm.t.Fatal(err)
	}
	pm.t.Cleanup(func() {
		if c.cmd.ProcessState == nil {
			_ = c.cmd.Process.Kill()
			_ = c.cmd.Wait()
		}
	})
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), `{"mcp_url":`) {
				ready <- true
			}
		}
		close(ready)
	}()
	select {
	case ok := <-ready:
		if !ok {
			pm.t.Fatalf("the container exited before serving; stderr:\n%s", readFile(pm.t, c.stderr))
		}
	case <-ctx.Done():
		pm.t.Fatalf("the container did not start serving; stderr:\n%s", readFile(pm.t, c.stderr))
	}
	return c
}

// stop sends SIGTERM (podman run passes it to the container, as the
// kubelet would) and expects a clean exit.
func (c *container) stop(t *testing.T) {
	t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Wait(); err != nil {
		t.Errorf("the container after SIGTERM: %v; stderr:\n%s", err, readFile(t, c.stderr))
	}
}

// goStandinRootfs assembles the stand-in for the golang build image: this
// machine's Go toolchain at /usr/local/go, its /bin/sh with the shared
// libraries ldd names (RUN steps use the shell form), and /goproxy, a
// file module proxy holding the modules go.mod needs, so the Dockerfile's
// `go mod download` runs as written without a network.
func goStandinRootfs(ctx context.Context, t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	goroot := goEnv(ctx, t, "GOROOT")
	for _, d := range []string{"usr/local", "bin", "tmp", "root", "goproxy"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(root, "tmp"), 0o1777); err != nil {
		t.Fatal(err)
	}
	copyTree(ctx, t, goroot, filepath.Join(root, "usr/local/go"))
	shell, err := filepath.EvalSymlinks("/bin/sh")
	if err != nil {
		t.Fatal(err)
	}
	copyTree(ctx, t, shell, filepath.Join(root, "bin/sh"))
	for _, lib := range sharedLibraries(ctx, t, shell) {
		// The file itself, not a link: the loader's path is often a
		// symbolic link to a directory the stand-in does not have.
		copyTree(ctx, t, lib, filepath.Join(root, lib), "-L")
	}

	// The module proxy: first the modules into this machine's cache (the
	// ordinary client, the configured GOPROXY), then exactly go.mod's set
	// into an empty cache from that one, whose download tree is a proxy.
	cache := t.TempDir()
	goCmd(ctx, t, nil, "mod", "download")
	goCmd(ctx, t, []string{"GOMODCACHE=" + cache, "GOPROXY=file://" + filepath.Join(goEnv(ctx, t, "GOMODCACHE"), "cache", "download"),
		"GOSUMDB=off", "GOFLAGS=-mod=mod"}, "mod", "download")
	copyTree(ctx, t, filepath.Join(cache, "cache", "download")+"/.", filepath.Join(root, "goproxy"))
	// The module cache is read-only by design; let TempDir remove it.
	_ = exec.CommandContext(ctx, "chmod", "-R", "u+w", cache).Run()
	return root
}

// sharedLibraries lists the files ldd says bin loads.
func sharedLibraries(ctx context.Context, t *testing.T, bin string) []string {
	t.Helper()
	out, err := exec.CommandContext(ctx, "ldd", bin).Output()
	if err != nil {
		t.Skipf("ldd %s: %v: the Go stand-in image needs a shell and its libraries", bin, err)
	}
	var libs []string
	for _, m := range regexp.MustCompile(`(?m)(?:=> |^\s+)(/\S+)`).FindAllStringSubmatch(string(out), -1) {
		libs = append(libs, m[1])
	}
	return libs
}

func goEnv(ctx context.Context, t *testing.T, name string) string {
	t.Helper()
	out, err := exec.CommandContext(ctx, "go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// goCmd runs the go command in the repository root with extra env.
func goCmd(ctx context.Context, t *testing.T, env []string, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// copyTree copies a file or directory with cp -a (modes and links kept),
// plus any further cp flags.
func copyTree(ctx context.Context, t *testing.T, src, dst string, flags ...string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{"-a"}, flags...), src, dst)
	if out, err := exec.CommandContext(ctx, "cp", args...).CombinedOutput(); err != nil {
		t.Fatalf("cp %s: %v\n%s", src, err, out)
	}
}

// tarNames lists the regular files of a tar stream, without a leading
// "./" or "/".
func tarNames(t *testing.T, stream string) []string {
	t.Helper()
	var names []string
	tr := tar.NewReader(strings.NewReader(stream))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return names
		}
		if err != nil {
			t.Fatalf("reading the image's files: %v", err)
		}
		if h.Typeflag == tar.TypeReg {
			names = append(names, strings.TrimPrefix(strings.TrimPrefix(h.Name, "./"), "/"))
		}
	}
}

// tail is the end of s, at most n bytes.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
