// Package ritest runs the PDPP reference implementation (RI) for tests:
// its authorization server (AS) and resource server (RS), TypeScript on
// node 24 with SQLite, built from the source named by PDPP_RI_SRC (a
// pdpp-<commit>.tar.gz archive, or a checkout of PDP-Connect/pdpp).
//
// The build (node 24 and pnpm from the npm registry, a trimmed pnpm
// workspace, a stand-in for the RI's one non-public optional dependency,
// a loopback launcher around the RI's own startServer) happens once per
// machine, cached under the user cache directory by the source's SHA-256.
// The first start seeds a fresh database through the RI's public API with
// a fixed two-connection Gmail data set (Generate), waits for the lexical
// index to settle, and caches that database; every later start copies it
// and skips seeding. A lock file keeps concurrent test processes from
// building or seeding twice.
//
// Tests take the process-wide RI with Shared, mint grant-scoped client
// tokens the way a real client does (Mint, Refresh), and write the stdio
// adapter's credential cache (WriteCredentialCache). Without PDPP_RI_SRC
// the RI tests skip, naming the variable; with CI=true they fail instead.
// Only tests import this package.
package ritest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
)

// EnvSource names the RI source: a source archive (.tar.gz with one top
// folder) or a git checkout of PDP-Connect/pdpp.
const EnvSource = "PDPP_RI_SRC"

// EnvCache overrides where builds and seeded databases are cached
// (default: <user cache dir>/pdpp-mcp/ri).
const EnvCache = "PDPP_RI_CACHE"

// RI is one running reference implementation over a copy of the seeded
// database.
type RI struct {
	// ASURL and RSURL are the loopback base URLs of the AS and the RS.
	ASURL, RSURL string
	// Connections are the seeded connection ids by key: "work" (Work
	// Gmail) and "personal" (Personal Gmail).
	Connections map[string]string
	// Dataset is what was seeded; Truth its figures.
	Dataset *Dataset
	Truth   Truth
	// LogPath is the RI's log (its stderr).
	LogPath string

	proc   *process
	runDir string
}

// Timings are how long the phases of a start took; zero for a phase the
// cache made unnecessary.
type Timings struct {
	Build, Seed, Start time.Duration
}

// Start builds (unless cached), seeds (unless cached) and starts an RI
// from src. logf receives progress lines.
func Start(ctx context.Context, src string, logf func(string, ...any)) (*RI, Timings, error) {
	var tm Timings
	root, err := cacheRoot()
	if err != nil {
		return nil, tm, err
	}
	key, err := sourceKey(src)
	if err != nil {
		return nil, tm, fmt.Errorf("%s=%s: %w", EnvSource, src, err)
	}
	b := build{dir: filepath.Join(root, key), logf: logf}
	if err := os.MkdirAll(b.dir, 0o755); err != nil {
		return nil, tm, err
	}
	seedDir := filepath.Join(b.dir, "seed-"+SeedVersion)
	if err := withLock(b.dir+".lock", logf, func() error {
		t0 := time.Now()
		if err := b.ensure(ctx, src); err != nil {
			return err
		}
		if _, err := os.Stat(filepath.Join(seedDir, "seed.done")); err == nil {
			return nil
		}
		tm.Build = time.Since(t0)
		t1 := time.Now()
		err := seedDatabase(ctx, b, seedDir)
		tm.Seed = time.Since(t1)
		return err
	}); err != nil {
		return nil, tm, err
	}
	t2 := time.Now()
	ri, err := startSeeded(ctx, b, seedDir, logf)
	tm.Start = time.Since(t2)
	return ri, tm, err
}

// startSeeded copies the seeded database into a fresh directory and runs
// the RI over it.
func startSeeded(ctx context.Context, b build, seedDir string, logf func(string, ...any)) (*RI, error) {
	var cf connectionsFile
	if err := readJSON(filepath.Join(seedDir, "connections.json"), &cf); err != nil {
		return nil, err
	}
	runDir, err := os.MkdirTemp("", "pdpp-mcp-ri-")
	if err != nil {
		return nil, err
	}
	if err := copyDB(seedDir, runDir); err != nil {
		os.RemoveAll(runDir)
		return nil, err
	}
	logf("RI: starting over a copy of %s", seedDir)
	proc, err := startProcess(ctx, b, filepath.Join(runDir, "pdpp.sqlite"), filepath.Join(runDir, "ri.log"))
	if err != nil {
		os.RemoveAll(runDir)
		return nil, err
	}
	ri := &RI{ASURL: proc.ASURL, RSURL: proc.RSURL, Connections: cf.Connections, LogPath: proc.logPath, proc: proc, runDir: runDir}
	ri.Dataset = Generate()
	ri.Truth = GroundTruth(ri.Dataset)
	if err := awaitIndexBuilt(ctx, newHTTPC(), ri.RSURL, nil, logf); err != nil {
		ri.Close()
		return nil, err
	}
	logf("RI: AS %s, RS %s", ri.ASURL, ri.RSURL)
	return ri, nil
}

// Close stops the RI and removes its copy of the database.
func (r *RI) Close() {
	if r.proc != nil {
		r.proc.stop()
	}
	if r.runDir != "" {
		_ = os.RemoveAll(r.runDir)
	}
}

// seedDatabase seeds a fresh database and leaves it, settled, in seedDir.
// The lexical index is complete only after the RI has repaired every dirty
// scope and then restarted (its start-up backfill rebuilds what the
// per-scope repair left out), so: seed, wait for "built", restart, wait
// for "built", check lexical search against the ground truth.
func seedDatabase(ctx context.Context, b build, seedDir string) error {
	tmp := seedDir + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	db, log := filepath.Join(tmp, "pdpp.sqlite"), filepath.Join(tmp, "ri.log")
	proc, err := startProcess(ctx, b, db, log)
	if err != nil {
		return err
	}
	ds := Generate()
	tr := GroundTruth(ds)
	s := &seeder{c: newHTTPC(), as: proc.ASURL, rs: proc.RSURL, src: b.src(), logf: b.logf}
	conns, err := s.seed(ctx, ds)
	if err == nil {
		err = s.verifyCounts(ctx, conns, tr)
	}
	if err == nil {
		poke := func() {
			_, _ = s.c.do(ctx, request{method: "GET", url: proc.RSURL + "/v1/search?q=settle", bearer: s.owner})
		}
		err = awaitIndexBuilt(ctx, s.c, proc.RSURL, poke, b.logf)
	}
	proc.stop()
	if err != nil {
		return fmt.Errorf("seed: %w\nlast lines of %s:\n%s", err, log, tailFile(log, 3000))
	}
	b.logf("RI seed: index settled; restarting to rebuild the lexical index")
	proc, err = startProcess(ctx, b, db, log)
	if err != nil {
		return err
	}
	ri := &RI{ASURL: proc.ASURL, RSURL: proc.RSURL, Connections: conns, proc: proc, Dataset: ds, Truth: tr}
	err = ri.awaitSearchTruth(ctx, b.logf)
	proc.stop()
	if err != nil {
		return fmt.Errorf("seed: %w\nlast lines of %s:\n%s", err, log, tailFile(log, 3000))
	}
	if err := writeJSON(filepath.Join(tmp, "connections.json"), connectionsFile{SeedVersion: SeedVersion, Connections: conns}); err != nil {
		return err
	}
	if err := os.RemoveAll(seedDir); err != nil {
		return err
	}
	if err := os.Rename(tmp, seedDir); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(seedDir, "seed.done"), []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644)
}

// awaitSearchTruth waits until lexical search, with a client token of
// both connections, finds exactly the ground truth for the planted terms.
func (r *RI) awaitSearchTruth(ctx context.Context, logf func(string, ...any)) error {
	c := newHTTPC()
	if err := awaitIndexBuilt(ctx, c, r.RSURL, nil, logf); err != nil {
		return err
	}
	tok, err := r.Mint(ctx, MintOptions{ClientName: "pdpp-mcp RI seed check"})
	if err != nil {
		return err
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		kayak, err1 := searchIDs(ctx, c, r.RSURL, tok.AccessToken, "kayak itinerary")
		zephyr, err2 := searchIDs(ctx, c, r.RSURL, tok.AccessToken, "ZEPHYR")
		if err := errors.Join(err1, err2); err != nil {
			return err
		}
		if slices.Equal(kayak, r.Truth.KayakItinerary) && slices.Equal(zephyr, r.Truth.Zephyr) {
			logf("RI seed: lexical search matches the ground truth")
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("lexical search: kayak itinerary %v (want %v), ZEPHYR %v (want %v)", kayak, r.Truth.KayakItinerary, zephyr, r.Truth.Zephyr)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(3 * time.Second):
		}
	}
}

func cacheRoot() (string, error) {
	if d := os.Getenv(EnvCache); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory for the RI build (set %s): %w", EnvCache, err)
	}
	return filepath.Join(d, "pdpp-mcp", "ri"), nil
}

// withLock runs fn holding an exclusive lock on path, so that one test
// process builds and seeds while the others wait and then re-use its work.
func withLock(path string, logf func(string, ...any), fn func() error) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		logf("RI: another process is building or seeding (%s); waiting for it", path)
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
			return err
		}
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return fn()
}

// copyDB copies the database files (pdpp.sqlite and its -wal/-shm, if
// any) of the seed into dir.
func copyDB(seedDir, dir string) error {
	matches, err := filepath.Glob(filepath.Join(seedDir, "pdpp.sqlite*"))
	if err != nil || len(matches) == 0 {
		return fmt.Errorf("no seeded database in %s (%v)", seedDir, err)
	}
	for _, m := range matches {
		if err := copyFile(m, filepath.Join(dir, filepath.Base(m))); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Close())
}

func readJSON(path string, v any) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}

// startBudget bounds Shared's build, seed and start together.
const startBudget = 20 * time.Minute

// The process-wide RI that Shared hands out.
var (
	shared     *RI
	sharedErr  error
	sharedOnce sync.Once
	sharedMu   sync.Mutex
)

// Shared returns the process-wide RI, starting it on the first call (the
// build and seed are cached across processes; the start is once per test
// process). Without PDPP_RI_SRC it skips t, naming the variable, or fails
// t when CI=true; a failed start fails every test that asks.
func Shared(t testing.TB) *RI {
	t.Helper()
	src := os.Getenv(EnvSource)
	if src == "" {
		msg := "RI tier: set " + EnvSource + " to the PDPP reference implementation's source (a pdpp-<commit>.tar.gz " +
			"archive, or a PDP-Connect/pdpp checkout) to run the tests against the real AS and RS; .ci/run sets it"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + " (CI=true: the RI tier must run)")
		}
		t.Skip(msg)
	}
	sharedOnce.Do(func() {
		t0 := time.Now()
		var tm Timings
		// A bound for a build that hangs (a stuck registry download): a cold
		// build and seed take minutes, a warm start seconds.
		ctx, cancel := context.WithTimeout(context.Background(), startBudget)
		defer cancel()
		shared, tm, sharedErr = Start(ctx, src, func(f string, a ...any) { t.Logf(f, a...) })
		t.Logf("RI ready in %v (build %v, seed %v, start %v)", time.Since(t0).Round(time.Millisecond),
			tm.Build.Round(time.Millisecond), tm.Seed.Round(time.Millisecond), tm.Start.Round(time.Millisecond))
	})
	if sharedErr != nil {
		t.Fatalf("RI tier: %v", sharedErr)
	}
	return shared
}

// StopShared stops the process-wide RI, if one was started; TestMain calls
// it after the tests ran.
func StopShared() {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared != nil {
		shared.Close()
		shared = nil
	}
}
