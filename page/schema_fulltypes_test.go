package page

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSchemaTypeOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ schema, want string }{
		{`{"type":"string","format":"date-time"}`, "string/date-time"},
		{`{"type":["integer","null"]}`, "integer|null"},
		{`{"type":"array","items":{"type":"string","format":"email"}}`, "array<string/email>"},
		{`{"anyOf":[{"type":"string"},{"type":"null"}]}`, "string|null"},
		{`{"enum":["a","b"]}`, "enum(2)"},
		{`{"type":"string","enum":["a"]}`, "string enum(1)"},
		{`{}`, "-"},
		{``, "-"},
		{`"declared"`, "-"},
	} {
		if got := schemaTypeOf(json.RawMessage(tc.schema)); got != tc.want {
			t.Errorf("schemaTypeOf(%s) = %q, want %q", tc.schema, got, tc.want)
		}
	}
}

// FuzzSchemaFullTypes: any document either fails cleanly or renders a
// bounded text; never a panic.
func FuzzSchemaFullTypes(f *testing.F) {
	f.Add(`{"connectors":[{"connector_key":"g","streams":[{"name":"m","schema":{"properties":{"a":{"type":"string"}}},"field_capabilities":{"a":{"schema":{}}}}]}]}`)
	f.Add(`{"streams":[{"name":"m","field_capabilities":{"a":"t=string"}}]}`)
	f.Add(`{"connectors":[{"streams":[{"schema":{"properties":{"x":{"type":"array","items":{"items":{"type":"array"}}}}}}]}]}`)
	f.Fuzz(func(t *testing.T, doc string) {
		text, err := SchemaFullTypes(json.RawMessage(doc))
		if err != nil {
			return
		}
		streams := strings.Count(text, "\n")
		if len(text) > 200+streams*(schemaMaxTypesLine+400)+len(doc)*2 {
			t.Fatalf("text %d B for a %d B document", len(text), len(doc))
		}
	})
}
