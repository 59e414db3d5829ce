package page_test

import (
	"fmt"

	"github.com/pdpp/pdpp-mcp/internal/schemagen"
	"github.com/pdpp/pdpp-mcp/page"
	"github.com/pdpp/pdpp-mcp/schemaindex"
)

func ExampleSchemaIndex() {
	body := schemagen.SchemaBody("gmail", 3, 5, []schemagen.Connection{{ID: "cin_1", DisplayName: "Personal"}}, true)
	doc, err := schemaindex.Parse(body, schemaindex.Source{GrantKey: "hash-of-bearer"})
	if err != nil {
		panic(err)
	}
	text, _ := page.SchemaIndex(schemaindex.Merge(doc).Global())
	fmt.Println(text)
	// Output:
	// PDPP schema: connectors=1 streams=3 (every granted stream, by connector)
	// connector gmail grant_id=grt_gmail connections=cin_1("Personal") streams(3)=messages|message_bodies|threads
	// call schema(stream, connection_id?) for fields with flag legend, filter, sort, fields projection, count, aggregate, expand and search modes
}

// SchemaFullTypes turns an RS detail=full document into the compact type
// line a content-only client reads.
func ExampleSchemaFullTypes() {
	doc := []byte(`{"connectors":[{"connector_key":"gmail","streams":[{"name":"messages",` +
		`"schema":{"type":"object","properties":{"received_at":{"type":"string","format":"date-time"},` +
		`"labels":{"type":"array","items":{"type":"string"}},"size_bytes":{"type":["integer","null"]},"snippet":{}}}}]}]}`)
	text, err := page.SchemaFullTypes(doc)
	if err != nil {
		panic(err)
	}
	fmt.Println(text)
	// Output:
	// json_schema types (field type/format; array<item>; a|null when nullable; "-" = type not advertised):
	// messages connector_key=gmail: labels array<string>; received_at string/date-time; size_bytes integer|null; snippet -
}
