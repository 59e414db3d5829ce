package e2e

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// tsSummary is the JSON line node/journeys.mjs prints.
type tsSummary struct {
	SDKVersion  string `json:"sdk_version"`
	NodeVersion string `json:"node_version"`
	Protocol    string `json:"protocol"`
	Journeys    map[string]struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	} `json:"journeys"`
	Errors map[string]struct {
		Accepted   bool            `json:"accepted"`
		IsError    bool            `json:"is_error"`
		Text       string          `json:"text"`
		Structured json.RawMessage `json:"structured"`
		Error      string          `json:"error"`
	} `json:"errors"`
}

// TestTypeScriptSDK runs node/journeys.mjs: the official TypeScript SDK
// client walks every journey against `serve` with the Gmail bearer, and
// against the stdio server with the same grant in its credential cache, and
// takes one error result of each family through callTool, which validates
// structuredContent against the tool's outputSchema.
func TestTypeScriptSDK(t *testing.T) {
	t.Parallel()
	modules := requireNodeModules(t)
	bearer := mockRS.bearer(t, demodata.GmailGrantID)
	t.Run("hosted", func(t *testing.T) {
		t.Parallel()
		runTSJourneys(t, modules, []string{"MCP_URL=" + startServe(t), "MCP_BEARER=" + bearer})
	})
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		cmd := stdioCommand(t, bearer)
		args, _ := json.Marshal(cmd.Args[1:])
		// node starts (and on close stops) this stdio server itself.
		runTSJourneys(t, modules, []string{"MCP_STDIO_COMMAND=" + cmd.Path, "MCP_STDIO_ARGS=" + string(args), "HOME=" + t.TempDir()})
	})
}

func runTSJourneys(t *testing.T, modules string, transportEnv []string) {
	env := append(transportEnv,
		"SHARED_RECORD_ID="+demodata.SharedRecordID,
		"SHARED_SUBJECT="+sharedSubject,
		"WORK_CONNECTION_ID="+demodata.GmailWorkConnectionID,
		"LONG_BODY_TERM="+demodata.LongBodyTerm,
		"LONG_BODY_TERM_OFFSET="+strconv.Itoa(demodata.LongBodyTermOffset),
		"LONG_BODY_LENGTH="+strconv.Itoa(demodata.LongBodyLength),
	)
	stdout, stderr, err := runNode(t, systemNode(t, modules), env, "journeys.mjs")
	if err != nil {
		t.Fatalf("journeys.mjs: %v\nstderr:\n%s\nstdout:\n%s", err, stderr, stdout)
	}
	var s tsSummary
	if err := json.Unmarshal(stdout, &s); err != nil {
		t.Fatalf("journeys.mjs summary: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	t.Logf("TypeScript SDK %s on Node %s, protocol %s", s.SDKVersion, s.NodeVersion, s.Protocol)
	if s.Protocol == "" {
		t.Error("no protocol version negotiated")
	}

	var ran []string
	for name, j := range s.Journeys {
		ran = append(ran, name)
		if !j.OK {
			t.Errorf("journey %s failed in the TypeScript client:\n%s", name, j.Error)
		}
	}
	wantJourneys := []string{"aggregate", "evidence", "schema_query_paging", "search_fetch"}
	if diff := cmp.Diff(wantJourneys, slices.Sorted(slices.Values(ran))); diff != "" {
		t.Errorf("journeys run (-want +got):\n%s", diff)
	}

	wantText := map[string][]string{
		"input_validation": {`"code":"invalid_arguments"`, `"param":"limit"`},
		"adapter":          {`"code":"invalid_id"`},
		"rs_4xx":           {`"param":"filter"`, `"http_status":400`},
	}
	for family, wants := range wantText {
		e, ok := s.Errors[family]
		switch {
		case !ok:
			t.Errorf("%s: no error call ran", family)
		case !e.Accepted:
			t.Errorf("%s: the TypeScript SDK rejected the result: %s", family, e.Error)
		case !e.IsError:
			t.Errorf("%s: want isError, got:\n%s", family, e.Text)
		}
		for _, w := range wants {
			if !strings.Contains(e.Text, w) {
				t.Errorf("%s: error text lacks %s:\n%s", family, w, e.Text)
			}
		}
	}
}
