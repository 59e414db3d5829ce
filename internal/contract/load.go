package contract

import (
	"context"
	"fmt"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"

	pdppmcp "github.com/pdpp/pdpp-mcp"
)

// loadOnce parses the embedded document once per process: parsing and
// validating 1,200 lines of YAML per test would dominate the test run.
var loadOnce = sync.OnceValues(func() (*openapi3.T, error) {
	return parse(pdppmcp.OpenAPI)
})

// Load returns the embedded openapi.yaml, parsed and validated. The result
// is shared by every caller and must not be modified.
func Load() (*openapi3.T, error) {
	return loadOnce()
}

// parse loads and validates an OpenAPI document from YAML or JSON bytes.
func parse(data []byte) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("contract: parse openapi.yaml: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("contract: invalid openapi.yaml: %w", err)
	}
	return doc, nil
}
