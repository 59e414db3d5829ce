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
	AuthorizeCode   string // the raw JSON 400's error
	AuthorizeError  string // and its description
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
	return signInRaw(t, rs, conf, extra, "")
}

// signInRaw is signIn with raw, already encoded parameters appended to the
// authorize query as they are (bracket keys, repeated keys).
func signInRaw(t *testing.T, rs *rstest.TestServer, conf *oauth2.Config, extra url.Values, raw string) (signInOutcome, *oauth2.Token) {
	t.Helper()
	verifier := oauth2.GenerateVerifier()
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", "https://mcp.example/mcp")}
	for k, v := range extra {
		opts = append(opts, oauth2.SetAuthURLParam(k, v[0]))
	}
	authURL := conf.AuthCodeURL("st", opts...)
	if raw != "" {
		authURL += "&" + raw
	}
	res, err := noRedirect.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	o := signInOutcome{AuthorizeStatus: res.StatusCode}
	if res.StatusCode != http.StatusFound {
		var e struct {
			Code        string `json:"error"`
			Description string `json:"error_description"`
		}
		_ = json.Unmarshal(body, &e)
		o.AuthorizeCode, o.AuthorizeError = e.Code, e.Description
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

// gmailSource and purpose are the source URI and purpose code the real AS
// accepts for the demo's Gmail connector.
const (
	gmailSource = "https://registry.pdpp.dev/connectors/gmail"
	purpose     = "https://pdpp.dev/purpose/personal_ai_assistant"
)

// detailsParam is an authorization_details parameter over entries.
func detailsParam(entries ...map[string]any) url.Values {
	d, _ := json.Marshal(entries)
	return url.Values{"authorization_details": {string(d)}}
}

// gmailEntry is one entry in the real AS's shape over the Gmail
// connections ids (none: no instance_ids), with members changed or removed (nil) by edit.
func gmailEntry(edit map[string]any, ids ...string) map[string]any {
	e := map[string]any{"type": "https://pdpp.dev/data-access", "source": map[string]any{"kind": "connector", "id": gmailSource},
		"access_mode": "continuous", "purpose_code": purpose, "streams": []map[string]any{{"name": "*"}}}
	if len(ids) > 0 {
		e["streams"] = []map[string]any{{"name": "*", "instance_ids": ids}}
	}
	for k, v := range edit {
		if v == nil {
			delete(e, k)
		} else {
			e[k] = v
		}
	}
	return e
}

// The mock AS in the real AS's posture: the
// selection rules and refusals of the reference AS. Each refusal's text
// is what the reference AS answered to the same authorize request (GET
// /oauth/authorize on the RI, 2026-11-27).
func TestRealAuthServerPosture(t *testing.T) {
	t.Parallel()
	rs, conf := realAS(t)
	both := []string{demodata.GmailWorkConnectionID, demodata.GmailPersonalConnectionID}
	refused := func(code, msg string) signInOutcome {
		return signInOutcome{AuthorizeStatus: 400, AuthorizeCode: code, AuthorizeError: msg}
	}
	cases := []struct {
		name  string
		extra url.Values
		raw   string
		want  signInOutcome
	}{
		{"generic host: package token /v1 refuses", nil, "",
			signInOutcome{AuthorizeStatus: 302, PackageToken: true, SchemaStatus: 404, SchemaMessage: "Unknown source: unknown"}},
		{"connector_id, one connection", url.Values{"connector_id": {"slack"}}, "",
			signInOutcome{AuthorizeStatus: 302, GrantID: demodata.SlackGrantID, SchemaStatus: 200}},
		{"connector_id as a source URI", url.Values{"connector_id": {"https://registry.pdpp.dev/connectors/slack"}}, "",
			signInOutcome{AuthorizeStatus: 302, GrantID: demodata.SlackGrantID, SchemaStatus: 200}},
		{"connector_id, two connections: the real AS's 400", url.Values{"connector_id": {"gmail"}}, "",
			refused("invalid_request", "Omitted instance_ids requires exactly one eligible instance for stream 'messages', found 2")},
		{"connector_id[] is an array: no selection, the picker's package", nil, "connector_id%5B%5D=slack",
			signInOutcome{AuthorizeStatus: 302, PackageToken: true, SchemaStatus: 404, SchemaMessage: "Unknown source: unknown"}},
		{"authorization_details over both connections", detailsParam(gmailEntry(nil, both...)), "",
			signInOutcome{AuthorizeStatus: 302, GrantID: demodata.GmailGrantID, SchemaStatus: 200}},
		{"authorization_details wins over connector_id", func() url.Values {
			v := detailsParam(gmailEntry(nil, both...))
			v.Set("connector_id", "slack")
			return v
		}(), "", signInOutcome{AuthorizeStatus: 302, GrantID: demodata.GmailGrantID, SchemaStatus: 200}},
		{"bracket keys build the selection", nil, "authorization_details%5B0%5D%5Btype%5D=https%3A%2F%2Fpdpp.dev%2Fdata-access" +
			"&authorization_details[0][source][id]=https%3A%2F%2Fregistry.pdpp.dev%2Fconnectors%2Fslack" +
			"&authorization_details[0][access_mode]=continuous&authorization_details[0][purpose_code]=https%3A%2F%2Fp.example%2Fx" +
			"&authorization_details[0][streams][0][name]=*",
			signInOutcome{AuthorizeStatus: 302, GrantID: demodata.SlackGrantID, SchemaStatus: 200}},
		{"two entries: a staged batch, whose approval is a grant package",
			detailsParam(gmailEntry(nil, both[0]), gmailEntry(nil, both[1])), "",
			signInOutcome{AuthorizeStatus: 302, PackageToken: true, SchemaStatus: 404, SchemaMessage: "Unknown source: unknown"}},
		{"a short source id", detailsParam(gmailEntry(map[string]any{"source": map[string]any{"kind": "connector", "id": "gmail"}}, both...)), "",
			refused("invalid_authorization_details", `Selection request is invalid: /source/id must match format "uri"`)},
		{"the wrong type, no purpose, no access mode",
			detailsParam(gmailEntry(map[string]any{"type": "https://pdpp.org/data-access", "purpose_code": nil, "access_mode": nil}, both...)), "",
			refused("invalid_authorization_details", "Selection request is invalid: / must have required property 'purpose_code'; / must have required property 'access_mode'; /type must be equal to constant")},
		{"an unknown source", detailsParam(gmailEntry(map[string]any{"source": map[string]any{"kind": "connector", "id": "https://registry.pdpp.dev/connectors/nope"}})), "",
			refused("invalid_request", "Unknown source: { id: 'https://registry.pdpp.dev/connectors/nope' }")},
		{"a purpose that is no URI", detailsParam(gmailEntry(map[string]any{"purpose_code": "x"}, both...)), "",
			refused("invalid_authorization_details", `Selection request is invalid: /purpose_code must match format "uri"`)},
		{"an extra member and an unknown access mode", detailsParam(gmailEntry(map[string]any{"access_mode": "forever", "connector_id": "gmail"}, both...)), "",
			refused("invalid_authorization_details", "Selection request is invalid: / must NOT have additional properties; /access_mode must be equal to one of the allowed values")},
		{"a stream the connector does not declare", detailsParam(gmailEntry(map[string]any{"streams": []map[string]any{
			{"name": "messages", "instance_ids": both[:1]}, {"name": "nope"}}})), "",
			refused("invalid_authorization_details", "Unknown stream: nope")},
		{"\"*\" beside another stream", detailsParam(gmailEntry(map[string]any{"streams": []map[string]any{{"name": "*"}, {"name": "messages"}}})), "",
			refused("invalid_authorization_details", "Selection request semantics are invalid: source.selection.wildcard_must_be_only_stream")},
		{"a source member the AS does not know", detailsParam(gmailEntry(map[string]any{"source": map[string]any{"id": gmailSource, "x": 1}})), "",
			refused("invalid_authorization_details", "Selection request is invalid: /source must NOT have additional properties")},
		{"an instance listed twice", detailsParam(gmailEntry(map[string]any{"streams": []map[string]any{{"name": "*", "instance_ids": []string{both[0], both[0]}}}})), "",
			refused("invalid_authorization_details", "Selection request is invalid: /streams/0/instance_ids must NOT have duplicate items (items ## 1 and 0 are identical)")},
		{"a stream selected twice", detailsParam(gmailEntry(map[string]any{"streams": []map[string]any{{"name": "messages", "instance_ids": both}, {"name": "messages", "instance_ids": both}}})), "",
			refused("invalid_authorization_details", "Selection request is invalid: /streams must NOT have duplicate items (items ## 0 and 1 are identical)")},
		{"fields and view", detailsParam(gmailEntry(map[string]any{"streams": []map[string]any{{"name": "messages", "instance_ids": both, "fields": []string{"subject"}, "view": "v"}}})), "",
			refused("invalid_authorization_details", "Selection request is invalid: /streams/0 must NOT be valid")},
		{"an unknown source kind", detailsParam(gmailEntry(map[string]any{"source": map[string]any{"id": gmailSource, "kind": "app"}})), "",
			refused("invalid_authorization_details", "Selection request is invalid: /source/kind must be equal to one of the allowed values")},
		{"an empty stream name", detailsParam(gmailEntry(map[string]any{"streams": []map[string]any{{"name": "", "instance_ids": both}}})), "",
			refused("invalid_authorization_details", "Selection request is invalid: /streams/0/name must NOT have fewer than 1 characters")},
		{"empty instance_ids", detailsParam(gmailEntry(map[string]any{"streams": []map[string]any{{"name": "*", "instance_ids": []string{}}}})), "",
			refused("invalid_authorization_details", "Selection request is invalid: /streams/0/instance_ids must NOT have fewer than 1 items")},
		{"neither streams nor a preset", detailsParam(gmailEntry(map[string]any{"streams": nil})), "",
			refused("invalid_authorization_details", "Selection request is invalid: / must have required property 'streams'; / must have required property 'selection_preset'; / must match exactly one schema in oneOf")},
		{"no entry", url.Values{"authorization_details": {"[]"}}, "",
			refused("invalid_request", "authorization_details must contain at least one entry")},
		{"not an array", url.Values{"authorization_details": {`{"a":1}`}}, "",
			refused("invalid_request", "authorization_details must decode to an array")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, _ := signInRaw(t, rs, conf, tc.extra, tc.raw)
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
