package rstest_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// With AuthStateFile, a restarted authorization server still knows the
// registered client, the issued access token and the refresh token, and
// still remembers a revoked sign-in; the file is 0600.
func TestAuthStatePersistsAcrossRestarts(t *testing.T) {
	t.Parallel()
	ds, err := demodata.Build(demodata.Options{Records: 20})
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "as.json")
	start := func() *rstest.TestServer {
		rs := rstest.NewServer(ds, rstest.WithOptions(rstest.Options{AuthRealPosture: true, AuthStateFile: state}))
		t.Cleanup(rs.Close)
		return rs
	}
	first := start()
	conf := registerClient(t, first.URL)
	_, tok := signIn(t, first, conf, url.Values{"connector_id": {"slack"}})
	first.Close()
	if fi, err := os.Stat(state); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("state file: %v %v", fi, err)
	}

	second := start()
	if s, _ := schemaRead(t, second.URL, tok.AccessToken); s != http.StatusOK {
		t.Errorf("saved access token after a restart: %d", s)
	}
	conf2 := *conf
	conf2.Endpoint = oauth2.Endpoint{AuthURL: second.URL + "/oauth/authorize", TokenURL: second.URL + "/oauth/token", AuthStyle: oauth2.AuthStyleInParams}
	if got, _ := signIn(t, second, &conf2, url.Values{"connector_id": {"slack"}}); got.GrantID != demodata.SlackGrantID {
		t.Errorf("saved client after a restart: %+v", got)
	}
	tok.Expiry = time.Now().Add(-time.Minute) // make the token source refresh
	fresh, err := conf2.TokenSource(t.Context(), tok).Token()
	if err != nil || fresh.Extra("grant_id") != demodata.SlackGrantID {
		t.Fatalf("saved refresh token after a restart: %v %v", err, fresh)
	}
	// Reusing the first refresh token revokes the sign-in, and a third
	// start still knows it.
	if _, err := conf2.TokenSource(t.Context(), tok).Token(); err == nil {
		t.Fatal("a reused refresh token was accepted")
	}
	second.Close()
	third := start()
	if s, m := schemaRead(t, third.URL, fresh.AccessToken); s != http.StatusForbidden {
		t.Errorf("revoked sign-in's token after a restart: %d %s", s, m)
	}
}

// registerClient registers a public client at the AS on rsURL.
func registerClient(t *testing.T, rsURL string) *oauth2.Config {
	t.Helper()
	reg, _ := json.Marshal(map[string]any{"client_name": "saved host", "redirect_uris": []string{"http://127.0.0.1:9/cb"}})
	res, err := http.Post(rsURL+"/oauth/register", "application/json", bytes.NewReader(reg))
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
	return &oauth2.Config{ClientID: cl.ClientID, RedirectURL: "http://127.0.0.1:9/cb",
		Endpoint: oauth2.Endpoint{AuthURL: rsURL + "/oauth/authorize", TokenURL: rsURL + "/oauth/token", AuthStyle: oauth2.AuthStyleInParams}}
}
