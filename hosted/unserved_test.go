package hosted_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// challengeDescription is the error_description of a challenge.
var challengeDescription = regexp.MustCompile(`error_description="([^"]*)"`)

// a token the RS refuses for good on the verification
// read — a grant-package token (404 "Unknown source: unknown", D15), a
// revoked grant (403 grant_revoked, whose remedy is a new sign-in: the
// challenge a refresh or sign-in answers) — is never 503 "retry later": every
// request, initialize included, gets 401 with error="invalid_token" and a
// description saying what the token is, what this adapter serves and how
// to get it. The verdict is remembered: the RS is asked once.
func TestHostedUnservedTokenIsExplained(t *testing.T) {
	t.Parallel()
	env := startHosted(t, hosted.Options{PublicURL: publicURL}, adapter.Config{})
	pkg := env.rs.Server.MintPackageToken()
	cases := []struct {
		name        string
		token       string
		words       []string // the description must carry each
		sameMessage bool     // the body's message is the description
	}{
		{"grant-package token", pkg.AccessToken, []string{"grant-package token", "hosted-MCP source picker",
			"serves grant-scoped client tokens", "pdpp-mcp connect", "has not configured sign-in sources"}, true},
		{"revoked grant", demodata.RevokedToken, []string{"sign in again"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, body := range []string{initializeBody, toolsList, toolsCallSchema} {
				res := post(t, env.url, "Bearer "+tc.token, body, nil)
				challenge := res.Header.Get("WWW-Authenticate")
				got := authOutcome{Status: res.Status, Challenge: challengeWithoutDescription(challenge)}
				if res.Status != http.StatusOK {
					e := res.errorBody(t)
					got.Code, got.Metadata = e["code"], e["resource_metadata"]
				}
				if diff := cmp.Diff(unauthorized, got); diff != "" {
					t.Fatalf("%s (-want +got):\n%s\nbody: %s", body, diff, res.Body)
				}
				m := challengeDescription.FindStringSubmatch(challenge)
				if m == nil {
					t.Fatalf("no error_description in %q", challenge)
				}
				for _, w := range tc.words {
					if !strings.Contains(m[1], w) {
						t.Errorf("description lacks %q: %s", w, m[1])
					}
				}
				if msg := res.errorBody(t)["message"]; tc.sameMessage && msg != m[1] {
					t.Errorf("body message %q differs from the description %q", msg, m[1])
				}
			}
			if got := rsRequestsWith(env.rs, tc.token); len(got) != 1 {
				t.Errorf("RS asked %v; the definitive verdict must be remembered", got)
			}
		})
	}
}

// Point 3's other side: an RS that cannot answer is still 503, never a
// verdict about the token.
func TestHostedRSFailureIsStillUnavailable(t *testing.T) {
	t.Parallel()
	env := startHosted(t, hosted.Options{PublicURL: publicURL}, adapter.Config{})
	env.rs.Server.SetFaults(&rstest.Faults{PathPrefix: "/v1/schema", Status5xx: http.StatusBadGateway})
	res := post(t, env.url, "Bearer "+demodata.GmailToken, initializeBody, nil)
	if res.Status != http.StatusServiceUnavailable || res.errorBody(t)["code"] != "rs_unavailable" {
		t.Errorf("RS 502: status %d body %s", res.Status, res.Body)
	}
}
