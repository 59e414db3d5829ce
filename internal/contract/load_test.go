package contract

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

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

// TestDeclaredSurface pins the operations and statuses other packages rely
// on: adding or dropping one is a contract change and must show up here.
func TestDeclaredSurface(t *testing.T) {
	t.Parallel()
	doc, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			got[method+" "+path] = slices.Sorted(maps.Keys(op.Responses.Map()))
		}
	}
	want := map[string][]string{
		"GET /v1/schema":                                            {"200", "400", "401", "403", "404", "409", "5XX"},
		"GET /v1/streams":                                           {"200", "400", "401", "403", "404", "5XX"},
		"GET /v1/streams/{stream}":                                  {"200", "400", "401", "403", "404", "5XX"},
		"GET /v1/streams/{stream}/records":                          {"200", "400", "401", "403", "404", "410", "5XX"},
		"GET /v1/streams/{stream}/records/{record_id}":              {"200", "400", "401", "403", "404", "409", "5XX"},
		"GET /v1/streams/{stream}/records/{record_id}/field-window": {"200", "400", "401", "403", "404", "409", "422", "5XX"},
		"GET /v1/streams/{stream}/aggregate":                        {"200", "400", "401", "403", "404", "5XX"},
		"GET /v1/search":                                            {"200", "400", "401", "403", "404", "5XX"},
		"GET /v1/search/semantic":                                   {"200", "400", "401", "403", "404", "5XX"},
		"GET /v1/search/hybrid":                                     {"200", "400", "401", "403", "404", "5XX"},
		"GET /.well-known/oauth-protected-resource":                 {"200", "421", "5XX"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("declared operations (-want +got):\n%s", diff)
	}
}

// TestErrorCodesStayOpen: the code is documented, never enumerated,
// because the RS emits codes outside its own table.
func TestErrorCodesStayOpen(t *testing.T) {
	t.Parallel()
	doc, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	code := doc.Components.Schemas["ErrorObject"].Value.Properties["code"].Value
	if len(code.Enum) != 0 {
		t.Errorf("error code is a closed enum: %v", code.Enum)
	}
	known := []string{
		"authentication_error", "authorization_state.unsupported_legacy_shape", "grant_revoked", "grant_expired",
		"grant_invalid", "permission_error", "package_revoked", "grant_stream_not_allowed", "field_not_granted",
		"insufficient_scope", "invalid_request", "invalid_argument", "invalid_cursor", "invalid_sort",
		"invalid_expand", "unknown_field", "invalid_field_path", "invalid_window", "unsupported_version",
		"not_found", "connection_not_found", "blob_not_found", "field_not_found", "query_not_found",
		"ambiguous_connection", "ambiguous_schema_detail", "cursor_expired", "field_not_text",
		"misdirected_request", "rate_limit_exceeded", "api_error",
	}
	var missing []string
	for _, c := range known {
		if !strings.Contains(code.Description, c) {
			missing = append(missing, c)
		}
	}
	if len(missing) != 0 {
		t.Errorf("codes of rs-contract.md §4.2 not documented: %v", missing)
	}
}
