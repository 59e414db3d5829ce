package schemaindex

import "github.com/pdpp/pdpp-mcp/internal/schemagen"

// SyntheticSchemaBody is schemagen.SchemaBody with this package's
// Connection, for the index's tests and examples.
func SyntheticSchemaBody(connectorKey string, streams, fields int, connections []Connection, compact bool) []byte {
	conns := make([]schemagen.Connection, len(connections))
	for i, c := range connections {
		conns[i] = schemagen.Connection{ID: c.ID, DisplayName: c.DisplayName}
	}
	return schemagen.SchemaBody(connectorKey, streams, fields, conns, compact)
}
