package hosted

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/pdpp/pdpp-mcp/adapter"
)

// The header-free sign-in front. A generic host knows
// only the MCP URL: it follows the 401 to the protected-resource metadata,
// which then names this adapter as its authorization server. The adapter's
// RFC 8414 metadata sends registration, token and revocation to the RS's
// own authorization server and keeps one step, authorize, which only
// redirects the browser to the RS's AS with the operator's source
// selection and the host's OAuth parameters, re-encoded
// (signin_authorize.go). No code or token ever reaches the adapter: the AS
// redirects to the host, and the host talks to the AS's token endpoint
// directly.
//
// It relies on behaviours of the reference AS (CONTRIBUTING, "Sign-in
// front"): no iss in the authorization response, redirect_uri checked only
// against the client's own registration, resource ignored, queries parsed
// by qs, the selection rules of signin_details.go.

// Sign-in front paths on the adapter's origin.
const (
	asMetadataPath = "/.well-known/oauth-authorization-server"
	authorizePath  = "/oauth/authorize"
	// discoveryTimeout bounds start-up discovery of the RS's AS.
	discoveryTimeout = 10 * time.Second
)

// SignIn is a checked sign-in front: the operator's selection and the
// RS's authorization server as discovered at start-up.
type SignIn struct {
	selection SignInSelection
	as        oauthex.AuthServerMeta
}

// Selection is the configured selection.
func (s *SignIn) Selection() SignInSelection { return s.selection }

// AuthorizationServer is the RS's AS issuer the front redirects to.
func (s *SignIn) AuthorizationServer() string { return s.as.Issuer }

// DiscoverSignIn checks sel and discovers the RS's authorization server
// (the first one the RS's protected-resource metadata names, its RFC 8414
// metadata fetched with the MCP Go SDK's oauthex, which checks the issuer,
// PKCE support and the endpoints' URL schemes). It fails when the AS
// cannot serve the front: no authorization or token endpoint, no S256
// PKCE, no code flow, or RFC 9207 iss in its authorization responses
// (hosts would then reject every sign-in; see CONTRIBUTING). client nil
// means a plain client with a timeout.
func DiscoverSignIn(ctx context.Context, a *adapter.Server, sel SignInSelection, client *http.Client) (*SignIn, error) {
	if err := sel.Validate(); err != nil {
		return nil, err
	}
	if client == nil {
		client = &http.Client{Timeout: discoveryTimeout}
	}
	ctx, cancel := context.WithTimeout(ctx, discoveryTimeout)
	defer cancel()
	prm, err := a.ProtectedResourceMetadata(ctx)
	if err != nil {
		return nil, fmt.Errorf("sign-in: read the RS's protected-resource metadata: %v", err)
	}
	if len(prm.AuthorizationServers) == 0 {
		return nil, errors.New("sign-in: the RS's protected-resource metadata names no authorization server")
	}
	issuer := strings.TrimRight(prm.AuthorizationServers[0], "/")
	mdURL, err := asMetadataURL(issuer)
	if err != nil {
		return nil, fmt.Errorf("sign-in: authorization server %q: %v", issuer, err)
	}
	asm, err := oauthex.GetAuthServerMeta(ctx, mdURL, issuer, client)
	if err != nil {
		return nil, fmt.Errorf("sign-in: authorization server metadata at %s: %v", mdURL, err)
	}
	if asm == nil {
		return nil, fmt.Errorf("sign-in: no authorization server metadata at %s", mdURL)
	}
	if err := checkFrontable(asm); err != nil {
		return nil, fmt.Errorf("sign-in: authorization server %s: %v", issuer, err)
	}
	return &SignIn{selection: sel, as: *asm}, nil
}

// asMetadataURL is RFC 8414 §3.1's metadata URL of an issuer: the
// well-known segment goes between the host and any path.
func asMetadataURL(issuer string) (string, error) {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", errors.New("not an issuer URL")
	}
	path := strings.TrimRight(u.Path, "/")
	u.Path = asMetadataPath + path
	return u.String(), nil
}

// checkFrontable reports why an AS cannot sit behind the front.
func checkFrontable(asm *oauthex.AuthServerMeta) error {
	switch {
	case asm.AuthorizationEndpoint == "" || asm.TokenEndpoint == "":
		return errors.New("its metadata lacks an authorization or token endpoint")
	case !slices.Contains(asm.CodeChallengeMethodsSupported, "S256"):
		return errors.New("it does not support PKCE S256")
	case len(asm.ResponseTypesSupported) > 0 && !slices.Contains(asm.ResponseTypesSupported, "code"):
		return errors.New("it does not support the authorization code flow")
	case asm.AuthorizationResponseIssParameterSupported:
		return errors.New("it sends iss in authorization responses (RFC 9207): a host would compare it with this adapter's issuer and reject every sign-in, so the sign-in front cannot be used with it")
	}
	if u, err := url.Parse(asm.AuthorizationEndpoint); err != nil || u.Fragment != "" || !u.IsAbs() {
		return errors.New("its authorization endpoint is not an absolute URL")
	}
	return nil
}

// serveASMetadata is the adapter's RFC 8414 document: its own issuer (the
// public origin) and authorize endpoint, everything else the RS's AS.
func (h *hosted) serveASMetadata(w http.ResponseWriter, r *http.Request) {
	as := h.opts.SignIn.as
	o := h.origin(r)
	doc := map[string]any{
		"issuer":                           o,
		"authorization_endpoint":           o + authorizePath,
		"token_endpoint":                   as.TokenEndpoint,
		"response_types_supported":         []string{"code"},
		"code_challenge_methods_supported": []string{"S256"},
		// The RS's AS sends no iss; a host must not expect one.
		"authorization_response_iss_parameter_supported": false,
	}
	optional := map[string]string{"registration_endpoint": as.RegistrationEndpoint, "revocation_endpoint": as.RevocationEndpoint}
	for k, v := range optional {
		if v != "" {
			doc[k] = v
		}
	}
	lists := map[string][]string{"grant_types_supported": as.GrantTypesSupported, "scopes_supported": as.ScopesSupported,
		"token_endpoint_auth_methods_supported":      as.TokenEndpointAuthMethodsSupported,
		"revocation_endpoint_auth_methods_supported": as.RevocationEndpointAuthMethodsSupported,
		"response_modes_supported":                   as.ResponseModesSupported}
	for k, v := range lists {
		if len(v) > 0 {
			doc[k] = v
		}
	}
	w.Header().Set("Access-Control-Allow-Origin", "*")
	writeJSON(w, http.StatusOK, doc)
}
