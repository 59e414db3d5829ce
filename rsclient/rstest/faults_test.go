package rstest

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"
)

func TestFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		f     Faults
		check func(t *testing.T, res *http.Response, body []byte, err error)
	}{
		{"5xx", Faults{Status5xx: 503}, func(t *testing.T, res *http.Response, body []byte, err error) {
			if err != nil || res.StatusCode != 503 || res.Header.Get("Retry-After") == "" {
				t.Fatalf("got %v %v", res, err)
			}
		}},
		{"reset", Faults{Reset: true}, func(t *testing.T, res *http.Response, body []byte, err error) {
			if err == nil {
				t.Fatalf("expected a transport error, got %d", res.StatusCode)
			}
		}},
		{"malformed", Faults{MalformedJSON: true}, func(t *testing.T, res *http.Response, body []byte, err error) {
			if err != nil || res.StatusCode != 200 || len(body) == 0 || body[len(body)-1] == '}' {
				t.Fatalf("body %q", body)
			}
		}},
		{"oversized", Faults{OversizedBytes: 1 << 20}, func(t *testing.T, res *http.Response, body []byte, err error) {
			if err != nil || len(body) != 1<<20 {
				t.Fatalf("len %d, err %v", len(body), err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := tc.f
			_, ts := newTestServer(t, testDataset(), Options{Faults: &f})
			req, _ := http.NewRequest("GET", ts.URL+"/v1/schema", nil)
			req.Header.Set("Authorization", "Bearer "+gmailTok)
			res, err := http.DefaultClient.Do(req)
			var body []byte
			if err == nil {
				body, _ = io.ReadAll(res.Body)
				res.Body.Close()
			}
			tc.check(t, res, body, err)
		})
	}
}

func TestFaultSelection(t *testing.T) {
	t.Parallel()
	s, ts := newTestServer(t, testDataset(), Options{Faults: &Faults{PathPrefix: "/v1/streams", EveryN: 3, Status5xx: 500}})
	var got []int
	for i := 0; i < 6; i++ {
		got = append(got, get(t, ts.URL, "/v1/streams", gmailTok).status)
	}
	if r := get(t, ts.URL, "/v1/schema", gmailTok); r.status != 200 {
		t.Errorf("non-matching path faulted: %d", r.status)
	}
	want := []int{200, 200, 500, 200, 200, 500}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("statuses = %v, want %v", got, want)
		}
	}
	s.SetFaults(&Faults{Latency: 2 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/v1/schema", nil)
	if _, err := http.DefaultClient.Do(req); err == nil {
		t.Error("latency fault did not delay past the client deadline")
	}
	s.SetFaults(nil)
	if r := get(t, ts.URL, "/v1/streams", gmailTok); r.status != 200 {
		t.Errorf("after SetFaults(nil): %d", r.status)
	}
}
