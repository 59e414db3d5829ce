package adapter_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/internal/golden"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
)

type listedTool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  map[string]any  `json:"annotations"`
}

func listTools(t *testing.T) ([]listedTool, json.RawMessage) {
	t.Helper()
	e := newEnv(t, testenv.Options{}, "unused-token")
	raw := e.c.rpc("tools/list", map[string]any{})
	var res struct {
		Tools json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	var tools []listedTool
	if err := json.Unmarshal(res.Tools, &tools); err != nil {
		t.Fatal(err)
	}
	return tools, res.Tools
}

func TestCatalogMembershipAndOrder(t *testing.T) {
	t.Parallel()
	tools, _ := listTools(t)
	var got []string
	for _, tl := range tools {
		got = append(got, tl.Name)
	}
	want := []string{"schema", "query_records", "aggregate", "search", "fetch", "read_record_field"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("tools/list (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, adapter.ToolNames()); diff != "" {
		t.Fatalf("ToolNames (-want +got):\n%s", diff)
	}
}

func TestCatalogAnnotationsAndSchemas(t *testing.T) {
	t.Parallel()
	tools, _ := listTools(t)
	wantAnn := map[string]any{"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}
	for _, tl := range tools {
		t.Run(tl.Name, func(t *testing.T) {
			if diff := cmp.Diff(wantAnn, tl.Annotations); diff != "" {
				t.Errorf("annotations (-want +got):\n%s", diff)
			}
			var in map[string]any
			if err := json.Unmarshal(tl.InputSchema, &in); err != nil {
				t.Fatal(err)
			}
			if in["type"] != "object" || in["additionalProperties"] != false {
				t.Errorf("input schema must be a strict object: %s", tl.InputSchema)
			}
			for _, comb := range []string{"anyOf", "oneOf", "allOf", "not", "if"} {
				if _, ok := in[comb]; ok {
					t.Errorf("top-level %s in input schema", comb)
				}
			}
			props, _ := in["properties"].(map[string]any)
			if _, ok := props["connector_instance_id"]; ok {
				t.Error("connector_instance_id must not be an input")
			}
			if tl.Name != "schema" && tl.Name != "read_record_field" && tl.Name != "fetch" || tl.Name == "fetch" {
				if _, ok := props["connection_id"]; !ok && tl.Name != "schema" {
					t.Error("data tool lacks connection_id")
				}
			}
			if f, ok := props["filter"].(map[string]any); ok {
				if f["type"] != "object" {
					t.Errorf("filter must be typed object, got %v", f["type"])
				}
				if _, ok := f["anyOf"]; ok {
					t.Error("filter must not have a string alternative")
				}
				if !strings.Contains(mustJSON(t, f), `"gte"`) {
					t.Error("filter lacks range operators")
				}
			}
			if len(tl.OutputSchema) == 0 {
				t.Error("no outputSchema")
			}
		})
	}
	hasFilter := map[string]bool{}
	for _, tl := range tools {
		if strings.Contains(string(tl.InputSchema), `"filter"`) {
			hasFilter[tl.Name] = true
		}
	}
	if diff := cmp.Diff(map[string]bool{"query_records": true, "aggregate": true, "search": true}, hasFilter); diff != "" {
		t.Errorf("tools with filter (-want +got):\n%s", diff)
	}
}

func TestCatalogDescriptionsAreStatic(t *testing.T) {
	t.Parallel()
	tools, _ := listTools(t)
	// Stream names from the demo manifests must never leak into descriptions.
	streamWord := regexp.MustCompile(`\b(message_bodies|conversations|channels|threads|labels|attachments|repositories|orders|emails)\b`)
	for _, tl := range tools {
		if m := streamWord.FindString(tl.Description); m != "" {
			t.Errorf("%s description names a stream (%q): %s", tl.Name, m, tl.Description)
		}
		if tl.Description == "" || tl.Title == "" {
			t.Errorf("%s lacks title or description", tl.Name)
		}
	}
}

func TestCatalogBudgets(t *testing.T) {
	t.Parallel()
	_, raw := listTools(t)
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		t.Fatal(err)
	}
	// 10 KiB plus the line each description ends with (structuredContent
	// is the whole page: a script prints it alone).
	if n := compact.Len(); n > 10752 {
		t.Errorf("tools/list tools array is %d bytes compact; budget 10752", n)
	} else {
		t.Logf("tools/list tools array: %d bytes compact", n)
	}
	ins := adapter.Instructions
	if len(ins) > 1200 {
		t.Errorf("instructions are %d chars; budget 1200", len(ins))
	}
	first := strings.ToLower(ins[:min(512, len(ins))])
	for _, want := range []string{"grant", "schema", "connection_id", "typed", "filter", "limit", "next_cursor",
		// The real paging rule: a query_records cursor is
		// refused without its stream and connection_id; search's is not.
		"next_cursor plus the same `stream` and `connection_id` (search: cursor alone)"} {
		if !strings.Contains(first, strings.ToLower(want)) {
			t.Errorf("first 512 chars of instructions lack %q", want)
		}
	}
	t.Logf("instructions: %d chars", len(ins))
}

func TestInitializeCarriesInstructions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, "unused-token")
	raw := e.c.rpc("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "t", "version": "1"}})
	var res struct {
		Instructions string         `json:"instructions"`
		Capabilities map[string]any `json:"capabilities"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if res.Instructions != adapter.Instructions {
		t.Errorf("instructions = %q", res.Instructions)
	}
	for _, k := range []string{"tools", "resources"} {
		if _, ok := res.Capabilities[k]; !ok {
			t.Errorf("capability %s missing: %v", k, res.Capabilities)
		}
	}
}

// TestCatalogGolden pins the whole advertised surface; refresh with -update.
func TestCatalogGolden(t *testing.T) {
	t.Parallel()
	_, raw := listTools(t)
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, raw, "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteByte('\n')
	path := filepath.Join("testdata", "tools_list.golden.json")
	want := golden.Read(t, path, pretty.Bytes())
	if diff := cmp.Diff(string(want), pretty.String()); diff != "" {
		t.Errorf("tools/list changed (-want +got); rerun with -update if intended:\n%s", diff)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A script a host runs on results (Codex's code mode) gets content and
// structuredContent together: every description and the instructions say
// that structuredContent alone is the whole page, and query_records says
// its cursor goes with the same stream and connection_id (the cursor is
// refused without them), as the instructions do.
func TestToolDescriptionsSayWhatAScriptPrints(t *testing.T) {
	t.Parallel()
	tools, _ := listTools(t)
	for _, tl := range tools {
		if !strings.Contains(tl.Description, "structuredContent is the whole page: print it alone.") {
			t.Errorf("%s description does not say structuredContent is the whole page: %s", tl.Name, tl.Description)
		}
		if tl.Name == "query_records" {
			if !strings.Contains(tl.Description, "cursor=next_cursor plus the same stream and connection_id") ||
				strings.Contains(tl.Description, "next_cursor alone") {
				t.Errorf("query_records description does not say cursor goes with the same stream and connection_id: %s", tl.Description)
			}
		}
	}
	if !strings.Contains(adapter.Instructions, "prints structuredContent alone") {
		t.Errorf("instructions do not say a script prints structuredContent alone:\n%s", adapter.Instructions)
	}
}
