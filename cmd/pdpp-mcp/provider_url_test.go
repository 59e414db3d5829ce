package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestProviderURLFromFlag: a scheme is required (no silent https), the
// rest is credcache's canonical form.
func TestProviderURLFromFlag(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in, want, wantErr string
	}{
		{in: "https://rs.example/", want: "https://rs.example"},
		{in: " http://127.0.0.1:7662 ", want: "http://127.0.0.1:7662"},
		{in: "rs.example", wantErr: "has no scheme: write https://rs.example (or http://rs.example"},
		{in: "127.0.0.1:7662", wantErr: "has no scheme"},
		{in: "rs.example/a://b", wantErr: "has no scheme"},
		{in: "", wantErr: "missing --provider-url"},
		{in: "ftp://rs.example", wantErr: "invalid provider URL"},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got, err := providerURLFromFlag(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("providerURLFromFlag(%q) = %q, %v; want an error with %q", tc.in, got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
