package rstest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/oauth2"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// realAS is the mock RS with its authorization server in the real AS's
// posture over the demo dataset (Gmail: two connections; Slack: one), and
// one registered client.
func realAS(t *testing.T) (*rstest.TestServer, *oauth2.Config) {
	t.Helper()
	ds, err := demodata.Build(demodata.Options{Records: 20})
	if err != nil {
		t.Fatal(err)
	}
	rs := rstest.NewServer(ds, rstest.WithRealAuthServer())
	t.Cleanup(rs.Close)
	reg, _ := json.Marshal(map[string]any{"client_name": "generic host", "redirect_uris": []string{"http://127.0.0.1:9/cb"}})
	res, err := http.Post(rs.URL+"/oauth/register", "application/json", bytes.NewReader(reg))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var cl struct {
		ClientID string `json:"client_id"`
	}
	if err := json.NewDecoder(res.Body).Decode(&cl); err != nil || res.StatusCode != http.StatusCreated {
		t.Fatalf("register: %d %v", res.StatusCode, err)
	}
	return rs, &oauth2.Config{ClientID: cl.ClientID, RedirectURL: "http://127.0.0.1:9/cb",
		Endpoint: oauth2.Endpoint{AuthURL: rs.URL + "/oauth/authorize", TokenURL: rs.URL + "/oauth/token", AuthStyle: oauth2.AuthStyleInParams}}
}

// signInOutcome is what one sign-in produced, comparably.
type signInOutcome struct {
	AuthorizeStatus int
	AuthorizeError  string // the raw JSON 400's description
	Iss             bool   // the redirect carried iss
	GrantID         string
	PackageToken    bool
	SchemaStatus    int
	SchemaMessage   string
}

// signIn runs authorize (with extra parameters), the code exchange and one
// /v1/schema read.
func signIn(t *testing.T, rs *rstest.TestServer, conf *oauth2.Config, extra url.Values) (signInOutcome, *oauth2.Token) {
	t.Helper()
	verifier := oauth2.GenerateVerifier()
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", "https://mcp.example/mcp")}
	for k, v := range extra {
		opts = append(opts, oauth2.SetAuthURLParam(k, v[0]))
	}
	res, err := noRedirect.Get(conf.AuthCodeURL("st", opts...))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	o := signInOutcome{AuthorizeStatus: res.StatusCode}
	if res.StatusCode != http.StatusFound {
		var e struct {
			Description string `json:"error_description"`
		}
		_ = json.Unmarshal(body, &e)
		o.AuthorizeError = e.Description
		return o, nil
	}
	loc, _ := url.Parse(res.Header.Get("Location"))
	o.Iss = loc.Query().Has("iss")
	tok, err := conf.Exchange(context.Background(), loc.Query().Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	o.GrantID, _ = tok.Extra("grant_id").(string)
	pkg, _ := tok.Extra("grant_package_id").(string)
	o.PackageToken = strings.HasPrefix(pkg, "gpk_")
	o.SchemaStatus, o.SchemaMessage = schemaRead(t, rs.URL, tok.AccessToken)
	return o, tok
}

// schemaRead GETs /v1/schema and returns the status and error message.
func schemaRead(t *testing.T, base, bearer string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/v1/schema", nil)
	req.Header.Set("Authorization", "Bearer "+bearer)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.NewDecoder(res.Body).Decode(&e)
	return res.StatusCode, e.Error.Message
}

// Issue 22 point 1: the mock AS in the real AS's posture (D15, D16).
func TestRealAuthServerPosture(t *testing.T) {
	t.Parallel()
	rs, conf := realAS(t)
	details := func(connector string, ids ...string) url.Values {
		d, _ := json.Marshal([]map[string]any{{"type": "https://pdpp.dev/data-access", "connector_id": connector,
			"streams": []map[string]any{{"name": "*", "instance_ids": ids}}}})
		return url.Values{"authorization_details": {string(d)}}
	}
	cases := []struct {
		name  string
		extra url.Values
		want  signInOutcome
	}{
		{"generic host: package token /v1 refuses", nil,
			signInOutcome{AuthorizeStatus: 302, PackageToken: true, SchemaStatus: 404, SchemaMessage: "Unknown source: unknown"}},
		{"connector_id, one connection", url.Values{"connector_id": {"slack"}},
			signInOutcome{AuthorizeStatus: 302, GrantID: demodata.SlackGrantID, SchemaStatus: 200}},
		{"connector_id, two connections: the real AS's 400", url.Values{"connector_id": {"gmail"}},
			signInOutcome{AuthorizeStatus: 400, AuthorizeError: "Omitted instance_ids requires exactly one eligible instance for stream 'messages', found 2"}},
		{"authorization_details over both connections", details("gmail", demodata.GmailWorkConnectionID, demodata.GmailPersonalConnectionID),
			signInOutcome{AuthorizeStatus: 302, GrantID: demodata.GmailGrantID, SchemaStatus: 200}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, _ := signIn(t, rs, conf, tc.extra)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// Refresh keeps the grant_id; reusing a refresh token revokes the grant:
// every access token of the sign-in, the newest too, then gets 403
// grant_revoked (D16).
func TestRealAuthServerRefreshReuseRevokesTheGrant(t *testing.T) {
	t.Parallel()
	rs, conf := realAS(t)
	_, tok := signIn(t, rs, conf, url.Values{"connector_id": {"slack"}})
	form := func(rt string) url.Values {
		return url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {conf.ClientID}}
	}
	refresh := func(rt string) (int, map[string]any) {
		res, err := http.PostForm(rs.URL+"/oauth/token", form(rt))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var body map[string]any
		_ = json.NewDecoder(res.Body).Decode(&body)
		return res.StatusCode, body
	}
	status, next := refresh(tok.RefreshToken)
	if status != 200 || next["grant_id"] != demodata.SlackGrantID {
		t.Fatalf("refresh: %d %v", status, next)
	}
	newest := next["access_token"].(string)
	if s, _ := schemaRead(t, rs.URL, newest); s != 200 {
		t.Fatalf("refreshed token: %d", s)
	}
	if status, _ := refresh(tok.RefreshToken); status != 400 {
		t.Errorf("reused refresh token: %d, want 400 invalid_grant", status)
	}
	type read struct {
		Status  int
		Message string
	}
	for name, bearer := range map[string]string{"first": tok.AccessToken, "newest": newest} {
		s, m := schemaRead(t, rs.URL, bearer)
		if diff := cmp.Diff(read{403, "Grant has been revoked"}, read{s, m}); diff != "" {
			t.Errorf("%s access token after reuse (-want +got):\n%s", name, diff)
		}
	}
}
