package e2e

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// inspector runs the MCP Inspector CLI (@modelcontextprotocol/inspector-cli)
// against one server, one process per method as a user would. target is
// the URL plus transport options (hosted), or the stdio command with its
// flags (the Inspector starts and stops that server for every call).
type inspector struct {
	t         *testing.T
	node, cli string
	target    []string
	workDir   string
}

// run invokes the CLI and decodes the JSON it prints. A non-zero exit
// (the CLI's way of rejecting a result) fails the test.
func (in inspector) run(out any, args ...string) {
	in.t.Helper()
	argv := append(append([]string{in.cli}, in.target...), args...)
	stdout, stderr, err := runNodeIn(in.t, in.workDir, in.node, nil, argv...)
	if err != nil {
		in.t.Fatalf("inspector %v: %v\nstderr:\n%s\nstdout:\n%s", args, err, stderr, stdout)
	}
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
// value as JSON when it can, else keeps it a string).
func (in inspector) call(tool string, wantError bool, kv ...string) inspectorResult {
	in.t.Helper()
	args := []string{"--method", "tools/call", "--tool-name", tool}
	if len(kv) > 0 {
		args = append(append(args, "--tool-arg"), kv...)
	}
	var r inspectorResult
	in.run(&r, args...)
	if r.IsError != wantError {
		in.t.Fatalf("inspector tools/call %s %v: isError=%v, want %v:\n%s", tool, kv, r.IsError, wantError, r.text())
	}
	return r
}

// TestInspectorCLI: tools/list, one tools/call per tool (handles taken from
// the previous results' text), resources/read of a search hit's
// resource_link, and one error of each family — all through the Inspector,
// over hosted HTTP and over stdio.
func TestInspectorCLI(t *testing.T) {
	t.Parallel()
	modules := requireNodeModules(t)
	cliDir := filepath.Join(modules, "@modelcontextprotocol", "inspector-cli", "build")
	bearer := mockRS.bearer(t, demodata.GmailGrantID)
	newInspector := func(t *testing.T, target ...string) inspector {
		return inspector{t: t, node: systemNode(t, modules), cli: filepath.Join(cliDir, "index.js"), target: target,
			// inspector-cli 1.0.3 finds its own package.json through
			// fs.existsSync("../package.json") relative to the working
			// directory; run it from its build directory so that resolves.
			workDir: cliDir}
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
	in.run(&list, "--method", "tools/list")
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
