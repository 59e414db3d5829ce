package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSoftMemoryLimit: 90 % of the container's limit, unless GOMEMLIMIT is
// set or the limit is absent or unusable.
func TestSoftMemoryLimit(t *testing.T) {
	t.Parallel()
	type result struct {
		Limit int64
		OK    bool
	}
	cases := []struct {
		name string
		env  map[string]string
		want result
	}{
		{"256 MiB limit", map[string]string{"PDPP_MCP_MEMORY_LIMIT": "268435456"}, result{241591910, true}},
		{"GOMEMLIMIT wins", map[string]string{"PDPP_MCP_MEMORY_LIMIT": "268435456", "GOMEMLIMIT": "200MiB"}, result{}},
		{"unset", nil, result{}},
		{"not a number", map[string]string{"PDPP_MCP_MEMORY_LIMIT": "256Mi"}, result{}},
		{"zero", map[string]string{"PDPP_MCP_MEMORY_LIMIT": "0"}, result{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l, ok := softMemoryLimit(func(k string) string { return tc.env[k] })
			if diff := cmp.Diff(tc.want, result{l, ok}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
