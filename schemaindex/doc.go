// Package schemaindex models the PDPP resource server's schema document
// (GET /v1/schema, full or view=compact) for the MCP adapter.
//
// It parses one RS schema body per grant into a Doc, merges several grants'
// Docs into an Index that maps connection ids to their grant, connector and
// streams (DESIGN R-11), and builds the two views of the `schema` tool
// (DESIGN R-4): a bounded global index that grows by stream names only,
// and a stream-scoped view that holds every fact needed to build valid
// filter, sort, fields, aggregate and connection_id arguments. Which
// fields, operators and calls qualify is decided here; the page package
// renders the views as text and structuredContent.
//
// The package is a leaf: standard library only, no MCP types, and it never
// sees a bearer token (grants are identified by an opaque caller key).
package schemaindex
