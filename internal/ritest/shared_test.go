package ritest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// probeEnv makes TestSharedProbe run: it is the child the test below
// starts, never a test of its own.
const probeEnv = "PDPP_RITEST_PROBE"

func TestSharedProbe(t *testing.T) {
	if os.Getenv(probeEnv) != "1" {
		t.Skip("run by TestSharedWithoutSource in a child process")
	}
	Shared(t)
	t.Log("Shared returned")
}

// TestSharedWithoutSource: without PDPP_RI_SRC an RI test skips, naming
// the variable, except under CI=true, where it fails.
func TestSharedWithoutSource(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		ci, want string
	}{
		{"", "--- SKIP: TestSharedProbe"},
		{"false", "--- SKIP: TestSharedProbe"},
		{"true", "--- FAIL: TestSharedProbe"},
	} {
		t.Run("CI="+c.ci, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestSharedProbe$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), probeEnv+"=1", EnvSource+"=", "CI="+c.ci)
			out, _ := cmd.CombinedOutput()
			if !strings.Contains(string(out), c.want) || !strings.Contains(string(out), EnvSource) {
				t.Errorf("CI=%q: want %q and a message naming %s:\n%s", c.ci, c.want, EnvSource, out)
			}
			if strings.Contains(string(out), "Shared returned") {
				t.Errorf("CI=%q: Shared returned without a source:\n%s", c.ci, out)
			}
		})
	}
}
