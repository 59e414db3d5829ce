package e2e

import (
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// The Inspector CLI's exit codes (EXIT_CODES in its build) the tests rely on.
const (
	inspectorExitOK        = 0
	inspectorExitToolError = 5 // tools/call returned isError: true
)

// inspector runs the MCP Inspector 2.x CLI (`npx @modelcontextprotocol/inspector
// --cli`, here its launcher under the pinned Node 22 it requires) against one
// server, one process per method as a user would. target is the URL plus
// transport options (hosted), or the stdio command with its flags (the
// Inspector starts and stops that server for every call).
type inspector struct {
	t        *testing.T
	node     string
	launcher string
	target   []string
}

// exec invokes the CLI and returns its stdout and stderr; a process that
// exits other than with wantExit fails the test.
func (in inspector) exec(wantExit int, args ...string) (stdout, stderr []byte) {
	in.t.Helper()
	argv := append(append([]string{in.launcher, "--cli"}, in.target...), args...)
	stdout, stderr, err := runNode(in.t, in.node, nil, argv...)
	code := 0
	if exit := (*exec.ExitError)(nil); errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		in.t.Fatalf("inspector %v: %v", args, err)
	}
	if code != wantExit {
		in.t.Fatalf("inspector %v: exit %d, want %d\nstderr:\n%s\nstdout:\n%s", args, code, wantExit, stderr, stdout)
	}
	return stdout, stderr
}

// run invokes the CLI, which must succeed, and decodes the JSON it prints.
func (in inspector) run(out any, args ...string) {
	in.t.Helper()
	in.decode(out, inspectorExitOK, args...)
}

func (in inspector) decode(out any, wantExit int, args ...string) {
	in.t.Helper()
	stdout, _ := in.exec(wantExit, args...)
	if err := json.Unmarshal(stdout, out); err != nil {
		in.t.Fatalf("inspector %v: output is not JSON: %v\n%s", args, err, stdout)
	}
}

// inspectorResult is a tools/call result as the Inspector prints it.
type inspectorResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
		URI  string `json:"uri"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

func (r inspectorResult) text() string {
	if len(r.Content) > 0 && r.Content[0].Type == "text" {
		return r.Content[0].Text
	}
	return ""
}

// call runs tools/call with key=value tool arguments (the CLI parses each
// value as JSON when it can, else keeps it a string). An error result
// must come with the CLI's tool-error exit code, a success with 0.
func (in inspector) call(tool string, wantError bool, kv ...string) inspectorResult {
	in.t.Helper()
	args := []string{"--method", "tools/call", "--tool-name", tool}
	if len(kv) > 0 {
		args = append(append(args, "--tool-arg"), kv...)
	}
	exit := inspectorExitOK
	if wantError {
		exit = inspectorExitToolError
	}
	var r inspectorResult
	in.decode(&r, exit, args...)
	if r.IsError != wantError {
		in.t.Fatalf("inspector tools/call %s %v: isError=%v, want %v:\n%s", tool, kv, r.IsError, wantError, r.text())
	}
	return r
}

// portabilityFinding is one finding of `--strict` (the Inspector's tool
// schema portability lint): severity, tool and JSON path; the report ends
// with portabilitySummary.
var (
	portabilityFinding = regexp.MustCompile(`(?m)^(Warning|Error): tool "([^"]+)"\n  Path: (\S+)$`)
	portabilitySummary = regexp.MustCompile(`(?m)^(\d+) errors?, (\d+) warnings? across \d+ tools?\.$`)
)

// strictList runs tools/list --strict, decodes the list into out and
// returns the findings as "severity tool path", sorted. --strict exits 0 when every finding is a
// warning, so the report on stderr is what tells; it prints nothing when
// there is no finding. (stderr also carries the stdio server's own log.)
func (in inspector) strictList(out any) []string {
	in.t.Helper()
	stdout, stderr := in.exec(inspectorExitOK, "--method", "tools/list", "--strict")
	if err := json.Unmarshal(stdout, out); err != nil {
		in.t.Fatalf("inspector tools/list --strict: output is not JSON: %v\n%s", err, stdout)
	}
	var findings []string
	for _, m := range portabilityFinding.FindAllStringSubmatch(string(stderr), -1) {
		findings = append(findings, strings.ToLower(m[1])+" "+m[2]+" "+m[3])
	}
	if m := portabilitySummary.FindStringSubmatch(string(stderr)); m != nil && atoi(in.t, m[1])+atoi(in.t, m[2]) != len(findings) {
		in.t.Errorf("inspector --strict: the summary counts %s errors and %s warnings, this test read %d findings:\n%s", m[1], m[2], len(findings), stderr)
	} else if m == nil && len(findings) > 0 {
		in.t.Errorf("inspector --strict: findings without the summary line:\n%s", stderr)
	}
	slices.Sort(findings)
	return findings
}

// TestInspectorCLI: tools/list and its --strict portability report, one tools/call per tool (handles taken from
// the previous results' text), resources/read of a search hit's
// resource_link, and one error of each family — all through the Inspector,
// over hosted HTTP and over stdio.
func TestInspectorCLI(t *testing.T) {
	t.Parallel()
	modules := requireNodeModules(t)
	// The launcher behind `npx @modelcontextprotocol/inspector`; --cli
	// imports the CLI client in-process. Inspector 2.x needs Node >= 22.19.
	launcher := filepath.Join(modules, "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
	bearer := mockRS.bearer(t, demodata.GmailGrantID)
	newInspector := func(t *testing.T, target ...string) inspector {
		return inspector{t: t, node: pinnedNode(t, modules), launcher: launcher, target: target}
	}
	t.Run("hosted", func(t *testing.T) {
		t.Parallel()
		inspectorJourney(t, newInspector(t, startServe(t), "--transport", "http", "--header", "Authorization: Bearer "+bearer))
	})
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		cmd := stdioCommand(t, bearer)
		target := []string{cmd.Path}
		for i := 1; i+1 < len(cmd.Args); i += 2 { // "--flag value" pairs → "--flag=value"
			target = append(target, cmd.Args[i]+"="+cmd.Args[i+1])
		}
		inspectorJourney(t, newInspector(t, append(target, "--transport", "stdio")...))
	})
}

func inspectorJourney(t *testing.T, in inspector) {
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	// Every tool schema must be portable: no error and no warning.
	if got := in.strictList(&list); len(got) > 0 {
		t.Errorf("tools/list --strict reports %d portability findings, want none:\n%s", len(got), strings.Join(got, "\n"))
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	want := []string{"schema", "query_records", "aggregate", "search", "fetch", "read_record_field"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tools/list (-want +got):\n%s", diff)
	}

	work := demodata.GmailWorkConnectionID
	schema := in.call("schema", false)
	match(t, reGmailStreams, schema.text())
	page := in.call("query_records", false, "stream=messages", "connection_id="+work, "limit=2")
	match(t, reNextCursor, page.text())
	agg := in.call("aggregate", false, "stream=messages", "metric=count", "connection_id="+work)
	match(t, reAggCount, agg.text())

	hits := in.call("search", false, "q="+demodata.LongBodyTerm)
	id := match(t, reFirstFetchID, hits.text())
	field := match(t, reFirstHitField, hits.text())
	doc := in.call("fetch", false, "id="+id)
	if !strings.HasPrefix(doc.text(), `{"id":"`+id+`"`) {
		t.Errorf("fetch(%s) text:\n%.300s", id, doc.text())
	}
	win := in.call("read_record_field", false, "id="+id, "field_path="+field, "q="+demodata.LongBodyTerm)
	h, _ := splitWindow(t, win.text())
	if h.MatchStart == nil || *h.MatchStart != demodata.LongBodyTermOffset {
		t.Errorf("read_record_field match_start_chars = %v, want %d", h.MatchStart, demodata.LongBodyTermOffset)
	}

	// Read every resource_link the search result offers; the record link
	// is built with the adapter's own URI format when the hit carries none.
	var links []string
	hasRecord := false
	for _, c := range hits.Content {
		if c.Type == "resource_link" {
			links = append(links, c.URI)
			hasRecord = hasRecord || strings.HasPrefix(c.URI, contentladder.RecordURIPrefix)
		}
	}
	if !hasRecord {
		ref, _, err := contentladder.ParseID(id)
		if err != nil {
			t.Fatalf("first_fetch_id %s: %v", id, err)
		}
		links = append(links, contentladder.RecordURI(ref))
	}
	for _, link := range links {
		var res struct {
			Contents []struct {
				URI  string `json:"uri"`
				Text string `json:"text"`
			} `json:"contents"`
		}
		in.run(&res, "--method", "resources/read", "--uri", link)
		if len(res.Contents) == 0 || res.Contents[0].URI != link {
			t.Errorf("resources/read %s = %+.300v", link, res.Contents)
			continue
		}
		got := res.Contents[0].Text
		switch {
		case strings.HasPrefix(link, contentladder.RecordURIPrefix) && !strings.HasPrefix(got, `{"id":"`+id+`"`):
			t.Errorf("resources/read %s: not the fetch document of %s:\n%.300s", link, id, got)
		case strings.HasPrefix(link, contentladder.FieldWindowURIPrefix) && !strings.Contains(got, demodata.LongBodyTerm):
			t.Errorf("resources/read %s: the window lacks %q:\n%.300s", link, demodata.LongBodyTerm, got)
		}
	}

	for _, c := range []struct {
		tool string
		kv   []string
		want *regexp.Regexp
	}{
		{"query_records", []string{"stream=messages", "limit=500"}, regexp.MustCompile(`"code":"invalid_arguments".*"param":"limit"`)},
		{"fetch", []string{"id=../x"}, regexp.MustCompile(`"code":"invalid_id"`)},
		{"query_records", []string{"stream=messages", "connection_id=" + work, `filter={"is_seen":true}`}, regexp.MustCompile(`"http_status":400`)},
	} {
		r := in.call(c.tool, true, c.kv...)
		if !c.want.MatchString(r.text()) {
			t.Errorf("%s %v: error text lacks %v:\n%s", c.tool, c.kv, c.want, r.text())
		}
	}
}
