package contract

import (
	"context"
	"testing"

	pdppmcp "github.com/pdpp/pdpp-mcp"
)

func TestLoad(t *testing.T) {
	t.Parallel()
	doc, err := Load()
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if !doc.IsOpenAPI31OrLater() {
		t.Errorf("openapi = %q, want 3.1.x", doc.OpenAPI)
	}
	again, err := Load()
	if err != nil || again != doc {
		t.Errorf("Load is not cached: %p vs %p (%v)", again, doc, err)
	}
	if len(pdppmcp.OpenAPI) == 0 {
		t.Fatal("embedded OpenAPI is empty")
	}
}
