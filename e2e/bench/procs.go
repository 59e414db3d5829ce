package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// proc is one process the benchmark started; it is stopped by its PID.
type proc struct {
	name string
	cmd  *exec.Cmd
}

// startProc starts bin with args, stderr to a file under dir, and returns
// the process and a reader over its stdout.
func startProc(name, bin, dir string, args []string, env []string) (*proc, io.ReadCloser, io.WriteCloser, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	errFile, err := os.Create(dir + "/" + name + ".stderr")
	if err != nil {
		return nil, nil, nil, err
	}
	cmd.Stderr = errFile
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, nil, err
	}
	return &proc{name: name, cmd: cmd}, stdout, stdin, nil
}

// stop sends SIGTERM to this process only and waits up to 5 s, then kills it.
func (p *proc) stop() {
	if p == nil || p.cmd.Process == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

// cpuTime is utime+stime of pid from /proc/<pid>/stat.
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the parenthesised command name; utime and stime are
	// fields 14 and 15 of the whole line (11 and 12 after the name).
	s := string(b)
	rest := s[strings.LastIndexByte(s, ')')+2:]
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	// USER_HZ is 100 on Linux (sysconf(_SC_CLK_TCK)).
	return time.Duration(ut+st) * 10 * time.Millisecond, nil
}

// statusKB reads one "Key: N kB" line of /proc/<pid>/status (VmRSS, VmHWM).
func statusKB(pid int, key string) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), key+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// loadAvg is the first three fields of /proc/loadavg.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// rsSummary is the part of `pdpp-mcp mockrs --json` the benchmark reads.
type rsSummary struct {
	RSURL       string `json:"rs_url"`
	OwnerBearer string `json:"owner_bearer"`
	Grants      []struct {
		GrantID       string   `json:"grant_id"`
		ConnectorKey  string   `json:"connector_key"`
		Bearer        string   `json:"bearer"`
		ConnectionIDs []string `json:"connection_ids"`
	} `json:"grants"`
}

// firstLine reads one stdout line with a deadline.
func firstLine(ctx context.Context, r io.Reader, within time.Duration) (string, error) {
	ch := make(chan string, 1)
	errc := make(chan error, 1)
	go func() {
		line, err := bufio.NewReader(r).ReadString('\n')
		if err != nil {
			errc <- err
			return
		}
		ch <- line
	}()
	select {
	case l := <-ch:
		return strings.TrimSpace(l), nil
	case err := <-errc:
		return "", err
	case <-time.After(within):
		return "", fmt.Errorf("no ready line within %s", within)
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// parseSummary decodes the mock RS ready line.
func parseSummary(line string) (rsSummary, error) {
	var s rsSummary
	err := json.Unmarshal([]byte(line), &s)
	return s, err
}
