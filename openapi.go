// Package pdppmcp holds the module-level artifacts of pdpp-mcp that are not
// code: today only the OpenAPI description of the PDPP resource server read
// contract the adapter consumes.
package pdppmcp

import _ "embed"

// OpenAPI is openapi.yaml: the RS read contract (OpenAPI 3.1) as the real
// reference RS behaves, which internal/contract enforces against the mock RS
// and the captured RS responses. It is embedded so tests and tools need no
// file-system path to the repository root. Treat it as read-only.
//
//go:embed openapi.yaml
var OpenAPI []byte
