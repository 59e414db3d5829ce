package ritest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/internal/credcache"
)

func TestMain(m *testing.M) {
	code := m.Run()
	StopShared()
	os.Exit(code)
}

// TestRIMintAndRefresh runs the harness end to end on the real RI: a
// client token of both connections finds the planted search terms, a
// Work-only token finds only Work's, a refresh keeps the grant, and the
// credential cache the harness writes is one the stdio adapter loads.
func TestRIMintAndRefresh(t *testing.T) {
	ri := Shared(t)
	ctx := context.Background()
	c := newHTTPC()

	both, err := ri.Mint(ctx, MintOptions{})
	if err != nil {
		t.Fatal(err)
	}
	work, err := ri.Mint(ctx, MintOptions{Connections: []string{ri.Connections["work"]}, Streams: []string{"messages"}})
	if err != nil {
		t.Fatal(err)
	}
	refreshed, err := ri.Refresh(ctx, both)
	if err != nil {
		t.Fatal(err)
	}
	if refreshed.AccessToken == both.AccessToken || refreshed.RefreshToken == both.RefreshToken {
		t.Errorf("refresh did not rotate the tokens")
	}
	var workKayak []string
	for _, id := range ri.Truth.KayakItinerary {
		if id[:5] == "work-" {
			workKayak = append(workKayak, id)
		}
	}
	for _, c2 := range []struct {
		name, bearer, q string
		want            []string
	}{
		{"both kayak", both.AccessToken, "kayak itinerary", ri.Truth.KayakItinerary},
		{"refreshed zephyr", refreshed.AccessToken, "ZEPHYR", ri.Truth.Zephyr},
		{"work-only kayak", work.AccessToken, "kayak itinerary", workKayak},
	} {
		got, err := searchIDs(ctx, c, ri.RSURL, c2.bearer, c2.q)
		if err != nil {
			t.Fatalf("%s: %v", c2.name, err)
		}
		if diff := cmp.Diff(c2.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c2.name, diff)
		}
	}

	root := t.TempDir()
	if _, err := WriteCredentialCache(root, ri.RSURL, refreshed, work); err != nil {
		t.Fatal(err)
	}
	toks, _, err := credcache.Load(root, ri.RSURL, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, tk := range toks {
		got = append(got, tk.Value)
	}
	if diff := cmp.Diff([]string{refreshed.AccessToken, work.AccessToken}, got); diff != "" {
		t.Errorf("credential cache tokens (-want +got):\n%s", diff)
	}
}
