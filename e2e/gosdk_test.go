package e2e

import (
	"testing"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// protocolName names a protocol version in subtest names.
func protocolName(v string) string {
	if v == defaultProtocol {
		return "sdk-default"
	}
	return v
}

// TestGoSDKHosted drives `pdpp-mcp serve` with the official Go SDK client
// over Streamable HTTP, once per protocol version, with the Gmail bearer
// (one grant, two connections).
func TestGoSDKHosted(t *testing.T) {
	t.Parallel()
	url := startServe(t)
	bearer := mockRS.bearer(t, demodata.GmailGrantID)
	for _, v := range protocolVersions {
		t.Run(protocolName(v), func(t *testing.T) {
			s := connectHTTP(t, url, bearer, v)
			checkProtocol(t, s, v)
			runGoJourneys(t, s)
		})
	}
}

// TestGoSDKStdio drives the stdio server with the official Go SDK client
// over its CommandTransport, once per protocol version, with a credential
// cache holding three grants (Gmail, Slack, ChatGPT): the package case.
func TestGoSDKStdio(t *testing.T) {
	t.Parallel()
	bearers := []string{
		mockRS.bearer(t, demodata.GmailGrantID),
		mockRS.bearer(t, demodata.SlackGrantID),
		mockRS.bearer(t, demodata.ChatGPTGrantID),
	}
	for _, v := range protocolVersions {
		t.Run(protocolName(v), func(t *testing.T) {
			s := connectStdio(t, v, bearers...)
			checkProtocol(t, s, v)
			runGoJourneys(t, s)
		})
	}
}

// checkProtocol: an explicitly requested version must be the negotiated
// one; the SDK default must negotiate some version (logged for the record).
func checkProtocol(t *testing.T, s *goSession, want string) {
	t.Helper()
	got := s.protocol()
	t.Logf("negotiated protocol %s", got)
	if want != defaultProtocol && got != want {
		t.Errorf("negotiated protocol %q, requested %q", got, want)
	}
	if got == "" {
		t.Error("no protocol version negotiated")
	}
}
