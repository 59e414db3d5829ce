package hosted

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// buildConnectCSP hashes the page's inline <style> and <script> blocks as
// they appear in the embedded template (html/template emits static text
// verbatim), so the policy permits exactly those blocks and a change to
// either cannot ship with a stale policy.
func buildConnectCSP(page string) string {
	return "default-src 'none'; " +
		"script-src " + inlineHash(page, "<script>", "</script>") + "; " +
		"style-src " + inlineHash(page, "<style>", "</style>") + "; " +
		"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}

// inlineHash is the CSP source expression for the first open…close block;
// 'none' when the block is absent.
func inlineHash(page, open, close string) string {
	_, rest, ok := strings.Cut(page, open)
	if !ok {
		return "'none'"
	}
	body, _, ok := strings.Cut(rest, close)
	if !ok {
		return "'none'"
	}
	sum := sha256.Sum256([]byte(body))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}
