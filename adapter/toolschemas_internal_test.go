package adapter

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestToolSchemaFiles: every tool has exactly its two schema files, each a
// strict object schema, and no file belongs to no tool.
func TestToolSchemaFiles(t *testing.T) {
	t.Parallel()
	var want []string
	for _, spec := range catalog() {
		want = append(want, spec.Name+".input.json", spec.Name+".output.json")
		var in struct {
			Type                 string `json:"type"`
			AdditionalProperties *bool  `json:"additionalProperties"`
		}
		if err := json.Unmarshal([]byte(spec.Input()), &in); err != nil || in.Type != "object" || in.AdditionalProperties == nil || *in.AdditionalProperties {
			t.Errorf("%s: input schema is not a strict object (err %v): %.200s", spec.Name, err, spec.Input())
		}
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, slices.Sorted(maps.Keys(toolSchemas))); diff != "" {
		t.Errorf("schema files (-want +got):\n%s", diff)
	}
}

// TestSharedInputShapesAgree: the shapes several tools share (they were
// one Go constant each before the schemas became data) are spelled
// identically in every file, so the copies cannot drift apart.
func TestSharedInputShapesAgree(t *testing.T) {
	t.Parallel()
	first := map[string]string{} // property → tool that defined it first
	shapes := map[string]json.RawMessage{}
	for _, spec := range catalog() {
		var in struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal([]byte(spec.Input()), &in); err != nil {
			t.Fatal(err)
		}
		for name, shape := range in.Properties {
			prev, ok := shapes[name]
			if !ok {
				first[name], shapes[name] = spec.Name, shape
				continue
			}
			if !slices.Contains([]string{"filter", "connection_id", "expand_limit", "fields", "expand", "grant_id"}, name) {
				continue // same name, per-tool meaning or description
			}
			if diff := cmp.Diff(string(prev), string(shape)); diff != "" {
				t.Errorf("property %q differs between %s and %s (-first +this):\n%s", name, first[name], spec.Name, diff)
			}
		}
	}
}
