package hosted_test

import (
	"net/http/httptest"
	"testing"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

func TestHealthAndReadiness(t *testing.T) {
	t.Parallel()
	rs := testenv.StartRS(t, testenv.Options{})
	for name, url := range map[string]string{"reachable RS": rs.URL, "unreachable RS": "http://127.0.0.1:1"} {
		rc, err := rsclient.New(rsclient.Config{BaseURL: url})
		if err != nil {
			t.Fatal(err)
		}
		a, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc})
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(hosted.New(a, hosted.Options{}))
		defer hs.Close()
		for path, want := range map[string]int{"/healthz": 200, "/readyz": 200} {
			if path == "/readyz" && name == "unreachable RS" {
				want = 503
			}
			resp, err := hs.Client().Get(hs.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != want {
				t.Errorf("%s %s: %d, want %d", name, path, resp.StatusCode, want)
			}
		}
	}
}
