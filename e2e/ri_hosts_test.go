package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/pdpp/pdpp-mcp/internal/ritest"
)

// Hosts signing in on the reference authorization server: the official
// TypeScript SDK's OAuth client, header-free, through `serve
// --sign-in-details` over the reference RS (and through a `serve` without
// the front). The reference AS asks the owner to consent, so the client's
// browser step goes to an approver that plays the owner.

// riOwner is the owner at the reference AS's consent: handed a client's
// authorization URL, it follows the redirects (the adapter's sign-in front
// adds one) to the consent, reviews and approves it as ritest.Approve
// does, and answers the redirect_uri URL the AS sent the browser back to,
// with the origin of every hop. A POST's body is the authorization URL.
func riOwner(t *testing.T) string {
	t.Helper()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(io.LimitReader(r.Body, 16<<10))
		loc, hops, err := riConsent(string(raw))
		w.Header().Set("Content-Type", "application/json")
		if err != nil {
			t.Logf("the owner could not approve: %v", err)
			w.WriteHeader(http.StatusBadGateway)
			_ = json.NewEncoder(w).Encode(map[string]any{"error": err.Error()})
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"location": loc, "hops": hops})
	}))
	t.Cleanup(hs.Close)
	return hs.URL
}

// riConsent is riOwner's work: the approved redirect_uri URL and the
// origins the browser was sent to on the way.
func riConsent(authorize string) (string, []string, error) {
	loc, err := url.Parse(authorize)
	if err != nil {
		return "", nil, err
	}
	var hops []string
	for range 4 {
		if loc.Query().Get("request_uri") != "" {
			break
		}
		res, err := noRedirects.Get(loc.String())
		if err != nil {
			return "", hops, err
		}
		body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
		res.Body.Close()
		next := res.Header.Get("Location")
		if res.StatusCode == http.StatusOK && strings.Contains(string(body), riPickerForm) {
			// A sign-in without authorization_details: the owner picks
			// the sources on the AS's own page.
			if next, err = riPick(loc, string(body)); err != nil {
				return "", hops, err
			}
		} else if res.StatusCode/100 != 3 || next == "" {
			body = body[:min(len(body), 2048)]
			return "", hops, fmt.Errorf("%s%s answered %d: %s", loc.Host, loc.Path, res.StatusCode, body)
		}
		if loc, err = loc.Parse(next); err != nil {
			return "", hops, err
		}
		hops = append(hops, loc.Scheme+"://"+loc.Host)
		if q := loc.Query(); q.Get("code") != "" || q.Get("error") != "" {
			return loc.String(), hops, nil
		}
	}
	requestURI := loc.Query().Get("request_uri")
	if requestURI == "" {
		return "", hops, fmt.Errorf("never reached the consent: %s%s", loc.Host, loc.Path)
	}
	as := loc.Scheme + "://" + loc.Host
	review, err := riForm(as+"/consent/review", url.Values{"request_uri": {requestURI}}, "application/json")
	if err != nil {
		return "", hops, err
	}
	var rv struct {
		Revision string `json:"approval_review_revision"`
		Review   struct {
			Revision string `json:"approval_review_revision"`
		} `json:"approval_review"`
	}
	if err := json.NewDecoder(io.LimitReader(review.Body, 1<<20)).Decode(&rv); err != nil || review.StatusCode != http.StatusOK {
		review.Body.Close()
		return "", hops, fmt.Errorf("consent review: %d %v", review.StatusCode, err)
	}
	review.Body.Close()
	rev := rv.Revision
	if rev == "" {
		rev = rv.Review.Revision
	}
	approve, err := riForm(as+"/consent/approve", url.Values{"request_uri": {requestURI}, "approval_review_revision": {rev}}, "")
	if err != nil {
		return "", hops, err
	}
	approve.Body.Close()
	back, err := loc.Parse(approve.Header.Get("Location"))
	if err != nil || approve.StatusCode/100 != 3 {
		return "", hops, fmt.Errorf("consent approve: %d %v", approve.StatusCode, err)
	}
	return back.String(), append(hops, back.Scheme+"://"+back.Host), nil
}

// riPickerForm marks the reference AS's source picker, which its
// authorize shows a client that asks for no authorization_details
// (reference-implementation/server/routes/as-authorize.ts).
const riPickerForm = "data-hosted-mcp-picker-form"

// riInput is one <input> tag's attributes.
var riInput = regexp.MustCompile(`<input\b[^>]*>`)

// riAttr is one attribute of a tag.
var riAttr = regexp.MustCompile(`\b(type|name|value|checked)(?:="([^"]*)")?`)

// riPick submits the picker as an owner who picks every source offered:
// the form's hidden fields, every checkbox (each source and each of its
// streams), and every other control as the page checked it. It answers the redirect's Location.
func riPick(page *url.URL, body string) (string, error) {
	_, form, _ := strings.Cut(body, riPickerForm)
	form, _, _ = strings.Cut(form, "</form>")
	values := url.Values{}
	for _, tag := range riInput.FindAllString(form, -1) {
		attrs := map[string]string{}
		for _, m := range riAttr.FindAllStringSubmatch(tag, -1) {
			attrs[m[1]] = html.UnescapeString(m[2])
		}
		_, checked := attrs["checked"]
		if attrs["name"] != "" && (attrs["type"] == "hidden" || attrs["type"] == "checkbox" || checked) {
			values.Add(attrs["name"], attrs["value"])
		}
	}
	if len(values["selection"]) == 0 {
		return "", fmt.Errorf("the picker offers no source: %.2000s", form)
	}
	res, err := riForm(page.Scheme+"://"+page.Host+"/oauth/authorize/mcp-package", values, "")
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(res.Body, 2048))
	if res.StatusCode/100 != 3 || res.Header.Get("Location") == "" {
		return "", fmt.Errorf("the picker's submission answered %d: %s", res.StatusCode, answer)
	}
	return res.Header.Get("Location"), nil
}

// riForm POSTs form to u without following redirects.
func riForm(u string, form url.Values, accept string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	return noRedirects.Do(req)
}

// riOAuthSummary is node/oauth.mjs's summary with what the ri scenario
// adds.
type riOAuthSummary struct {
	oauthSummary
	// Hits are the hit ids of each search page, the first under the token
	// the client signed in with, the rest under the refreshed one.
	Hits [][]string `json:"hits"`
	// Records are the record ids of two pages of the Work connection's
	// messages, the first under the token signed in with, the second
	// under the refreshed one.
	Records    [][]string `json:"records"`
	OtherGrant struct {
		IsError bool   `json:"is_error"`
		Text    string `json:"text"`
	} `json:"other_grant"`
}

// runRIOAuthScenario runs node/oauth.mjs's scenario against mcpURL with
// the reference RS's connections and the owner approving.
func runRIOAuthScenario(t *testing.T, modules, mcpURL, scenario string, ri *ritest.RI, extra ...string) riOAuthSummary {
	t.Helper()
	env := append([]string{"MCP_URL=" + mcpURL, "SCENARIO=" + scenario, "APPROVER_URL=" + riOwner(t),
		"TOKEN_TTL_MS=600000", "SHARED_RECORD_ID=unused", "SHARED_SUBJECT=no such subject",
		"WORK_CONNECTION_ID=" + ri.Connections["work"], "PERSONAL_CONNECTION_ID=" + ri.Connections["personal"]}, extra...)
	stdout, stderr, err := runNode(t, systemNode(t, modules), env, "oauth.mjs")
	if err != nil {
		t.Fatalf("oauth.mjs %s: %v\nstderr:\n%s\nstdout:\n%s", scenario, err, stderr, stdout)
	}
	var s riOAuthSummary
	if err := json.Unmarshal(stdout, &s); err != nil {
		t.Fatalf("oauth.mjs summary: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	t.Logf("TypeScript SDK %s on Node %s, %s: %s", s.SDKVersion, s.NodeVersion, scenario, stdout)
	return s
}

// TestRITypeScriptSDKSignIn: the TypeScript SDK's OAuth client signs in
// header-free at `serve --sign-in-details` over the reference RS, the
// owner consenting at the reference AS. It reads both connections; pages
// a search and the Work connection's records, refreshes its token
// (explicitly: the reference AS's tokens live 600 s, and it has no
// revocation endpoint to end one access token early) and both continue
// under the refreshed token; a token
// of another grant presenting the same cursor is refused with the reason;
// the spent refresh token presented again makes the AS revoke the grant,
// after which the adapter answers the client's token 401 with the
// challenge and the client is sent to sign in again. Without the front,
// the same client ends in the adapter's explained 401, without a loop.
func TestRITypeScriptSDKSignIn(t *testing.T) {
	t.Parallel()
	ri := ritest.Shared(t)
	modules := requireNodeModules(t)
	t.Run("front", func(t *testing.T) {
		t.Parallel()
		other := riMint(t, ri, ritest.MintOptions{Connections: []string{ri.Connections["work"]}, ClientName: "another grant"})
		// Whether this RI refuses a search cursor under the refreshed token
		// of the same grant (then the search below continued only because
		// the adapter re-issued it): asked of the RS directly, logged.
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		before := riMint(t, ri, ritest.MintOptions{ClientName: "cursor probe"})
		after, err := ri.Refresh(ctx, before)
		if err != nil {
			t.Fatalf("refresh: %v", err)
		}
		t.Logf("the RI refuses a search cursor of the token before a refresh under the refreshed one: %s", riCursorRefusal(t, ri.RSURL, before.AccessToken, after.AccessToken))
		front, log := serveLogged(t, ri.RSURL, "--sign-in-details", riDetails(t, ri))
		s := runRIOAuthScenario(t, modules, front, "ri", ri, "OTHER_TOKEN="+other.AccessToken)
		ignore := cmpopts.IgnoreFields(oauthStep{}, "Error", "HasRecord")
		want := map[string]oauthStep{
			"signed_in":             {OK: true, RegisteredClient: true, HasRefreshToken: true},
			"read_both":             {OK: true, HasWork: true, HasPersonal: true},
			"refresh":               {OK: true, TokenChanged: true},
			"search_after_refresh":  {OK: true},
			"records_after_refresh": {OK: true},
			"reuse":                 {Status: http.StatusBadRequest},
			"read_after_reuse":      {AskedToSignInAgain: true},
		}
		if diff := cmp.Diff(want, s.Steps, ignore); diff != "" {
			t.Errorf("sign-in on the reference AS (-want +got):\n%s", diff)
		}
		if e := s.Steps["reuse"].Error; e != "invalid_grant" {
			t.Errorf("the reused refresh token got error %q, want invalid_grant", e)
		}
		w := s.Wire
		// The browser went to the front's authorize, which sent it to the
		// reference AS's authorize, which sent it to the consent; the
		// owner's approval sent it back to the client.
		asPort := riPort(ri.ASURL)
		if len(w.AuthorizeHops) != 3 || riPort(w.AuthorizeHops[0]) != asPort || w.AuthorizeHops[2] != "http://127.0.0.1:9" || s.Redirects != 2 {
			t.Errorf("authorize hops %q after %d authorize redirects; want the front's one hop to the reference AS (port %s), its consent, the client's redirect_uri (and a second redirect, after the reuse)", w.AuthorizeHops, s.Redirects, asPort)
		}
		// Two 401s: the first connect's, and the revoked grant's. One
		// registration, one code exchange, one refresh that worked (the
		// explicit one) and one refused (the SDK's, on the revoked grant).
		if w.MCP401 != 2 || w.Register != 1 || w.CodeExchange != 1 || w.RefreshOK != 1 || w.RefreshFailed != 1 {
			t.Errorf("wire: %+v; want 2 /mcp 401s, 1 registration, 1 code exchange, 1 refresh and 1 refused refresh", w)
		}
		if n := len(w.Challenges); n == 0 || w.Challenges[n-1].Error != "invalid_token" {
			t.Errorf("challenges %+v; want the revoked grant's token answered error=\"invalid_token\"", w.Challenges)
		}
		if n := countStatus(w.MCPStatuses, http.StatusServiceUnavailable); n > 0 {
			t.Errorf("%d answers 503 on /mcp: %v", n, w.MCPStatuses)
		}
		// Every kayak-itinerary message once, across the refresh: the first
		// page under the token signed in with, the rest under the
		// refreshed one.
		var got []string
		for _, page := range s.Hits {
			for _, id := range page {
				_, key, _ := strings.Cut(id, ":")
				got = append(got, key)
			}
		}
		slices.Sort(got)
		if diff := cmp.Diff(ri.Truth.KayakItinerary, got); diff != "" || len(s.Hits) < 2 {
			t.Errorf("search hits over %d pages across the refresh (-truth +got):\n%s", len(s.Hits), diff)
		}
		// The records cursor too: the page after the first, no record twice.
		work := map[string]bool{}
		for _, id := range connTruth(ri, "work", "messages") {
			work[id] = true
		}
		seen := map[string]bool{}
		for _, page := range s.Records {
			for _, id := range page {
				if seen[id] || !work[id] {
					t.Errorf("record %s across the refresh: seen before %t, a Work message %t", id, seen[id], work[id])
				}
				seen[id] = true
			}
		}
		if len(s.Records) != 2 || len(seen) != 10 {
			t.Errorf("records pages across the refresh: %q; want two pages of 5 different Work messages", s.Records)
		}
		// The other grant's token is refused the cursor, and told why.
		if og := s.OtherGrant; !og.IsError || !strings.Contains(og.Text, `"invalid_cursor"`) || !strings.Contains(og.Text, "another set of grants") {
			t.Errorf("the cursor under another grant's token: error %t, %q; want invalid_cursor naming the other grant", og.IsError, og.Text)
		}
		got2 := log.String()
		if !strings.Contains(got2, `"error_code":"grant_revoked"`) {
			t.Error("the RS never answered grant_revoked after the refresh token's reuse")
		}
		if strings.Contains(got2, other.AccessToken) {
			t.Error("a bearer appears in the adapter's log")
		}
	})
	t.Run("no_front", func(t *testing.T) {
		t.Parallel()
		bare, log := serveLogged(t, ri.RSURL)
		s := runRIOAuthScenario(t, modules, bare, "package", ri)
		st := s.Steps["sign_in"]
		w := s.Wire
		statuses, posts := mcpStatuses(log.String(), ""), mcpStatuses(log.String(), http.MethodPost)
		t.Logf("without the front: step %+v; /mcp answered POSTs %v, all %v", st, posts, statuses)
		if st.OK || !st.TokenIssued || st.HasWork || st.HasPersonal {
			t.Errorf("sign-in without the front: %+v; want a token issued (the owner picked both sources) and then refused, no data", st)
		}
		if !strings.Contains(log.String(), `"package":true`) {
			t.Error("the adapter never saw the grant-package token: the client did not present it")
		}
		if len(w.Challenges) == 0 {
			t.Fatal("no challenge reached the client")
		}
		last := w.Challenges[len(w.Challenges)-1]
		if last.Error != "invalid_token" {
			t.Errorf("the package token's challenge error is %q, want invalid_token", last.Error)
		}
		for _, part := range []string{"grant-package token", "--sign-in-details", "pdpp-mcp connect"} {
			if !strings.Contains(last.ErrorDescription, part) {
				t.Errorf("the last challenge says %q; want it to name %q", last.ErrorDescription, part)
			}
		}
		if countStatus(statuses, http.StatusServiceUnavailable) > 0 || w.MCPOK > 0 {
			t.Errorf("/mcp answers: client saw %v, adapter logged %v; want 401s only, never 503 or data", w.MCPStatuses, statuses)
		}
		// The SDK's sign-in, its token, its one refresh: each meets a 401,
		// then it gives up. A loop sends many.
		if len(posts) > 4 {
			t.Errorf("the client sent %d POSTs to /mcp: it loops on the refusal", len(posts))
		}
	})
}

// riPort is a URL's port.
func riPort(u string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return u
	}
	return parsed.Port()
}

// riBrowser is the owner's browser on a host's sign-in URL at the
// reference AS: riConsent approves, then the browser lands on the host's
// loopback callback (never through a proxy).
func riBrowser(authorize string) (string, error) {
	back, _, err := riConsent(authorize)
	if err != nil {
		return "", err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	res, err := (&http.Client{Transport: tr, Timeout: 30 * time.Second}).Get(back)
	if err != nil {
		return "", err
	}
	_ = res.Body.Close()
	return res.Status, nil
}

// riHostSignIn registers the adapter at mcpURL in the host and signs in
// with the owner approving at the reference AS.
func riHostSignIn(t *testing.T, host string, h *hostRun, mcpURL string) {
	t.Helper()
	if host == "claude" {
		if out, err := runHost(t, h.dir, h.env, "claude mcp add --transport http "+hostedServerKey+" "+mcpURL); err != nil {
			t.Fatalf("claude mcp add: %v\n%s", err, out)
		}
		claudeSignInWith(t, h.dir, h.env, riBrowser)
		return
	}
	codexSignInWith(t, h.env, "codex mcp add "+hostedServerKey+" --url "+mcpURL, riBrowser)
}

// TestRIHostsSignIn: Claude Code and Codex sign in header-free at `serve
// --sign-in-details` over the reference RS, the owner consenting at the
// reference AS, and one model turn reads records of both connections;
// then the host's stored refresh token is refreshed and presented again
// (a reuse: the AS revokes the grant), and the turn's second read meets
// the RS's grant_revoked as the adapter's 401 challenge: the host's own
// refresh fails, it tells the model to sign in again, with no data and
// no loop. (Without the front these hosts meet the reference AS's own
// metadata, which offers client ID metadata documents: they sign in with
// a URL client_id the AS must fetch from the host's vendor, which a
// loopback-only test cannot serve; the TypeScript SDK's client registers
// instead, and TestRITypeScriptSDKSignIn covers that case.) It takes
// ~3 s per host: a real host's sign-in and one turn, in subprocesses.
func TestRIHostsSignIn(t *testing.T) {
	t.Parallel()
	ri := ritest.Shared(t)
	for _, host := range realAuthHosts() {
		t.Run(host.name, func(t *testing.T) {
			t.Parallel()
			front, log := serveLogged(t, ri.RSURL, "--sign-in-details", riDetails(t, ri))
			// Between the two reads the host's refresh token is spent and
			// presented again: the AS revokes the grant.
			var reuse struct {
				statuses [2]int
				oauthErr string
				err      error
			}
			var h *hostRun
			revoke := func() {
				refresh, clientID, err := riHostRefresh(host.name, h)
				if err == nil {
					reuse.statuses, reuse.oauthErr, err = riReuseRefresh(ri, refresh, clientID)
				}
				reuse.err = err
			}
			h = newHostRun(t, host.name, []scriptStep{readBothStep(nil), readBothStep(revoke)})
			riHostSignIn(t, host.name, h, front)
			signedIn := len(log.String())
			out, err := host.turn(t, h)
			caps, _, requests, _ := h.model.recorded()
			t.Logf("%s turn (%v); model endpoint requests %q:\n%.3000s", host.name, err, requests, out)
			if len(caps) == 0 {
				t.Fatalf("no tool result reached the model:\n%s", out)
			}
			for _, key := range []string{"work", "personal"} {
				if caps[0].isError || !strings.Contains(caps[0].model, ri.Connections[key]) {
					t.Errorf("the model got no record of the %s connection %s (error %t):\n%.800s", key, ri.Connections[key], caps[0].isError, caps[0].model)
				}
			}
			if reuse.err != nil || reuse.statuses != [2]int{http.StatusOK, http.StatusBadRequest} || reuse.oauthErr != "invalid_grant" {
				t.Errorf("the host's refresh token presented twice: %v, %q (%v); want 200 then 400 invalid_grant", reuse.statuses, reuse.oauthErr, reuse.err)
			}
			// What each host hands the model when its token is refused and
			// its refresh token is dead: a request to sign in again.
			signInAgain := map[string]string{"claude": "sign in again", "codex": "Authentication required"}[host.name]
			if len(caps) != 2 || !strings.Contains(caps[1].model, signInAgain) {
				t.Errorf("%d tool results reached the model; want 2, the second saying %q", len(caps), signInAgain)
			}
			if len(caps) > 1 {
				t.Logf("%s: after the revocation the model got (error %t): %.400s", host.name, caps[1].isError, caps[1].model)
				for _, key := range []string{"work", "personal"} {
					if strings.Contains(caps[1].model, ri.Connections[key]) {
						t.Errorf("after the grant's revocation the model got records of the %s connection:\n%.800s", key, caps[1].model)
					}
				}
			}
			after := log.String()[signedIn:]
			all, posts := mcpStatuses(after, ""), mcpStatuses(after, http.MethodPost)
			t.Logf("%s: %d tool results reached the model; /mcp answered POSTs %v, all %v", host.name, len(caps), posts, all)
			if n := countStatus(all, http.StatusServiceUnavailable); n > 0 {
				t.Errorf("%d answers 503 on /mcp: %v", n, all)
			}
			if !strings.Contains(after, `"error_code":"grant_revoked"`) || countStatus(posts, http.StatusUnauthorized) == 0 {
				t.Error("the RS never answered grant_revoked, or the adapter never challenged the revoked grant's token")
			}
			if len(all) > 30 {
				t.Errorf("the host sent %d /mcp requests after the sign-in: it loops on the refusal", len(all))
			}
			if got := strings.Count(log.String(), `"path":"/oauth/authorize"`); got != 1 {
				t.Errorf("the front's authorize was asked %d times; want the one sign-in", got)
			}
		})
	}
}

// riHostRefresh is the refresh token and client id a host stored when it
// signed in (Claude Code in ~/.claude/.credentials.json, Codex in
// $CODEX_HOME/.credentials.json), for the one server it knows.
func riHostRefresh(host string, h *hostRun) (refresh, clientID string, err error) {
	path := filepath.Join(envValue(h.env, "CODEX_HOME"), ".credentials.json")
	if host == "claude" {
		path = filepath.Join(envValue(h.env, "HOME"), ".claude", ".credentials.json")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", "", err
	}
	var file map[string]json.RawMessage
	if err := json.Unmarshal(raw, &file); err != nil {
		return "", "", err
	}
	if host == "claude" {
		if err := json.Unmarshal(file["mcpOAuth"], &file); err != nil {
			return "", "", err
		}
	}
	for _, entry := range file {
		var e struct {
			Refresh      string `json:"refreshToken"`
			ClientID     string `json:"clientId"`
			RefreshSnake string `json:"refresh_token"`
			ClientSnake  string `json:"client_id"`
		}
		if json.Unmarshal(entry, &e) == nil && e.Refresh+e.RefreshSnake != "" {
			return e.Refresh + e.RefreshSnake, e.ClientID + e.ClientSnake, nil
		}
	}
	return "", "", fmt.Errorf("no refresh token in %s", path)
}

// riReuseRefresh presents the host's refresh token at the reference AS
// twice: the first refresh rotates it as a refresh does, the second is a
// reuse of a spent refresh token. It answers both statuses and the
// second's OAuth error.
func riReuseRefresh(ri *ritest.RI, refresh, clientID string) ([2]int, string, error) {
	var statuses [2]int
	var oauthErr string
	for i := range statuses {
		res, err := riForm(ri.ASURL+"/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {clientID}}, "application/json")
		if err != nil {
			return statuses, "", err
		}
		var body struct {
			Error string `json:"error"`
		}
		_ = json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&body)
		res.Body.Close()
		statuses[i], oauthErr = res.StatusCode, body.Error
	}
	return statuses, oauthErr, nil
}
