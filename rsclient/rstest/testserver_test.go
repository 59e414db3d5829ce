package rstest

import (
	"sync"
	"testing"
	"time"
)

func TestNewServerOptions(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{now: base}
	var mu sync.Mutex
	var seen []RecordedRequest
	ts := NewServer(testDataset(), WithTokenTTL(time.Minute), WithClock(clock.Now), WithCapabilities(CapabilitiesDeclared),
		WithSemantic(true), WithChangesRetention(time.Hour), WithFaults(Faults{PathPrefix: "/nowhere"}),
		WithRequestHook(func(r RecordedRequest) { mu.Lock(); seen = append(seen, r); mu.Unlock() }))
	t.Cleanup(ts.Close)
	if ts.OwnerToken() != ownerTok || ts.GrantToken("grt_8c1d2e3f4a5b6c7d") != gmailTok || ts.GrantToken("nope") != "" {
		t.Fatal("token lookup")
	}
	if r := get(t, ts.URL, "/v1/search/semantic?q=project", gmailTok); r.status != 200 {
		t.Errorf("semantic: %s", r.raw)
	}
	clock.Advance(time.Minute)
	if r := get(t, ts.URL, "/v1/schema", gmailTok); r.status != 403 {
		t.Errorf("ttl: %s", r.raw)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || seen[0].Principal != "grant:grt_8c1d2e3f4a5b6c7d" || seen[1].Path != "/v1/schema" {
		t.Errorf("hook saw %+v", seen)
	}
	if ts.opts.Capabilities != CapabilitiesDeclared || ts.opts.ChangesRetention != time.Hour || ts.faults == nil {
		t.Errorf("options not applied: %+v", ts.opts)
	}
}

func TestNewServerPanicsOnBadDataset(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	NewServer(&Dataset{Connections: []Connection{{ID: "cin_x", ConnectorKey: "nope"}}})
}

func TestPrincipalNames(t *testing.T) {
	t.Parallel()
	s, err := New(testDataset(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for tok, want := range map[string]string{"": "none", ownerTok: "owner", gmailTok: "grant:grt_8c1d2e3f4a5b6c7d", unknownTok: "unknown"} {
		if got := s.principalName(tok); got != want {
			t.Errorf("%q: %q, want %q", tok, got, want)
		}
	}
}
