package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pdpp/pdpp-mcp/adapter"
)

func TestParseWaits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in      string
		want    adapter.Waits
		wantErr bool
	}{
		{"false", adapter.Waits{}, false},
		{"true", adapter.UnboundedWaits, false},
		{"1", adapter.UnboundedWaits, false},
		{"sometimes", adapter.Waits{}, true},
	} {
		got, err := parseWaits(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("parseWaits(%q) error %v, want error %t", tc.in, err, tc.wantErr)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("parseWaits(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}
