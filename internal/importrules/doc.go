// Package importrules holds only a test: it reads the module's import graph
// from source and enforces the layering of CONTRIBUTING.md, so a boundary
// between packages is kept by the build rather than by review.
//
//	cmd ──▶ hosted ──▶ adapter ──▶ page, rsclient, schemaindex, contentladder
//	page ──▶ contentladder, schemaindex; no MCP module, not rsclient, not context
//	hosted ──▶ bearerauth ──▶ no project package, no MCP module
//	internal/credcache ◀── cmd only (and e2e, which drives cmd)
//	rsclient/rstest ──▶ nothing of the adapter side
//	internal/softcache, internal/bearer, internal/fanout ◀── any layer; they import no project package
package importrules
