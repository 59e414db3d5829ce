package e2e

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// Large pages through the hosts as users run them: Codex under a model
// name it does not know (it keeps 12,024 bytes of a result and cuts the
// middle out of anything longer), Codex under a bundled model in code mode
// (the model's script receives content and structuredContent together and
// prints what it chooses), and Claude Code. Every page is asked with limit
// 100, the largest; the adapter's result ceiling must keep each page whole
// in every host, so every id of every page reaches the model.

// largePageSteps read the demo's largest pages and follow their cursors:
// Work Gmail's 42 messages and message bodies at limit 100, and a
// 100-hit search. A step whose page has no cursor left reads one record
// (or hit) instead, so the script keeps its length.
func largePageSteps() []scriptStep {
	work := demodata.GmailWorkConnectionID
	fixed := func(tool string, args map[string]any) scriptStep {
		return scriptStep{tool: tool, args: func([]hostCapture) map[string]any { return args }}
	}
	next := func(tool string, from int, base, last map[string]any) scriptStep {
		return scriptStep{tool: tool, args: func(prev []hostCapture) map[string]any {
			c := hostReader{}.nextCursor(modelPart(prev[from].model))
			if c == "" {
				return last
			}
			args := map[string]any{"cursor": c}
			for k, v := range base {
				args[k] = v
			}
			return args
		}}
	}
	msgs := map[string]any{"stream": "messages", "connection_id": work}
	bodies := map[string]any{"stream": "message_bodies", "connection_id": work}
	return []scriptStep{
		fixed("query_records", map[string]any{"stream": "messages", "connection_id": work, "limit": 100}),
		next("query_records", 0, msgs, map[string]any{"stream": "messages", "connection_id": work, "limit": 1}),
		fixed("query_records", map[string]any{"stream": "message_bodies", "connection_id": work, "limit": 100}),
		next("query_records", 2, bodies, map[string]any{"stream": "message_bodies", "connection_id": work, "limit": 1}),
		next("query_records", 3, bodies, map[string]any{"stream": "message_bodies", "connection_id": work, "limit": 1}),
		fixed("search", map[string]any{"q": "invoice", "limit": 100}),
		next("search", 5, nil, map[string]any{"q": "invoice", "limit": 1}),
	}
}

// pageIDs are the record or hit ids of a host-view page.
func pageIDs(tool, page string) []string {
	var ids []string
	switch tool {
	case "query_records":
		for _, r := range (hostReader{}).records(page) {
			ids = append(ids, r.id)
		}
	case "search":
		for _, h := range (hostReader{}).hits(page) {
			ids = append(ids, h.id)
		}
	}
	return ids
}

// fitRow is one page as one host handed it to the model.
type fitRow struct {
	host, step          string
	handed, structured  int
	ids, lost, repeated int
}

// TestHostsKeepLargePagesWhole: in every host, every limit-100 page reaches
// the model as one whole JSON page (Codex did not cut it, code mode printed
// it once) with exactly the ids the adapter's own page holds, and paging on
// with the cursor the model was handed reaches the rest.
func TestHostsKeepLargePagesWhole(t *testing.T) {
	t.Parallel()
	setup := startDemo(t)
	bearer := demoBearer(t, setup)
	add := func(keep func(string) bool) string {
		for _, c := range setup.codex {
			if keep(c) {
				return c
			}
		}
		t.Fatalf("no command fits in %q", setup.codex)
		return ""
	}
	claudeAdd := ""
	for _, c := range setup.claude {
		if strings.Contains(c, "--header") {
			claudeAdd = c
		}
	}
	hosted := add(func(c string) bool { return strings.Contains(c, "--bearer-token-env-var") })
	hosts := []struct {
		name string
		run  func(*testing.T, []scriptStep) *scriptedModel
	}{
		{"codex (unknown model)", func(t *testing.T, steps []scriptStep) *scriptedModel {
			return runCodex(t, setup, hosted, "pdpp", steps, codexRun{model: "scripted"})
		}},
		{"codex code mode (gpt-5.6-luna)", func(t *testing.T, steps []scriptStep) *scriptedModel {
			return runCodex(t, setup, hosted, "pdpp", steps, codexRun{model: codexCodeModeModel, codeMode: true})
		}},
		{"claude", func(t *testing.T, steps []scriptStep) *scriptedModel {
			return runClaudeScripted(t, setup, claudeAdd, "pdpp", steps)
		}},
	}
	var mu sync.Mutex
	var rows []fitRow
	t.Cleanup(func() { t.Log("\n" + fitTable(rows)) })
	for _, h := range hosts {
		t.Run(h.name, func(t *testing.T) {
			t.Parallel()
			steps := largePageSteps()
			caps, _, _, _ := h.run(t, steps).recorded()
			if len(caps) != len(steps) {
				t.Fatalf("%d of %d tool results captured", len(caps), len(steps))
			}
			ref := connectHTTP(t, setup.mcpURL, bearer, defaultProtocol)
			var refCaps []hostCapture
			for i, c := range caps {
				args := steps[i].args(refCaps)
				want := ref.call(c.tool, args)
				refCaps = append(refCaps, hostCapture{tool: c.tool, args: args, model: hostReader{}.page(want)})
				page := modelPart(c.model)
				row := fitRow{host: h.name, step: fmt.Sprintf("%d %s %s", i, c.tool, compactArgs(c.args)),
					handed: len(c.model), structured: len(want.Structured)}
				if hostJSON(page) == nil {
					t.Errorf("step %d: the model was not handed one whole JSON page (%d B):\n%.300s … %.300s",
						i, len(page), page, page[max(0, len(page)-300):])
				}
				got, wantIDs := pageIDs(c.tool, page), pageIDs(c.tool, hostReader{}.page(want))
				row.ids = len(got)
				seen := map[string]int{}
				for _, id := range got {
					seen[id]++
				}
				for _, id := range wantIDs {
					if seen[id] == 0 {
						row.lost++
					}
				}
				if row.lost > 0 || len(got) != len(wantIDs) {
					t.Errorf("step %d: the model got %d ids, the adapter's page holds %d; %d lost", i, len(got), len(wantIDs), row.lost)
				}
				// Once: the page's last id appears once in what the model
				// read (code mode printed structuredContent, not the
				// whole result with its text beside it). The first may
				// be twice: search names it first_fetch_id too.
				if len(wantIDs) > 0 {
					row.repeated = strings.Count(c.model, `"`+wantIDs[len(wantIDs)-1]+`"`)
					if row.repeated != 1 {
						t.Errorf("step %d: the last id is in what the model read %d times, want once", i, row.repeated)
					}
				}
				mu.Lock()
				rows = append(rows, row)
				mu.Unlock()
			}
			// The chains reached every record: pages 0–1 hold all 42
			// Work messages.
			all := map[string]bool{}
			for _, c := range caps[:2] {
				for _, id := range pageIDs(c.tool, modelPart(c.model)) {
					all[id] = true
				}
			}
			if n := len(all); n != 42 {
				t.Errorf("paging by the cursors the model was handed reached %d of Work Gmail's 42 messages", n)
			}
		})
	}
}

// codexCodeModeModel is a model bundled with the pinned Codex whose
// tool_mode is code_mode_only (Codex's models catalog): under it Codex
// offers the model exec (JavaScript) and our tools as
// tools.mcp__pdpp__<tool>.
const codexCodeModeModel = "gpt-5.6-luna"

// runCodexCodeMode is runCodexScripted under a bundled code-mode model: the
// scripted model writes, for each step, the JavaScript that makes the
// call and prints its structuredContent, as the tool descriptions say.
func runCodexCodeMode(t *testing.T, setup demoSetup, add, server string, steps []scriptStep) *scriptedModel {
	t.Helper()
	return runCodex(t, setup, add, server, steps, codexRun{model: codexCodeModeModel, codeMode: true})
}

// demoBearer is the bearer the demo exports for hosted setups.
func demoBearer(t *testing.T, setup demoSetup) string {
	t.Helper()
	for _, e := range setup.exports {
		if v, ok := strings.CutPrefix(e, `export PDPP_BEARER="`); ok {
			return strings.TrimSuffix(v, `"`)
		}
	}
	t.Fatalf("the demo exports no PDPP_BEARER: %q", setup.exports)
	return ""
}

// fitTable renders the ids each host handed the model per page.
func fitTable(rows []fitRow) string {
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].host != rows[j].host {
			return rows[i].host < rows[j].host
		}
		return rows[i].step < rows[j].step
	})
	var b strings.Builder
	b.WriteString("| host | step | handed to the model B | structuredContent B | ids | ids lost | last id seen |\n|---|---|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %d |\n", r.host, r.step, r.handed, r.structured, r.ids, r.lost, r.repeated)
	}
	return b.String()
}

// Claude Code with MAX_MCP_OUTPUT_TOKENS lowered to 2,000 (a user's
// setting; the default is 25,000) replaces a larger result with a note:
// what the model gets must still name how to continue.
func TestClaudeLowOutputLimitStillNamesHowToGoOn(t *testing.T) {
	t.Parallel()
	setup := startDemo(t)
	add := ""
	for _, c := range setup.claude {
		if strings.Contains(c, "--header") {
			add = c
		}
	}
	steps := largePageSteps()[:1]
	caps, _, _, _ := runClaude(t, setup, add, "pdpp", steps, "MAX_MCP_OUTPUT_TOKENS=2000").recorded()
	if len(caps) != 1 {
		t.Fatalf("%d tool results captured", len(caps))
	}
	note := caps[0].model
	t.Logf("with MAX_MCP_OUTPUT_TOKENS=2000 the model got %d B:\n%s", len(note), note)
	// The pinned Claude Code saves the result to a file and names it, with
	// the page's member names; no value is inline. How to continue is
	// then the saved page's head: has_more and next_cursor come first, so
	// the first read of the file (or jq .next_cursor, as the note
	// suggests) has them, and the note's schema names next_cursor.
	m := regexp.MustCompile(`saved to (\S+\.txt)`).FindStringSubmatch(note)
	if m == nil {
		if hostJSON(note) == nil || (hostReader{}).nextCursor(note) == "" {
			t.Fatalf("the model got neither the page nor a saved file's name:\n%s", note)
		}
		return // the host kept the page inline
	}
	if !strings.Contains(note, "next_cursor") {
		t.Errorf("the note does not name next_cursor:\n%s", note)
	}
	saved, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatalf("the saved result: %v", err)
	}
	head := string(saved[:min(len(saved), 400)])
	if hostJSON(string(saved)) == nil || !strings.Contains(head, `"has_more":true`) || !strings.Contains(head, `"next_cursor":"`) {
		t.Errorf("the saved page is not one JSON page whose first 400 B hold has_more and next_cursor:\n%s", head)
	}
}

// In code mode a script that prints the whole CallToolResult hands the
// model every page twice (content's text and structuredContent): what the
// tool descriptions ask for, structuredContent alone, hands it once.
func TestCodeModeScriptPrintsEachPageOnce(t *testing.T) {
	t.Parallel()
	setup := startDemo(t)
	hosted := ""
	for _, c := range setup.codex {
		if strings.Contains(c, "--bearer-token-env-var") {
			hosted = c
		}
	}
	whole := func(call string) string { return "const r = " + call + ";\ntext(JSON.stringify(r));\n" }
	for _, tc := range []struct {
		name   string
		script func(string) string
		times  int
	}{
		{"structuredContent alone", nil, 1},
		{"the whole result", whole, 2}, // at least: the text and the JSON both name it
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			steps := largePageSteps()[:1]
			caps, _, _, _ := runCodex(t, setup, hosted, "pdpp", steps,
				codexRun{model: codexCodeModeModel, codeMode: true, script: tc.script}).recorded()
			if len(caps) != 1 {
				t.Fatalf("%d tool results captured", len(caps))
			}
			recs := (hostReader{}).records(modelPart(caps[0].model))
			if tc.times == 1 && len(recs) == 0 {
				t.Fatalf("no records in what the model read:\n%.400s", caps[0].model)
			}
			last := ""
			if len(recs) > 0 {
				last = recs[len(recs)-1].id
			} else if m := regexp.MustCompile(`cin_\w+/messages:\w+`).FindAllString(caps[0].model, -1); len(m) > 0 {
				last = m[len(m)-1]
			}
			n := strings.Count(caps[0].model, last)
			t.Logf("%s: the model read %d B; the page's last id %d times", tc.name, len(caps[0].model), n)
			if (tc.times == 1 && n != 1) || n < tc.times {
				t.Errorf("the page's last id is in what the model read %d times, want %d", n, tc.times)
			}
		})
	}
}
