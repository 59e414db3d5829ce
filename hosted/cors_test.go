package hosted_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// corsView is what a browser's CORS check reads from a response.
type corsView struct {
	Status                                          int
	AllowOrigin, AllowMethods, AllowHeaders, Expose string
	AllowPrivateNetwork, Challenge                  bool
}

func viewCORS(status int, h http.Header) corsView {
	return corsView{
		Status:              status,
		AllowOrigin:         h.Get("Access-Control-Allow-Origin"),
		AllowMethods:        h.Get("Access-Control-Allow-Methods"),
		AllowHeaders:        h.Get("Access-Control-Allow-Headers"),
		Expose:              h.Get("Access-Control-Expose-Headers"),
		AllowPrivateNetwork: h.Get("Access-Control-Allow-Private-Network") == "true",
		Challenge:           h.Get("WWW-Authenticate") != "",
	}
}

const (
	corsAllowed  = "https://inspector.example.test"
	corsElsewise = "https://evil.example.test"
	allowHeaders = "Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID"
	exposed      = "WWW-Authenticate, Mcp-Session-Id, Mcp-Protocol-Version"
)

// TestCORSPreflight: a configured origin's pre-flight is answered (204,
// before and without any bearer) with exactly what an MCP client needs;
// any other origin's pre-flight meets the Origin check (403) and carries
// no Access-Control-* header, so the browser sends nothing.
func TestCORSPreflight(t *testing.T) {
	t.Parallel()
	env := startHosted(t, hosted.Options{PublicURL: publicURL, AllowedOrigins: []string{corsAllowed + "/"}}, adapter.Config{})
	cases := []struct {
		name   string
		origin string
		pna    bool
		want   corsView
	}{
		{"configured origin", corsAllowed, false, corsView{Status: 204, AllowOrigin: corsAllowed, AllowMethods: "POST", AllowHeaders: allowHeaders}},
		{"configured origin, private network", corsAllowed, true, corsView{Status: 204, AllowOrigin: corsAllowed, AllowMethods: "POST", AllowHeaders: allowHeaders, AllowPrivateNetwork: true}},
		{"other origin", corsElsewise, true, corsView{Status: 403}},
		{"the public origin itself (same-origin: no CORS, the usual checks)", publicURL, false, corsView{Status: 401}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req, err := http.NewRequestWithContext(t.Context(), http.MethodOptions, env.url+"/mcp", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Origin", tc.origin)
			req.Header.Set("Access-Control-Request-Method", "POST")
			req.Header.Set("Access-Control-Request-Headers", "authorization,content-type,mcp-protocol-version")
			if tc.pna {
				req.Header.Set("Access-Control-Request-Private-Network", "true")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			got := viewCORS(resp.StatusCode, resp.Header)
			got.Challenge = false // only the status matters for the same-origin row
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("pre-flight (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCORSRequests: the configured origin's requests carry
// Access-Control-Allow-Origin and expose WWW-Authenticate (the 401
// challenge a browser client must read to sign in); other origins get the
// 403 and no CORS header; a request without Origin none either.
func TestCORSRequests(t *testing.T) {
	t.Parallel()
	env := startHosted(t, hosted.Options{PublicURL: publicURL, AllowedOrigins: []string{corsAllowed}}, adapter.Config{})
	cases := []struct {
		name, origin, auth string
		want               corsView
	}{
		{"configured origin, no bearer", corsAllowed, "", corsView{Status: 401, AllowOrigin: corsAllowed, Expose: exposed, Challenge: true}},
		{"configured origin, client bearer", corsAllowed, "Bearer " + demodata.GmailToken, corsView{Status: 200, AllowOrigin: corsAllowed, Expose: exposed}},
		{"other origin, client bearer", corsElsewise, "Bearer " + demodata.GmailToken, corsView{Status: 403}},
		{"no Origin, client bearer", "", "Bearer " + demodata.GmailToken, corsView{Status: 200}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			hdr := map[string]string{}
			if tc.origin != "" {
				hdr["Origin"] = tc.origin
			}
			res := post(t, env.url, tc.auth, toolsList, hdr)
			if diff := cmp.Diff(tc.want, viewCORS(res.Status, res.Header)); diff != "" {
				t.Errorf("(-want +got):\n%s\nbody: %s", diff, res.Body)
			}
		})
	}
}
