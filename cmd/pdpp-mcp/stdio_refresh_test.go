package main

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/internal/credcache"
)

// A grant whose token can be renewed expires, for the adapter, at its
// refresh point (so Reload renews it before the token ends); one that
// cannot keeps its own expiry; the RS's owner tokens stay out.
func TestRenewedGrants(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 4, 25, 15, 0, 0, 0, time.UTC)
	toks := []credcache.Token{
		{Value: "renewable", ExpiresAt: t0.Add(600 * time.Second), RefreshAt: t0.Add(480 * time.Second)},
		{Value: "owner", ExpiresAt: t0.Add(600 * time.Second)},
		{Value: "plain", ExpiresAt: t0.Add(300 * time.Second)},
	}
	owners := map[string]bool{adapter.NewGrant("owner").Key: true}
	got := map[string]time.Time{}
	for _, g := range renewedGrants(toks, owners) {
		got[g.Key] = g.Expires
	}
	want := map[string]time.Time{
		adapter.NewGrant("renewable").Key: t0.Add(480 * time.Second),
		adapter.NewGrant("plain").Key:     t0.Add(300 * time.Second),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("grant expiries (-want +got):\n%s", diff)
	}
}
