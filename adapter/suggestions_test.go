package adapter_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
	"github.com/pdpp/pdpp-mcp/schemaindex"
)

// suggestedCallRE finds each call a schema line suggests: a tool name, then
// one or more JSON argument objects joined by " or ".
var suggestedCallRE = regexp.MustCompile(`(query_records|aggregate|search|read_record_field|fetch|schema) ((?:\{[^{}]*\})(?: or \{[^{}]*\})*)`)

// placeholderRE finds a template slot in a suggested call ("<words>",
// "<the value you filtered on>"): run as written it finds nothing.
var placeholderRE = regexp.MustCompile(`"<[^"<>]+>"`)

// suggestedCalls are every (tool, arguments) a schema(stream) page
// suggests, read from the text and from structuredContent alike: a host
// hands the model one or the other.
func suggestedCalls(t *testing.T, r toolResult) [][2]string {
	t.Helper()
	var page struct {
		Data struct {
			Sources []map[string]any `json:"sources"`
		} `json:"data"`
	}
	if err := json.Unmarshal(r.StructuredContent, &page); err != nil {
		t.Fatal(err)
	}
	texts := []string{r.text()}
	for _, s := range page.Data.Sources {
		for _, k := range []string{"sort", "count", "aggregate", "search", "filters"} {
			v, _ := s[k].(string)
			texts = append(texts, v)
		}
	}
	var out [][2]string
	seen := map[string]bool{}
	for i, text := range texts {
		for _, m := range suggestedCallRE.FindAllStringSubmatch(text, -1) {
			for _, args := range jsonObjectRE.FindAllString(m[2], -1) {
				key := m[1] + " " + args
				if seen[key] {
					continue
				}
				if i > 0 && !strings.Contains(texts[0], args) {
					t.Errorf("structuredContent suggests %s that the text does not", key)
				}
				seen[key] = true
				out = append(out, [2]string{m[1], args})
			}
		}
	}
	return out
}

// TestEverySuggestedCallWorks executes, on the mock in the real RS's
// posture (D1: nothing advertised to client tokens; D18: sort only on the
// cursor field, aggregations only where the manifest declares them),
// every call that schema(stream) suggests for every stream of every demo
// grant, and fails on the first one the RS refuses.
func TestEverySuggestedCallWorks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		token string
	}{
		{"gmail", demodata.GmailToken}, {"gmail-restricted", demodata.GmailRestrictedToken},
		{"slack", demodata.SlackToken}, {"chatgpt", demodata.ChatGPTToken}, {"github", demodata.GitHubToken},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, testenv.Options{Capabilities: rstest.CapabilitiesDeclared}, tc.token)
			for _, stream := range indexStreams(t, e) {
				r := e.c.call("schema", map[string]any{"stream": stream})
				if r.IsError {
					t.Fatalf("schema(%s): %s", stream, r.text())
				}
				calls := suggestedCalls(t, r)
				if len(calls) == 0 && !strings.Contains(r.text(), `search with "streams":`) {
					t.Errorf("schema(%s) suggests no call and no search:\n%s", stream, r.text())
				}
				for _, c := range calls {
					var args map[string]any
					if err := json.Unmarshal([]byte(c[1]), &args); err != nil {
						t.Fatalf("schema(%s) suggests %s %s, not JSON: %v", stream, c[0], c[1], err)
					}
					if placeholderRE.MatchString(c[1]) {
						t.Errorf("schema(%s) suggests %s %s: a placeholder, not a call that runs as written", stream, c[0], c[1])
					}
					if res := e.c.call(c[0], args); res.IsError {
						t.Errorf("schema(%s) suggests %s %s; the RS refuses it: %s", stream, c[0], c[1], res.text())
					}
				}
			}
		})
	}
}

// indexStreams lists the streams of the grant's schema index.
func indexStreams(t *testing.T, e *env) []string {
	t.Helper()
	r := e.c.call("schema", map[string]any{})
	if r.IsError {
		t.Fatal(r.text())
	}
	var idx struct {
		Data struct {
			Connectors []struct {
				Streams string `json:"streams"`
			} `json:"connectors"`
		} `json:"data"`
	}
	if err := json.Unmarshal(r.StructuredContent, &idx); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range idx.Data.Connectors {
		for _, s := range strings.Split(c.Streams, "|") {
			if name, _, _ := strings.Cut(s, "("); name != "" {
				out = append(out, name)
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no streams in the index:\n%s", r.StructuredContent)
	}
	return out
}

// TestUncheckedCapabilitiesAreNotClaimedAbsent: when the RS cannot answer
// the probes (here every records and aggregate read fails with 503), the
// schema text says the capability could not be checked, suggests no call,
// and never says "none" or "refused"; the next schema(stream) asks again
// once the RS recovers.
func TestUncheckedCapabilitiesAreNotClaimedAbsent(t *testing.T) {
	t.Parallel()
	var failing atomic.Bool
	failing.Store(true)
	raw := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if failing.Load() && (strings.HasSuffix(r.URL.Path, "/records") || strings.HasSuffix(r.URL.Path, "/aggregate")) {
				http.Error(w, `{"error":{"type":"api_error","code":"unavailable","message":"down"}}`, http.StatusServiceUnavailable)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	rs := testenv.StartRS(t, testenv.Options{Capabilities: rstest.CapabilitiesDeclared, Raw: raw, NoContract: true})
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	clock := &stepClock{now: time.Now()}
	srv, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Grants: []adapter.Grant{adapter.NewGrant(demodata.GmailToken)},
		Version: "test", Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, srv)
	r := c.call("schema", map[string]any{"stream": "messages"})
	if r.IsError {
		t.Fatal(r.text())
	}
	for _, line := range []string{"sort", "aggregate", "count"} {
		got := schemaLine(t, r.text(), line)
		if !strings.Contains(got, "could not be checked") || strings.Contains(got, "refused") || strings.Contains(got, "{") {
			t.Errorf("%s line with the RS failing: %s", line, got)
		}
	}
	if calls := suggestedCalls(t, r); len(calls) != 0 {
		t.Errorf("suggested calls with unchecked capabilities: %v", calls)
	}
	failing.Store(false)
	// An unchecked probe is remembered for seconds, a checked one for
	// minutes: a minute on the adapter's clock asks again.
	clock.advance(time.Minute)
	r = c.call("schema", map[string]any{"stream": "messages"})
	if !strings.Contains(schemaLine(t, r.text(), "sort"), `"sort":"-received_at"`) {
		t.Fatalf("the probe was not retried after the RS recovered:\n%s", r.text())
	}
}

// TestCapabilityProbeIsCached: the probe runs once per grant and stream;
// a second schema(stream) costs no more RS calls than the schema read.
func TestCapabilityProbeIsCached(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{Capabilities: rstest.CapabilitiesDeclared}, demodata.GmailToken)
	e.c.call("schema", map[string]any{"stream": "threads"})
	first := e.rs.RSCalls()
	e.c.call("schema", map[string]any{"stream": "threads"})
	if extra := e.rs.RSCalls() - first; extra > 1 {
		t.Errorf("second schema(threads) made %d RS calls; the probe should be cached", extra)
	}
	if first > 2+1+3*schemaindex.MaxProbeFields {
		t.Errorf("first schema(threads) made %d RS calls, more than the probe's bound", first)
	}
}
