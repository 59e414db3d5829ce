package adapter

import (
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// argumentOfSchema reads the top-level argument out of a validator schema
// location; anything else (root, other keywords, no fragment) is "".
func TestArgumentOfSchema(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ url, want string }{
		{"mem:///query_records.json#/properties/filter/propertyNames", "filter"},
		{"mem:///query_records.json#/properties/filter/additionalProperties/anyOf/3/propertyNames", "filter"},
		{"mem:///t.json#/properties/a~1b~0c/propertyNames", "a/b~c"},
		{"mem:///t.json#/propertyNames", ""},
		{"mem:///t.json#", ""},
		{"mem:///t.json", ""},
		{"", ""},
	} {
		if got := argumentOfSchema(tc.url); got != tc.want {
			t.Errorf("argumentOfSchema(%q) = %q, want %q", tc.url, got, tc.want)
		}
	}
}

// TestToolInputSchemasCompile: every tool's input schema compiles. New no
// longer compiles them (each is compiled on its tool's first call), so a
// schema file the validator cannot read is caught here, not by a user's
// first call answering internal_error.
func TestToolInputSchemasCompile(t *testing.T) {
	t.Parallel()
	v := newArgValidator(catalog())
	for _, spec := range catalog() {
		t.Run(spec.Name, func(t *testing.T) {
			t.Parallel()
			if _, err := v.schemas[spec.Name](); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestBrokenInputSchemaIsInternalError: a tool whose schema does not
// compile answers a typed internal_error, never a panic or a pass.
func TestBrokenInputSchemaIsInternalError(t *testing.T) {
	t.Parallel()
	v := newArgValidator(catalog())
	v.schemas["schema"] = func() (*jsonschema.Schema, error) { return compileInput(toolSpec{Name: "broken"}) }
	_, te := v.check("schema", []byte(`{}`))
	if te == nil || te.Code != "internal_error" {
		t.Fatalf("check with a broken schema = %+v, want internal_error", te)
	}
}
