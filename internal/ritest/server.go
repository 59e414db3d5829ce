package ritest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// startTimeout bounds the RI's start: node compiles the TypeScript of the
// whole server on every start (type stripping), which on a loaded 2-core
// machine takes tens of seconds.
const startTimeout = 3 * time.Minute

// stopGrace is how long the RI gets to close its database after SIGTERM
// before its process group is killed.
const stopGrace = 15 * time.Second

// process is one running RI: AS and RS in one node process, in its own
// process group.
type process struct {
	cmd          *exec.Cmd
	stdin        io.Closer
	ASURL, RSURL string
	logPath      string
	exited       chan struct{}
}

// startProcess runs the launcher on free loopback ports over the database
// at dbPath, with a clean environment: the RI reads many variables
// (public URLs, issuers) that must not leak in from the test's.
func startProcess(ctx context.Context, b build, dbPath, logPath string) (*process, error) {
	key, err := os.ReadFile(b.credentialKey())
	if err != nil {
		return nil, err
	}
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.Command(b.node(), "launcher.mjs")
	cmd.Dir = b.dir
	cmd.Env = []string{
		"PATH=" + filepath.Join(b.tools(), "node_modules", ".bin") + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + os.Getenv("HOME"),
		"AS_PORT=0", "RS_PORT=0",
		"PDPP_DB_PATH=" + dbPath,
		// Deterministic embeddings: semantic search needs no model download.
		"PDPP_SEMANTIC_EMBEDDING_BACKEND=stub",
		"PDPP_CREDENTIAL_ENCRYPTION_KEY=" + strings.TrimSpace(string(key)),
		// The loopback development posture: consent and device approval
		// need no owner login.
		"NODE_ENV=development",
	}
	// Its own process group, so stopping it stops whatever it spawned;
	// and SIGTERM when the test process dies without stopping it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	cmd.Stderr = logf
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	// The launcher also stops when its stdin closes: the pipe's write end
	// lives in this process, so the RI never outlives it.
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &process{cmd: cmd, stdin: stdin, logPath: logPath, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	if err := p.awaitReady(ctx, stdout); err != nil {
		p.stop()
		return nil, fmt.Errorf("%w\nlast lines of %s:\n%s", err, logPath, tailFile(logPath, 3000))
	}
	return p, nil
}

// awaitReady reads the launcher's JSON ready line.
func (p *process) awaitReady(ctx context.Context, stdout io.Reader) error {
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
		for sc.Scan() {
		}
	}()
	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case l, ok := <-line:
		if !ok {
			return errors.New("the RI exited before it listened")
		}
		var ready struct {
			ASURL string `json:"as_url"`
			RSURL string `json:"rs_url"`
		}
		if err := json.Unmarshal([]byte(l), &ready); err != nil || ready.ASURL == "" || ready.RSURL == "" {
			return fmt.Errorf("launcher ready line %q: %v", l, err)
		}
		p.ASURL, p.RSURL = ready.ASURL, ready.RSURL
		return nil
	case <-timer.C:
		return fmt.Errorf("the RI did not listen within %v", startTimeout)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// stop sends SIGTERM to the RI's process group, waits for the database to
// close, and kills the group if it does not exit in time.
func (p *process) stop() {
	pgid := p.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	timer := time.NewTimer(stopGrace)
	defer timer.Stop()
	select {
	case <-p.exited:
	case <-timer.C:
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.exited
	}
	_ = p.stdin.Close()
}

// tailFile is the last n bytes of a log, for an error message.
func tailFile(path string, n int64) string {
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > n {
		_, _ = f.Seek(fi.Size()-n, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	return string(b)
}
