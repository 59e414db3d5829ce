package adapter_test

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// Each RS failure mode becomes a typed error result, never a hang, a
// protocol error or a partial decode.
func TestRSFaultsBecomeTypedErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		faults rstest.Faults
		code   string
		status int
	}{
		{"5xx", rstest.Faults{PathPrefix: "/v1/streams", Status5xx: 503}, "", 503},
		{"reset", rstest.Faults{PathPrefix: "/v1/streams", Reset: true}, "rs_unavailable", 0},
		{"malformed JSON", rstest.Faults{PathPrefix: "/v1/streams", MalformedJSON: true}, "invalid_response", 0},
		{"oversized body", rstest.Faults{PathPrefix: "/v1/streams", OversizedBytes: 2 << 20}, "response_too_large", 0},
		{"slow", rstest.Faults{PathPrefix: "/v1/streams", Latency: 3 * time.Second}, "rs_timeout", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rs := testenv.StartRS(t, testenv.Options{NoContract: true})
			rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL, Timeout: 500 * time.Millisecond, MaxBodyBytes: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			a, err := adapter.New(adapter.Config{RS: rc, Grants: []adapter.Grant{adapter.NewGrant(demodata.SlackToken)}})
			if err != nil {
				t.Fatal(err)
			}
			c := newClient(t, a)
			c.call("schema", map[string]any{}) // healthy schema first
			f := tc.faults
			rs.Server.SetFaults(&f)
			// The slow case's 3 s latency would let the call succeed:
			// its rs_timeout code is what shows the 500 ms deadline ended
			// it (no wall-clock bound here: a loaded machine is slow).
			r := c.call("query_records", map[string]any{"stream": "messages", "limit": 5})
			var env struct {
				Error struct {
					Code string `json:"code"`
				} `json:"error"`
				HTTPStatus int `json:"http_status"`
			}
			if !r.IsError || json.Unmarshal([]byte(r.text()), &env) != nil {
				t.Fatalf("want a typed error, got %s", r.text())
			}
			if tc.code != "" && env.Error.Code != tc.code {
				t.Errorf("code %q, want %q: %s", env.Error.Code, tc.code, r.text())
			}
			if env.HTTPStatus != tc.status {
				t.Errorf("http_status %d, want %d", env.HTTPStatus, tc.status)
			}
		})
	}
}

// Many concurrent calls over several grants share caches safely (run
// under -race) and all succeed. Bounded: 4 workers × 15 calls.
func TestConcurrentCallsAcrossGrants(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{NoContract: true}, threeGrants...)
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"schema", map[string]any{}},
		{"schema", map[string]any{"stream": "messages"}},
		{"search", map[string]any{"q": "roadmap", "limit": 5}},
		{"query_records", map[string]any{"stream": "conversations", "limit": 3}},
		{"aggregate", map[string]any{"stream": "channels", "metric": "count"}},
	}
	var wg sync.WaitGroup
	errs := make(chan string, 100)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 15; i++ {
				c := calls[(w+i)%len(calls)]
				if r := e.c.call(c.tool, c.args); r.IsError {
					errs <- c.tool + ": " + r.text()
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
