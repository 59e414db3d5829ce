package main

import (
	"fmt"
	"strings"

	"github.com/pdpp/pdpp-mcp/internal/credcache"
)

// providerURLFromFlag checks --provider-url (PDPP_PROVIDER_URL) and returns
// it in canonical form. A value without a scheme is refused rather than
// read as https: `rs.local:7662` then reached https://rs.local:7662, and
// every call failed as "the token could not be verified right now", which
// looks exactly like an RS that is down. `pdpp connect` keeps
// its own default; the adapter asks for the scheme.
func providerURLFromFlag(raw string) (string, error) {
	v := strings.TrimSpace(raw)
	if v == "" {
		return "", fmt.Errorf("missing --provider-url (or PDPP_PROVIDER_URL)")
	}
	if scheme, _, ok := strings.Cut(v, "://"); !ok || strings.ContainsAny(scheme, "/?#") {
		return "", fmt.Errorf("--provider-url %q has no scheme: write https://%s (or http://%s for an RS on plain HTTP, such as a local one)", v, v, v)
	}
	return credcache.NormalizeProviderURL(v)
}
