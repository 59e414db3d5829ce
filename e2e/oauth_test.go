package e2e

import (
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// oauthTokenTTL is the access-token lifetime of the sign-in journey's mock
// RS: short, so the journey sees a token expire mid-session (the real RS
// uses 600 s, D13).
const oauthTokenTTL = 3 * time.Second

// oauthStep is one step's outcome in node/oauth.mjs's summary.
type oauthStep struct {
	OK                 bool   `json:"ok"`
	Error              string `json:"error,omitempty"`
	HasRecord          bool   `json:"has_record"`
	TokenChanged       bool   `json:"token_changed,omitempty"`
	AskedToSignInAgain bool   `json:"asked_to_sign_in_again,omitempty"`
	RegisteredClient   bool   `json:"registered_client,omitempty"`
	HasRefreshToken    bool   `json:"has_refresh_token,omitempty"`
	Status             int    `json:"status,omitempty"`
	HasWork            bool   `json:"has_work,omitempty"`
	HasPersonal        bool   `json:"has_personal,omitempty"`
	TokenIssued        bool   `json:"token_issued,omitempty"`
}

// oauthSummary is the JSON line node/oauth.mjs prints.
type oauthSummary struct {
	SDKVersion  string               `json:"sdk_version"`
	NodeVersion string               `json:"node_version"`
	Steps       map[string]oauthStep `json:"steps"`
	Wire        struct {
		MCP401        int    `json:"mcp_401"`
		MCPOK         int    `json:"mcp_ok"`
		Register      int    `json:"register"`
		CodeExchange  int    `json:"code_exchange"`
		RefreshOK     int    `json:"refresh_ok"`
		RefreshFailed int    `json:"refresh_failed"`
		TokenError    string `json:"token_error"`
		// MCPStatuses is every /mcp answer's status, in order.
		MCPStatuses []int `json:"mcp_statuses"`
		// Challenges are the 401s' WWW-Authenticate error parameters.
		Challenges []struct {
			Error            string `json:"error"`
			ErrorDescription string `json:"error_description"`
		} `json:"challenges"`
		// AuthorizeHops are the origins the browser step was redirected
		// to, in order (the last is the client's redirect_uri).
		AuthorizeHops []string `json:"authorize_hops"`
	} `json:"wire"`
	Redirects int `json:"redirects"`
}

// startSignInStack runs a private mock RS with its authorization server
// for the Gmail grant (mockArgs added) and `serve` in front of it, and
// returns the MCP URL. No bearer leaves this function: clients sign in.
func startSignInStack(t *testing.T, mockArgs ...string) string {
	t.Helper()
	rs := exec.Command(binPath, append([]string{"mockrs", "--addr", "127.0.0.1:0", "--json", "--auth-grant", demodata.GmailGrantID}, mockArgs...)...)
	rs.Stderr = &testLogWriter{t: t, prefix: "mockrs: "}
	rsOut, err := rs.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	startBounded(t, rs)
	line, err := readLine(rsOut, 30*time.Second)
	if err != nil {
		t.Fatalf("mockrs: %v", err)
	}
	var sum mockRSSummary
	if err := json.Unmarshal([]byte(line), &sum); err != nil || sum.RSURL == "" {
		t.Fatalf("mockrs ready line %q: %v", line, err)
	}
	srv := exec.Command(binPath, "serve", "--provider-url", sum.RSURL, "--addr", "127.0.0.1:0")
	srv.Stderr = &testLogWriter{t: t, prefix: "serve: "}
	srvOut, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	startBounded(t, srv)
	line, err = readLine(srvOut, 30*time.Second)
	if err != nil {
		t.Fatalf("serve: %v", err)
	}
	m := serveReady.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("serve ready line %q does not match %v", line, serveReady)
	}
	return m[1]
}

// runOAuthScenario runs node/oauth.mjs for one scenario against mcpURL.
func runOAuthScenario(t *testing.T, modules, mcpURL, scenario string) oauthSummary {
	t.Helper()
	env := []string{"MCP_URL=" + mcpURL, "SCENARIO=" + scenario,
		"TOKEN_TTL_MS=" + strconv.FormatInt(oauthTokenTTL.Milliseconds(), 10),
		"SHARED_RECORD_ID=" + demodata.SharedRecordID, "WORK_CONNECTION_ID=" + demodata.GmailWorkConnectionID,
		"PERSONAL_CONNECTION_ID=" + demodata.GmailPersonalConnectionID,
		"SHARED_SUBJECT=" + sharedSubject}
	stdout, stderr, err := runNode(t, systemNode(t, modules), env, "oauth.mjs")
	if err != nil {
		t.Fatalf("oauth.mjs %s: %v\nstderr:\n%s\nstdout:\n%s", scenario, err, stderr, stdout)
	}
	var s oauthSummary
	if err := json.Unmarshal(stdout, &s); err != nil {
		t.Fatalf("oauth.mjs summary: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	t.Logf("TypeScript SDK %s on Node %s, %s: %s", s.SDKVersion, s.NodeVersion, scenario, stdout)
	return s
}

// TestTypeScriptSDKSignIn: the official TypeScript SDK client signs in with
// no token given to it — discovery from the adapter's 401 challenge,
// dynamic registration, authorization code + PKCE, exchange — reads a
// record, outlives its access token (the SDK refreshes on the next 401
// from /mcp and carries on), and after the refresh token is revoked its
// next read fails and asks for a new sign-in instead of returning data.
// An authorization server that denies ends the sign-in in access_denied.
func TestTypeScriptSDKSignIn(t *testing.T) {
	t.Parallel()
	modules := requireNodeModules(t)
	ignoreErrors := cmpopts.IgnoreFields(oauthStep{}, "Error")
	t.Run("journey", func(t *testing.T) {
		t.Parallel()
		s := runOAuthScenario(t, modules, startSignInStack(t, "--token-ttl", oauthTokenTTL.String()), "journey")
		want := map[string]oauthStep{
			"signed_in":             {OK: true, RegisteredClient: true, HasRefreshToken: true},
			"read":                  {OK: true, HasRecord: true},
			"read_after_expiry":     {OK: true, HasRecord: true, TokenChanged: true},
			"revoke":                {OK: true, Status: 200},
			"read_after_revocation": {OK: false, AskedToSignInAgain: true},
		}
		if diff := cmp.Diff(want, s.Steps, ignoreErrors); diff != "" {
			t.Errorf("sign-in journey steps (-want +got):\n%s", diff)
		}
		if e := s.Steps["read_after_revocation"].Error; !strings.Contains(e, "UnauthorizedError") {
			t.Errorf("after revocation the read failed with %q, want the SDK's UnauthorizedError (sign in again)", e)
		}
		// Three 401s from /mcp: the first connect, the expired token, the
		// read after revocation. One registration and one code exchange for
		// the whole session; the expiry is healed by one refresh and the
		// revoked family is refused as invalid_grant.
		w := s.Wire
		if w.MCP401 != 3 || w.Register != 1 || w.CodeExchange != 1 || w.RefreshOK != 1 || w.RefreshFailed != 1 ||
			w.TokenError != "invalid_grant" || s.Redirects != 2 {
			t.Errorf("wire: %+v, %d authorize redirects; want 3 /mcp 401s, 1 registration, 1 code exchange, 1 refresh, 1 refused refresh (invalid_grant), 2 redirects", w, s.Redirects)
		}
	})
	t.Run("denied", func(t *testing.T) {
		t.Parallel()
		s := runOAuthScenario(t, modules, startSignInStack(t, "--auth-deny"), "deny")
		if diff := cmp.Diff(map[string]oauthStep{"sign_in": {}}, s.Steps, ignoreErrors); diff != "" {
			t.Errorf("denied sign-in (-want +got):\n%s", diff)
		}
		if e := s.Steps["sign_in"].Error; !strings.Contains(e, "access_denied") {
			t.Errorf("denied sign-in failed with %q, want access_denied", e)
		}
		if s.Wire.CodeExchange != 0 || s.Wire.MCPOK != 0 {
			t.Errorf("wire after a denial: %+v; want no code exchange and no successful /mcp request", s.Wire)
		}
	})
}
