package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// Host captures: the pinned Claude Code and Codex drive
// all six tools against the demo, each through a scripted model endpoint
// (scripted_model_test.go), and the endpoint records exactly what the host
// handed the model for every tool result. Each capture is then held against
// the adapter's own text for the same call (a Go SDK client on the same
// demo): whatever the host hands the model must carry every handle the text
// carries — record and hit ids, next_cursor, counts, warnings, cut-value
// continuations, retries — within the text's page budgets.

// captureSteps is the script both hosts play, on the demo's Gmail grant
// (Personal + Work Gmail). Later steps take their handles from what the
// host handed the model for earlier ones, read as the host view.
func captureSteps() []scriptStep {
	work := demodata.GmailWorkConnectionID
	fixed := func(tool string, args map[string]any) scriptStep {
		return scriptStep{tool: tool, args: func([]hostCapture) map[string]any { return args }}
	}
	return []scriptStep{
		fixed("schema", map[string]any{}),
		fixed("schema", map[string]any{"stream": "messages", "connection_id": work}),
		fixed("query_records", map[string]any{"stream": "messages", "connection_id": work, "limit": 5, "count": "exact"}),
		{tool: "query_records", args: func(prev []hostCapture) map[string]any {
			// Page 2 with the cursor the model was handed for page 1.
			args := map[string]any{"stream": "messages", "connection_id": work, "limit": 5}
			if c := hostReader.nextCursor(hostReader{}, modelPart(prev[2].model)); c != "" {
				args["cursor"] = c
			}
			return args
		}},
		fixed("query_records", map[string]any{"stream": "message_bodies", "connection_id": work, "limit": 4}),
		fixed("query_records", map[string]any{"stream": "messages", "limit": 3}),
		fixed("aggregate", map[string]any{"stream": "messages", "metric": "count", "connection_id": work}),
		fixed("aggregate", map[string]any{"stream": "messages", "metric": "count", "group_by": "is_seen", "connection_id": work}),
		fixed("search", map[string]any{"q": "invoice", "limit": 5}),
		{tool: "fetch", args: func(prev []hostCapture) map[string]any {
			id := hostReader.firstFetchID(hostReader{}, modelPart(prev[8].model))
			if id == "" {
				id = work + "/messages:" + demodata.SharedRecordID
			}
			return map[string]any{"id": id}
		}},
		fixed("read_record_field", map[string]any{"id": work + "/message_bodies:" + demodata.LongBodyMessageID,
			"field_path": "body_text", "q": demodata.LongBodyTerm, "before_chars": 40, "after_chars": 40}),
		fixed("fetch", map[string]any{"id": "messages:" + demodata.SharedRecordID}),
	}
}

// codexFrame is what Codex puts before a tool result's output: a direct
// call's, or (code mode) the output of the script that made the call.
var codexFrame = regexp.MustCompile(`^(Wall time: [0-9.]+ seconds\nOutput:\n|Script completed\nWall time [0-9.]+ seconds\nOutput:\n\n)`)

// modelPart is a capture without the host's own framing: what the adapter
// contributed to the model's context.
func modelPart(s string) string { return codexFrame.ReplaceAllString(s, "") }

// TestHostCaptures runs both hosts on both transports the demo prints.
func TestHostCaptures(t *testing.T) {
	t.Parallel()
	setup := startDemo(t)
	bearer := ""
	for _, e := range setup.exports {
		if v, ok := strings.CutPrefix(e, `export PDPP_BEARER="`); ok {
			bearer = strings.TrimSuffix(v, `"`)
		}
	}
	if bearer == "" {
		t.Fatalf("the demo exports no PDPP_BEARER: %q", setup.exports)
	}
	// The reference calls: the Go SDK on the same demo, hosted with the
	// demo bearer, stdio with the printed stdio command (its credential
	// cache holds every demo grant).
	refs := map[string]*goSession{
		"hosted": connectHTTP(t, setup.mcpURL, bearer, defaultProtocol),
		"stdio":  connectPrintedStdio(t, setup),
	}
	pick := func(cmds []string, keep func(string) bool) string {
		for _, c := range cmds {
			if keep(c) {
				return c
			}
		}
		t.Fatalf("no command fits in %q", cmds)
		return ""
	}
	hosts := []struct {
		host, transport, server, add string
		run                          func(*testing.T, demoSetup, string, string, []scriptStep) *scriptedModel
	}{
		{"claude", "hosted", "pdpp", pick(setup.claude, func(c string) bool { return strings.Contains(c, "--header") }), runClaudeScripted},
		{"claude", "stdio", "pdpp-stdio", pick(setup.claude, func(c string) bool { return strings.Contains(c, "claude mcp add pdpp-stdio --") }), runClaudeScripted},
		{"codex", "hosted", "pdpp", pick(setup.codex, func(c string) bool { return strings.Contains(c, "--bearer-token-env-var") }), runCodexScripted},
		{"codex", "stdio", "pdpp-stdio", pick(setup.codex, func(c string) bool { return !hostedCommand(c) }), runCodexScripted},
		{"codex-code-mode", "hosted", "pdpp", pick(setup.codex, func(c string) bool { return strings.Contains(c, "--bearer-token-env-var") }), runCodexCodeMode},
		{"codex-code-mode", "stdio", "pdpp-stdio", pick(setup.codex, func(c string) bool { return !hostedCommand(c) }), runCodexCodeMode},
	}
	var mu sync.Mutex
	var rows []captureRow
	t.Cleanup(func() { t.Log("\n" + captureTable(rows)) })
	for _, h := range hosts {
		t.Run(h.host+"/"+h.transport, func(t *testing.T) {
			t.Parallel()
			steps := captureSteps()
			caps, _, _, _ := h.run(t, setup, h.add, h.server, steps).recorded()
			if len(caps) != len(steps) {
				t.Fatalf("%d of %d tool results captured", len(caps), len(steps))
			}
			checkChain(t, caps)
			// The reference plays the same script on its own chain: a
			// cursor is bound to the adapter process that minted it (stdio).
			var refCaps []hostCapture
			for i, c := range caps {
				args := steps[i].args(refCaps)
				want := refs[h.transport].call(c.tool, args)
				refCaps = append(refCaps, hostCapture{tool: c.tool, args: args, model: hostReader{}.page(want)})
				t.Run(fmt.Sprintf("%02d_%s", i, c.tool), func(t *testing.T) {
					channel := checkCapture(t, c, want)
					mu.Lock()
					defer mu.Unlock()
					rows = append(rows, captureRow{h.host + "/" + h.transport, fmt.Sprintf("%02d %s %s", i, c.tool, compactArgs(c.args)),
						len(c.model), len(modelPart(c.model)), len(want.Text), channel, !t.Failed()})
				})
			}
		})
	}
}

// checkChain: the steps that continue an earlier one could, from what the
// model was handed alone: page 2 went on from page 1's next_cursor to
// other records, and fetch took search's first_fetch_id.
func checkChain(t *testing.T, caps []hostCapture) {
	t.Helper()
	hr := hostReader{}
	if caps[3].args["cursor"] == nil {
		t.Errorf("the model could not page on: no next_cursor in what it was handed for page 1:\n%.600s", caps[2].model)
	} else {
		seen := map[string]bool{}
		for _, r := range hr.records(modelPart(caps[2].model)) {
			seen[r.id] = true
		}
		for _, r := range hr.records(modelPart(caps[3].model)) {
			if seen[r.id] {
				t.Errorf("page 2 repeats page 1's record %s", r.id)
			}
		}
	}
	if id := hr.firstFetchID(modelPart(caps[8].model)); id == "" || caps[9].args["id"] != id {
		t.Errorf("the model could not fetch search's first hit: first_fetch_id %q, fetched %v", id, caps[9].args["id"])
	}
}

// captureRow is one row of the capture report.
type captureRow struct {
	run, step                string
	handed, adapter, textLen int
	channel                  string
	pass                     bool
}

// captureTable renders what each host handed the model per step.
func captureTable(rows []captureRow) string {
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].run != rows[j].run {
			return rows[i].run < rows[j].run
		}
		return rows[i].step < rows[j].step
	})
	var b strings.Builder
	b.WriteString("| host/transport | step | handed to the model B | of it from the adapter B | text B | channel | pass |\n|---|---|---:|---:|---:|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %s | %t |\n", r.run, r.step, r.handed, r.adapter, r.textLen, r.channel, r.pass)
	}
	return b.String()
}

// sameHostView tells whether two host views are the same: the same link
// lines and the same JSON value (the reference's member order is the Go
// SDK's, not the wire's).
func sameHostView(a, b string) bool {
	la, ra := splitLinkLines(a)
	lb, rb := splitLinkLines(b)
	var va, vb any
	if json.Unmarshal([]byte(ra), &va) != nil || json.Unmarshal([]byte(rb), &vb) != nil {
		return a == b
	}
	return la == lb && cmp.Equal(va, vb)
}

// splitLinkLines splits a host view into its resource-link lines and the
// rest.
func splitLinkLines(p string) (links, rest string) {
	rest = string(hostRaw(p))
	return p[:len(p)-len(rest)], rest
}

// connectPrintedStdio connects the Go SDK to the stdio server the demo
// prints for Claude Code (`claude mcp add pdpp-stdio -- <command>`).
func connectPrintedStdio(t *testing.T, setup demoSetup) *goSession {
	t.Helper()
	for _, c := range setup.claude {
		if _, command, ok := strings.Cut(c, " pdpp-stdio -- "); ok {
			argv := strings.Fields(command)
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
			s := connect(t, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, defaultProtocol)
			watchProcess(t, cmd, false)
			return s
		}
	}
	t.Fatalf("the demo prints no `claude mcp add pdpp-stdio -- …`: %q", setup.claude)
	return nil
}

// checkCapture holds one capture against the adapter's result for the same
// call: the host view must carry every handle of the text, within budget.
func checkCapture(t *testing.T, c hostCapture, want toolResult) (channel string) {
	got := modelPart(c.model)
	t.Logf("%s %s: the host handed the model %d B (adapter part %d B; text %d B, host view %d B)\n%s",
		c.tool, compactArgs(c.args), len(c.model), len(got), len(want.Text), len(hostReader{}.page(want)), c.model)
	switch {
	case sameHostView(got, hostReader{}.page(want)):
		channel = "host view (structuredContent + link lines)"
	case want.Structured != nil && sameHostView(got, string(want.Structured)):
		channel = "structuredContent (links dropped)"
	case got == want.Text:
		channel = "text"
	default:
		channel = "same shape, per-call values differ (cursors, request_id)"
	}
	t.Logf("channel: %s", channel)
	if c.flagged && c.isError != want.IsError {
		t.Errorf("host error flag %t, adapter isError %t", c.isError, want.IsError)
	}
	if want.IsError {
		for _, conn := range regexp.MustCompile(`cin_[0-9a-f]+`).FindAllString(want.Text, -1) {
			if !strings.Contains(got, conn) {
				t.Errorf("the error's retry connection %s is not in what the model got", conn)
			}
		}
		if strings.Contains(want.Text, "retry_with") && !strings.Contains(got, "retry_with") {
			t.Error("the error's retry_with is not in what the model got")
		}
		return channel
	}
	tr, hr := textReader{}, hostReader{}
	same := func(what string, w, g any) {
		t.Helper()
		if diff := cmp.Diff(w, g, cmp.AllowUnexported(pageHit{}, textRecord{}, windowHeader{})); diff != "" {
			t.Errorf("%s: the model got other than the text has (-text +host):\n%s", what, diff)
		}
	}
	switch c.tool {
	case "query_records":
		ids := recordIDs(tr.records(want.Text))
		same("record ids", ids, recordIDs(hr.records(got)))
		same("has_more", tr.hasMore(want.Text), hr.hasMore(got))
		if tr.nextCursor(want.Text) != "" && hr.nextCursor(got) == "" {
			t.Error("the text has next_cursor; the model got none")
		}
		same("count", tr.count(want.Text), hr.count(got))
		same("next_changes_since", tr.nextChanges(want.Text) != "", hr.nextChanges(got) != "")
		checkNotes(t, tr.notes(want.Text), hr.notes(got))
		checkCutCalls(t, want.Text, got)
		budget(t, got, 2000+300*len(ids), fmt.Sprintf("2,000 + 300 × %d records", len(ids)))
	case "search":
		hits := tr.hits(want.Text)
		var wantIDs, gotIDs []string
		for _, h := range hits {
			wantIDs = append(wantIDs, h.id)
		}
		for _, h := range hr.hits(got) {
			gotIDs = append(gotIDs, h.id)
		}
		same("hit ids", wantIDs, gotIDs)
		same("first_fetch_id", tr.firstFetchID(want.Text), hr.firstFetchID(got))
		same("has_more", tr.hasMore(want.Text), hr.hasMore(got))
		if tr.nextCursor(want.Text) != "" && hr.nextCursor(got) == "" {
			t.Error("the text has next_cursor; the model got none")
		}
		same("source_mix", tr.sourceMix(want.Text) != "", hr.sourceMix(got) != "")
		checkNotes(t, tr.notes(want.Text), hr.notes(got))
		budget(t, got, 2000+250*len(hits), fmt.Sprintf("2,000 + 250 × %d hits", len(hits)))
	case "aggregate":
		same("value", tr.aggValue(want.Text), hr.aggValue(got))
		same("buckets", tr.buckets(want.Text), hr.buckets(got))
	case "schema":
		checkSchema(t, c, want.Text, got)
	case "fetch":
		same("document", tr.document(want.Text), hr.document(got))
	case "read_record_field":
		wh, wb := tr.window(want.Text)
		gh, gb := hr.window(got)
		wh.Next, gh.Next = nil, nil // cursors are minted per call
		same("window header", wh, gh)
		same("window text", wb, gb)
		if strings.Contains(want.Text, `"next":`) && !strings.Contains(got, `"next":`) {
			t.Error("the text has a next window; the model got none")
		}
	}
	return channel
}

// checkSchema: the index names every stream and the next call within 8 KB;
// schema(stream) carries every field with its flags, and the legend.
func checkSchema(t *testing.T, c hostCapture, text, got string) {
	t.Helper()
	if c.args["stream"] == nil {
		for _, m := range regexp.MustCompile(`streams\(\d+\)=(\S+)`).FindAllStringSubmatch(text, -1) {
			for _, s := range strings.Split(m[1], "|") {
				if !regexp.MustCompile(`\b` + s + `\b`).MatchString(got) {
					t.Errorf("stream %s is not in what the model got", s)
				}
			}
		}
		if !strings.Contains(got, "schema(stream") {
			t.Error("the index the model got does not say to call schema(stream …)")
		}
		budget(t, got, 8192, "the schema index's 8 KB")
		return
	}
	if diff := cmp.Diff(textReader{}.fieldFlags(text), hostReader{}.fieldFlags(got)); diff != "" {
		t.Errorf("fields and flags (-text +host):\n%s", diff)
	}
	if !strings.Contains(got, `"legend"`) {
		t.Error("schema(stream) as the model got it has no legend")
	}
}

// checkNotes: every connection a warning or note of the text names (the
// partial_results retry) is named in the model's warnings too.
func checkNotes(t *testing.T, text, got string) {
	t.Helper()
	for _, m := range ctPartialConn.FindAllStringSubmatch(text, -1) {
		if !strings.Contains(got, m[0]) {
			t.Errorf("the text's warnings name %s; the model's do not:\ntext: %s\nmodel: %s", m[0], text, got)
		}
	}
}

// ctCutCall is a read_record_field call the text gives for a cut value.
var ctCutCall = regexp.MustCompile(`read_record_field (\{[^}]*\})`)

// checkCutCalls: every cut-value continuation of the text reaches the
// model, naming the same record and field.
func checkCutCalls(t *testing.T, text, got string) {
	t.Helper()
	calls := ctCutCall.FindAllStringSubmatch(text, -1)
	if len(calls) > 0 && !strings.Contains(got, "read_record_field") {
		t.Errorf("the text says how to read a cut value (%s); the model is not told", calls[0][0])
	}
}

// budget fails when what the model got is over a page budget.
func budget(t *testing.T, got string, limit int, what string) {
	t.Helper()
	if len(got) > limit {
		t.Errorf("the model got %d B, over %s = %d B", len(got), what, limit)
	}
}

// compactArgs prints tool arguments as a model writes them.
func compactArgs(args map[string]any) string {
	return fmt.Sprint(args)
}

// runClaudeScripted registers the adapter in Claude Code with the printed
// command add (run after the export lines) and runs one `claude -p` turn
// against the scripted model; server is the name add registers. Tool
// search is off so the model is offered the pdpp tools directly, as with
// few MCP tools; what a tool result hands the model does not depend on it.
func runClaudeScripted(t *testing.T, setup demoSetup, add, server string, steps []scriptStep) *scriptedModel {
	t.Helper()
	return runClaude(t, setup, add, server, steps)
}

// runClaude is runClaudeScripted with further environment (VAR=value).
func runClaude(t *testing.T, setup demoSetup, add, server string, steps []scriptStep, extra ...string) *scriptedModel {
	t.Helper()
	bins := hostBins(t)
	model := newScriptedModel(t, server, steps)
	dir := t.TempDir()
	env := hostEnv(t, bins, newOfflineProxy(t), append([]string{"ENABLE_TOOL_SEARCH=false",
		"ANTHROPIC_BASE_URL=" + model.url, "ANTHROPIC_API_KEY=sk-ant-e2e-scripted-model-no-key"}, extra...)...)
	script := strings.Join(append(append([]string{}, setup.exports...), add), "\n")
	if out, err := runHost(t, dir, env, script); err != nil {
		t.Fatalf("%s: %v\n%s", add, err, out)
	}
	out, err := runHost(t, dir, env, "claude -p 'Use the pdpp tools.' --allowedTools mcp__"+server+" --output-format json </dev/null")
	checkScriptRan(t, "claude -p", model, out, err)
	return model
}

// runCodexScripted registers the adapter in Codex with the printed command
// add and runs one `codex exec` turn against the scripted model, a custom
// model provider without a key, under a model name Codex does not know.
func runCodexScripted(t *testing.T, setup demoSetup, add, server string, steps []scriptStep) *scriptedModel {
	t.Helper()
	return runCodex(t, setup, add, server, steps, codexRun{model: "scripted"})
}

// codexRun is how Codex is run: the model name it is told (a bundled
// model's name brings that model's tool mode and output limits), whether
// that model works in code mode, the JavaScript a code-mode model writes
// (codeModeScript when nil), and further environment.
type codexRun struct {
	model    string
	codeMode bool
	script   func(call string) string
	env      []string
}

// runCodex is runCodexScripted as run says. Plugins (a curated
// marketplace synced from GitHub) and analytics are off: they reach
// beyond loopback.
func runCodex(t *testing.T, setup demoSetup, add, server string, steps []scriptStep, run codexRun) *scriptedModel {
	t.Helper()
	bins := hostBins(t)
	model := newScriptedModel(t, server, steps)
	model.codeMode, model.script = run.codeMode, run.script
	env := hostEnv(t, bins, newOfflineProxy(t), run.env...)
	// The provider first: `codex mcp add` appends its table after these
	// top-level keys.
	config := `model = "` + run.model + `"
model_provider = "scripted"

[model_providers.scripted]
name = "scripted model"
base_url = "` + model.url + `/v1"
wire_api = "responses"
requires_openai_auth = false

[features]
plugins = false

[analytics]
enabled = false
`
	if err := os.WriteFile(filepath.Join(envValue(env, "CODEX_HOME"), "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	script := strings.Join(append(append([]string{}, setup.exports...), add), "\n")
	if out, err := runHost(t, t.TempDir(), env, script); err != nil {
		t.Fatalf("%s: %v\n%s", add, err, out)
	}
	cmd := strings.Join(append(append([]string{}, setup.exports...),
		"codex exec --skip-git-repo-check --json 'Use the pdpp tools.' </dev/null"), "\n")
	out, err := runHost(t, t.TempDir(), env, cmd)
	checkScriptRan(t, "codex exec ("+run.model+")", model, out, err)
	return model
}

// checkScriptRan fails when the host did not play the script to its end.
func checkScriptRan(t *testing.T, what string, model *scriptedModel, out string, err error) {
	t.Helper()
	_, names, requests, finished := model.recorded()
	if err != nil || !finished {
		t.Errorf("%s did not finish the script (%v); model endpoint requests %q, tools offered %q:\n%s", what, err, requests, names, out)
	}
}
