package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/pdpp/pdpp-mcp/internal/credcache"
)

// maxDiscoveryBody bounds each metadata and registration answer.
const maxDiscoveryBody = 1 << 20

// protectedResource is the part of the RS's RFC 9728 metadata connect reads.
type protectedResource struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
}

// authServer is the part of the AS's RFC 8414 metadata connect reads.
type authServer struct {
	Issuer                        string   `json:"issuer"`
	AuthorizationEndpoint         string   `json:"authorization_endpoint"`
	TokenEndpoint                 string   `json:"token_endpoint"`
	RegistrationEndpoint          string   `json:"registration_endpoint"`
	CodeChallengeMethodsSupported []string `json:"code_challenge_methods_supported"`
}

// wellKnownURL is RFC 8414 §3.1 / RFC 9728 §3.1's metadata URL of base:
// the well-known segment between the host and any path.
func wellKnownURL(base, name string) (string, error) {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("%q is not an http(s) URL", base)
	}
	u.Path = "/.well-known/" + name + strings.TrimRight(u.Path, "/")
	u.RawPath, u.RawQuery, u.Fragment = "", "", ""
	return u.String(), nil
}

// fetchJSON fetches a JSON document, bounded, and decodes it into v.
func fetchJSON(ctx context.Context, client *http.Client, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxDiscoveryBody+1))
	switch {
	case err != nil:
		return err
	case len(body) > maxDiscoveryBody:
		return fmt.Errorf("GET %s: answer larger than %d bytes", u, maxDiscoveryBody)
	case res.StatusCode != http.StatusOK:
		return fmt.Errorf("GET %s: HTTP %d", u, res.StatusCode)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("GET %s: not a JSON metadata document: %v", u, err)
	}
	return nil
}

// discoverAuthServer follows the RS's protected-resource metadata to its
// first authorization server and reads that server's metadata. The
// metadata's resource must be the RS (RFC 9728 §3.3) and its issuer the
// server's URL (RFC 8414 §3.3), except that loopback host names are one
// host: the reference RS names its AS http://localhost:17662 while the AS
// calls itself http://127.0.0.1:17662. The AS must offer the code flow
// with PKCE S256 and dynamic client registration, each endpoint https or
// on a loopback host.
func discoverAuthServer(ctx context.Context, client *http.Client, providerURL string) (*authServer, error) {
	// Plain http only on this machine: on a network, whoever rewrites the
	// metadata in flight chooses where the code, its verifier and the
	// tokens go (PKCE does not help against a rewritten token endpoint).
	if !secureEndpoint(providerURL) {
		return nil, fmt.Errorf("the resource server %q is neither https nor on a loopback host; connect signs in only over https", providerURL)
	}
	prmURL, err := wellKnownURL(providerURL, "oauth-protected-resource")
	if err != nil {
		return nil, err
	}
	var prm protectedResource
	if err := fetchJSON(ctx, client, prmURL, &prm); err != nil {
		return nil, fmt.Errorf("protected-resource metadata: %v", err)
	}
	if prm.Resource != "" {
		if got, err := credcache.NormalizeProviderURL(prm.Resource); err != nil || got != providerURL {
			return nil, fmt.Errorf("protected-resource metadata at %s names another resource (%q), not %s", prmURL, prm.Resource, providerURL)
		}
	}
	if len(prm.AuthorizationServers) == 0 {
		return nil, fmt.Errorf("protected-resource metadata at %s names no authorization server", prmURL)
	}
	issuer := strings.TrimRight(prm.AuthorizationServers[0], "/")
	if !secureEndpoint(issuer) {
		return nil, fmt.Errorf("the authorization server %q is neither https nor on a loopback host; connect signs in only over https", issuer)
	}
	mdURL, err := wellKnownURL(issuer, "oauth-authorization-server")
	if err != nil {
		return nil, fmt.Errorf("authorization server %q: %v", issuer, err)
	}
	var as authServer
	if err := fetchJSON(ctx, client, mdURL, &as); err != nil {
		return nil, fmt.Errorf("authorization server metadata: %v", err)
	}
	if !sameIssuer(as.Issuer, issuer) {
		return nil, fmt.Errorf("authorization server metadata at %s names issuer %q, not %q", mdURL, as.Issuer, issuer)
	}
	return &as, as.check(strings.HasPrefix(issuer, "http://") && isLoopbackURL(issuer))
}

// noRedirects makes an http.Client answer with a redirect instead of
// following it.
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// isLoopbackURL reports whether u's host is localhost or a loopback
// address.
func isLoopbackURL(u string) bool {
	p, err := url.Parse(u)
	return err == nil && loopbackHost(p.Hostname())
}

// check reports why the AS cannot serve connect. Its endpoints are https;
// plain http on a loopback host only for a plain-http AS on this machine
// (localHTTP): an https AS naming an http://localhost endpoint would hand
// the code and verifier to whatever listens on that port here.
func (as *authServer) check(localHTTP bool) error {
	switch {
	case as.AuthorizationEndpoint == "" || as.TokenEndpoint == "":
		return errors.New("the authorization server's metadata lacks an authorization or token endpoint")
	case !slices.Contains(as.CodeChallengeMethodsSupported, "S256"):
		return errors.New("the authorization server does not offer PKCE S256 (code_challenge_methods_supported)")
	case as.RegistrationEndpoint == "":
		return errors.New("the authorization server offers no dynamic client registration (registration_endpoint); connect registers itself as a client")
	}
	for name, u := range map[string]string{"authorization_endpoint": as.AuthorizationEndpoint,
		"token_endpoint": as.TokenEndpoint, "registration_endpoint": as.RegistrationEndpoint} {
		if !secureEndpoint(u) || (!localHTTP && !strings.HasPrefix(u, "https://")) {
			return fmt.Errorf("the authorization server's %s %q is neither https nor, for an authorization server on this machine, on a loopback host", name, u)
		}
	}
	return nil
}

// secureEndpoint reports whether u is an absolute https URL, or http on a
// loopback host.
func secureEndpoint(u string) bool {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" || p.Fragment != "" {
		return false
	}
	return p.Scheme == "https" || (p.Scheme == "http" && loopbackHost(p.Hostname()))
}

// loopbackHost reports whether host is localhost or a loopback address.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// sameIssuer compares issuer URLs, treating loopback host names as one.
func sameIssuer(a, b string) bool {
	a, b = strings.TrimRight(a, "/"), strings.TrimRight(b, "/")
	if a == b {
		return true
	}
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	return errA == nil && errB == nil && ua.Scheme == ub.Scheme && ua.Port() == ub.Port() && ua.Path == ub.Path &&
		loopbackHost(ua.Hostname()) && loopbackHost(ub.Hostname())
}

// registeredClient is the part of an RFC 7591 answer connect keeps.
type registeredClient struct {
	ClientID   string `json:"client_id"`
	ClientName string `json:"client_name"`
}

// connectClientName is the client name connect registers.
const connectClientName = "pdpp-mcp"

// registerClient registers a public client for redirectURI with the
// authorization_code and refresh_token grants (the reference AS issues a
// refresh token only to a client registered with that grant type).
func registerClient(ctx context.Context, client *http.Client, endpoint, redirectURI string) (*registeredClient, error) {
	body, _ := json.Marshal(map[string]any{"client_name": connectClientName, "redirect_uris": []string{redirectURI},
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"},
		"token_endpoint_auth_method": "none"})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	res, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("client registration: %v", err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxDiscoveryBody))
	if err != nil {
		return nil, fmt.Errorf("client registration: %v", err)
	}
	if res.StatusCode != http.StatusCreated && res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("client registration at %s: HTTP %d: %s", endpoint, res.StatusCode, clip(raw))
	}
	var rc registeredClient
	if err := json.Unmarshal(raw, &rc); err != nil || rc.ClientID == "" {
		return nil, fmt.Errorf("client registration at %s: the answer has no client_id", endpoint)
	}
	if rc.ClientName == "" {
		rc.ClientName = connectClientName
	}
	return &rc, nil
}

// clip is an error body for a message: at most 300 bytes, one line.
func clip(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
