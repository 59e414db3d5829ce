package deploy_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/pdpp/pdpp-mcp/deploy"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
)

// TestContainerEnvironmentTakesEffect runs the binary as the image and the
// Deployment would: built with the Dockerfile's flags, started with the
// ENTRYPOINT's arguments and only the environment the container gets (the
// image's ENV overlaid by the Deployment's env list, ConfigMap references
// resolved, the Secret mounted as a file, PDPP_MCP_MEMORY_LIMIT from the memory
// limit). Only what cannot work here is rewritten: listen addresses move
// to free loopback ports and the provider URL to a local mock RS. It then
// checks that each setting took effect.
func TestContainerEnvironmentTakesEffect(t *testing.T) {
	t.Parallel()
	df := loadDockerfile(t, "Dockerfile")
	objs := loadManifests(t, "kubernetes")
	d := find[*appsv1.Deployment](objs)
	c := d.Spec.Template.Spec.Containers[0]
	rs := testenv.StartRS(t, testenv.Options{})
	secretDir := t.TempDir()

	env := map[string]string{}
	for k, v := range df.Env {
		env[k] = v
	}
	for _, e := range c.Env {
		env[e.Name] = resolveEnv(t, e, objs, c)
	}
	// The Secret volume, mounted where the Deployment mounts it.
	secretPath := rewriteMount(t, env["PDPP_MCP_CURSOR_SECRET_FILE"], c, secretDir)
	secret := make([]byte, 48)
	_, _ = rand.Read(secret)
	if err := os.WriteFile(secretPath, []byte(base64.StdEncoding.EncodeToString(secret)), 0o400); err != nil {
		t.Fatal(err)
	}
	env["PDPP_MCP_CURSOR_SECRET_FILE"] = secretPath
	// What cannot be used here as written: 0.0.0.0 and the example RS.
	addr, metricsAddr := loopbackTwin(t, env["PDPP_MCP_ADDR"]), loopbackTwin(t, env["PDPP_MCP_METRICS_ADDR"])
	env["PDPP_MCP_ADDR"], env["PDPP_MCP_METRICS_ADDR"] = addr, metricsAddr
	env["PDPP_PROVIDER_URL"] = rs.URL

	bin := buildLikeTheDockerfile(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, df.Entrypoint[1:]...)
	cmd.Env = nil
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderrFile := filepath.Join(t.TempDir(), "stderr")
	errOut, err := os.Create(stderrFile)
	if err != nil {
		t.Fatal(err)
	}
	defer errOut.Close()
	cmd.Stderr = errOut
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), `{"mcp_url":`) {
				ready <- sc.Text()
			}
		}
		close(ready)
	}()
	select {
	case line, ok := <-ready:
		if !ok {
			t.Fatalf("serve exited before serving; stderr:\n%s", readFile(t, stderrFile))
		}
		if !strings.Contains(line, "http://"+addr+"/mcp") {
			t.Errorf("serving line %q does not name PDPP_MCP_ADDR %s", line, addr)
		}
	case <-ctx.Done():
		t.Fatalf("serve did not start; stderr:\n%s", readFile(t, stderrFile))
	}

	checks := []struct {
		name, url  string
		wantStatus int
		wantBody   string
	}{
		{"liveness on PDPP_MCP_ADDR", "http://" + addr + "/healthz", 200, `"ok"`},
		{"readiness reaches the RS", "http://" + addr + "/readyz", 200, `"ready"`},
		{"no metrics on the public port", "http://" + addr + "/metrics", 404, ""},
		{"metrics on PDPP_MCP_METRICS_ADDR", "http://" + metricsAddr + "/metrics", 200, "pdpp_mcp_"},
		{"the Go soft memory limit is 90 % of the container's", "http://" + metricsAddr + "/metrics", 200,
			"go_gc_gomemlimit_bytes " + memoryLimitFloat(t, c, 0.9)},
	}
	for _, ch := range checks {
		status, body := get(t, ch.url)
		if status != ch.wantStatus || !strings.Contains(body, ch.wantBody) {
			t.Errorf("%s: GET %s = %d, want %d with %q", ch.name, ch.url, status, ch.wantStatus, ch.wantBody)
		}
	}

	// SIGTERM (what the kubelet sends after preStop) drains and exits 0.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	stopped = true
	if err != nil {
		t.Errorf("serve after SIGTERM: %v", err)
	}
	// PDPP_MCP_LOG_FORMAT=json, PDPP_MCP_LOG_LEVEL=info (probes at DEBUG
	// are absent), and the cursor secret file was read (no warning).
	logs := readFile(t, stderrFile)
	for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
		var rec struct{ Level, Msg, Path string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("stderr line is not JSON (PDPP_MCP_LOG_FORMAT=json): %q", line)
			continue
		}
		if rec.Path == "/healthz" || strings.Contains(rec.Msg, "no cursor secret") {
			t.Errorf("unexpected log record at level %s: %s", rec.Level, line)
		}
	}
	if strings.Contains(logs, base64.StdEncoding.EncodeToString(secret)) {
		t.Error("the cursor secret appears in the logs")
	}
}

// resolveEnv is the value the kubelet would give one env entry.
func resolveEnv(t *testing.T, e corev1.EnvVar, objs []deploy.Object, c corev1.Container) string {
	t.Helper()
	switch {
	case e.ValueFrom == nil:
		return e.Value
	case e.ValueFrom.ConfigMapKeyRef != nil:
		ref := e.ValueFrom.ConfigMapKeyRef
		for _, o := range objs {
			if cm, ok := o.Obj.(*corev1.ConfigMap); ok && cm.Name == ref.Name {
				if v, ok := cm.Data[ref.Key]; ok || (ref.Optional != nil && *ref.Optional) {
					return v
				}
			}
		}
		t.Fatalf("%s: no ConfigMap %s key %s in the manifests", e.Name, ref.Name, ref.Key)
	case e.ValueFrom.ResourceFieldRef != nil && e.ValueFrom.ResourceFieldRef.Resource == "limits.memory":
		q := c.Resources.Limits[corev1.ResourceMemory]
		return strconv.FormatInt(q.Value(), 10)
	}
	t.Fatalf("%s: a value source this test cannot resolve; teach it", e.Name)
	return ""
}

// rewriteMount maps a path inside a mounted volume to the same file under
// dir, after checking the Deployment really mounts something there.
func rewriteMount(t *testing.T, path string, c corev1.Container, dir string) string {
	t.Helper()
	for _, m := range c.VolumeMounts {
		if rel, ok := strings.CutPrefix(path, strings.TrimSuffix(m.MountPath, "/")+"/"); ok {
			return filepath.Join(dir, rel)
		}
	}
	t.Fatalf("%q is not inside any volumeMount of the container", path)
	return ""
}

// loopbackTwin keeps the variable meaningful (a listen address) but moves
// it to a free loopback port: tests listen on loopback only.
func loopbackTwin(t *testing.T, addr string) string {
	t.Helper()
	if _, _, err := net.SplitHostPort(addr); err != nil {
		t.Fatalf("listen address %q: %v", addr, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// buildLikeTheDockerfile builds cmd/pdpp-mcp with the Dockerfile's flags.
func buildLikeTheDockerfile(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "pdpp-mcp")
	cmd := exec.CommandContext(t.Context(), "go", "build", "-trimpath", "-buildvcs=false",
		"-ldflags", "-s -w -X main.version=container-test", "-o", bin, "../cmd/pdpp-mcp")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func memoryLimitFloat(t *testing.T, c corev1.Container, share float64) string {
	t.Helper()
	q := c.Resources.Limits[corev1.ResourceMemory]
	return strconv.FormatFloat(float64(int64(float64(q.Value())*share)), 'g', -1, 64)
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(b)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
