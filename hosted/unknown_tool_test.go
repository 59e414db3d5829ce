package hosted_test

import (
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// Through the door, a typo'd tool name is answered with the typed
// unknown_tool error and its "did you mean".
func TestHostedUnknownToolDidYouMean(t *testing.T) {
	t.Parallel()
	env := startHosted(t, hosted.Options{PublicURL: publicURL}, adapter.Config{})
	res := post(t, env.url, "Bearer "+demodata.GmailToken,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"serach","arguments":{"q":"x"}}}`, nil)
	body := string(res.Body)
	if res.Status != 200 || !strings.Contains(body, `"code":-32602`) || !strings.Contains(body, `"unknown_tool"`) ||
		!strings.Contains(body, "did you mean search") {
		t.Errorf("%d %s", res.Status, res.Body)
	}
}
