package e2e

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/internal/ritest"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

// riCallback is the redirect URI the test host registers; nothing listens
// there: the code is read from the Location.
const riCallback = "http://127.0.0.1:18999/callback"

// noRedirects is an HTTP client that stops at every redirect.
var noRedirects = &http.Client{Timeout: time.Minute,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// readmeSignInSelection is README's --sign-in-details example (the JSON
// block after "This is the demo's selection").
func readmeSignInSelection(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(raw), "This is the demo's selection")
	if !ok {
		t.Fatal("README lost its sign-in example")
	}
	_, rest, _ = strings.Cut(rest, "```json\n")
	block, _, _ := strings.Cut(rest, "```")
	return block
}

// riFront is a hosted adapter over the RI's RS with the sign-in front
// asking for details (start-up's check and discovery included).
func riFront(t *testing.T, ri *ritest.RI, details string) string {
	t.Helper()
	sel, err := hosted.ParseAuthorizationDetails([]byte(details))
	if err != nil {
		t.Fatalf("the start-up check refuses the selection: %v", err)
	}
	rc, err := rsclient.New(rsclient.Config{BaseURL: ri.RSURL})
	if err != nil {
		t.Fatal(err)
	}
	a, err := adapter.New(adapter.Config{RS: rc, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	si, err := hosted.DiscoverSignIn(t.Context(), a, hosted.SignInSelection{AuthorizationDetails: sel}, nil)
	if err != nil {
		t.Fatalf("discovering the RI's AS: %v", err)
	}
	hs := httptest.NewServer(hosted.New(a, hosted.Options{SignIn: si}))
	t.Cleanup(hs.Close)
	return hs.URL
}

// riGet GETs u without following redirects: status, Location, body.
func riGet(t *testing.T, u string) (int, string, string) {
	t.Helper()
	res, err := noRedirects.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
	return res.StatusCode, res.Header.Get("Location"), string(body)
}

// riPostForm POSTs form to u without following redirects.
func riPostForm(t *testing.T, u string, form url.Values, accept string) (int, string, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	res, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	return res.StatusCode, res.Header.Get("Location"), body
}

// riRegister registers a public client at the RI's AS.
func riRegister(t *testing.T, ri *ritest.RI) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"client_name": "sign-in front test", "redirect_uris": []string{riCallback},
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"},
		"token_endpoint_auth_method": "none"})
	res, err := http.Post(ri.ASURL+"/oauth/register", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var cl struct {
		ClientID string `json:"client_id"`
	}
	if err := json.NewDecoder(res.Body).Decode(&cl); err != nil || cl.ClientID == "" {
		t.Fatalf("register: %d %v", res.StatusCode, err)
	}
	return cl.ClientID
}

// hostAuthorize is the query a host sends the front's authorize endpoint,
// with its PKCE verifier and state.
func hostAuthorize(clientID, resource string) (q url.Values, verifier, state string) {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	verifier = hex.EncodeToString(b)
	sum := sha256.Sum256([]byte(verifier))
	state = verifier[:8]
	return url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {riCallback},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
		"state": {state}, "resource": {resource}}, verifier, state
}

// The sign-in front on the reference AS: README's --sign-in-details example
// passes serve's start-up check and the real AS (its authorize answers
// with the owner's consent, not a 400); with the RI's own connections in
// it, a host that signs in through the front gets a token the adapter
// serves, over both connections; and the front refuses a host's attempt
// to bring a selection of its own in bracket keys.
func TestRISignInFront(t *testing.T) {
	t.Parallel()
	ri := ritest.Shared(t)
	clientID := riRegister(t, ri)

	t.Run("README's example reaches the consent", func(t *testing.T) {
		front := riFront(t, ri, readmeSignInSelection(t))
		q, _, _ := hostAuthorize(clientID, front+"/mcp")
		status, loc, body := riGet(t, front+"/oauth/authorize?"+q.Encode())
		if status != http.StatusFound {
			t.Fatalf("front: %d %s", status, body)
		}
		status, loc, body = riGet(t, loc)
		if status/100 != 3 || !strings.Contains(loc, "request_uri=") {
			t.Fatalf("the RI's authorize answered %d %q %s; want a redirect to its consent", status, loc, body)
		}
		q.Set("authorization_details[0][source][id]", "https://registry.pdpp.dev/connectors/gmail")
		if status, _, _ := riGet(t, front+"/oauth/authorize?"+q.Encode()); status != http.StatusBadRequest {
			t.Errorf("a bracketed selection of the host's own: %d, want 400", status)
		}
	})

	t.Run("a host signs in through the front and reads both connections", func(t *testing.T) {
		var entries []map[string]any
		if err := json.Unmarshal([]byte(readmeSignInSelection(t)), &entries); err != nil || len(entries) != 1 {
			t.Fatalf("README's example: %v", err)
		}
		ids := []string{ri.Connections["work"], ri.Connections["personal"]}
		entries[0]["streams"] = []map[string]any{{"name": "messages", "instance_ids": ids}}
		details, _ := json.Marshal(entries)
		front := riFront(t, ri, string(details))
		q, verifier, state := hostAuthorize(clientID, front+"/mcp")
		_, loc, _ := riGet(t, front+"/oauth/authorize?"+q.Encode())
		status, loc, body := riGet(t, loc)
		consent, err := url.Parse(loc)
		if err != nil || status/100 != 3 || consent.Query().Get("request_uri") == "" {
			t.Fatalf("the RI's authorize answered %d %q %s", status, loc, body)
		}
		code := riApprove(t, ri, consent.Query().Get("request_uri"), state)
		tok := riExchange(t, ri, clientID, code, verifier)
		counts := map[string]int{}
		for key, conn := range ri.Connections {
			counts[key] = riCount(t, front, tok, conn)
		}
		want := map[string]int{"work": ri.Truth.PerConnection["work"].Counts["messages"],
			"personal": ri.Truth.PerConnection["personal"].Counts["messages"]}
		if diff := cmp.Diff(want, counts); diff != "" {
			t.Errorf("messages per connection through the front's token (-truth +got):\n%s", diff)
		}
	})
}

// riApprove reviews and approves the pending consent as the owner (the
// RI's loopback posture asks no login) and returns the code.
func riApprove(t *testing.T, ri *ritest.RI, requestURI, state string) string {
	t.Helper()
	status, _, body := riPostForm(t, ri.ASURL+"/consent/review", url.Values{"request_uri": {requestURI}}, "application/json")
	var review struct {
		Revision string `json:"approval_review_revision"`
		Review   struct {
			Revision string `json:"approval_review_revision"`
		} `json:"approval_review"`
	}
	if err := json.Unmarshal(body, &review); err != nil || status != http.StatusOK {
		t.Fatalf("consent review: %d %v", status, err)
	}
	rev := review.Revision
	if rev == "" {
		rev = review.Review.Revision
	}
	status, loc, _ := riPostForm(t, ri.ASURL+"/consent/approve", url.Values{"request_uri": {requestURI}, "approval_review_revision": {rev}}, "")
	cb, err := url.Parse(loc)
	if err != nil || status/100 != 3 || cb.Query().Get("state") != state || cb.Query().Get("code") == "" {
		t.Fatalf("consent approve: %d, want the callback with the state and a code", status)
	}
	return cb.Query().Get("code")
}

// riExchange redeems the code at the RI's token endpoint.
func riExchange(t *testing.T, ri *ritest.RI, clientID, code, verifier string) string {
	t.Helper()
	status, _, body := riPostForm(t, ri.ASURL+"/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"redirect_uri": {riCallback}, "client_id": {clientID}, "code_verifier": {verifier}}, "application/json")
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(body, &tok); err != nil || tok.AccessToken == "" {
		t.Fatalf("token exchange: %d %v", status, err)
	}
	return tok.AccessToken
}

// aggregateCount reads an aggregate count's value from its text.
var aggregateCount = regexp.MustCompile(`= (\d+) over`)

// riCount counts one connection's messages through the front's adapter.
func riCount(t *testing.T, front, bearer, conn string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	call := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"aggregate","arguments":{"stream":"messages","metric":"count","connection_id":%q}}}`, conn)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, front+"/mcp", strings.NewReader(call))
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	var rpc struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &rpc); err != nil || res.StatusCode != http.StatusOK || len(rpc.Result.Content) == 0 {
		t.Fatalf("aggregate on %s: %d %v", conn, res.StatusCode, err)
	}
	m := aggregateCount.FindStringSubmatch(rpc.Result.Content[0].Text)
	if m == nil {
		t.Fatalf("aggregate on %s: no count in %q", conn, rpc.Result.Content[0].Text)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
