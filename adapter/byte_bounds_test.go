package adapter_test

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// TestStringArgumentsBoundedInBytes: a q of 1,000 emoji
// is within the schema's 1,000-character bound but 4,000 bytes (a 12 KB
// percent-encoded RS URL); it is refused naming the byte bound before any
// RS call, while 1,000 ASCII characters and a short emoji q are searched.
func TestStringArgumentsBoundedInBytes(t *testing.T) {
	t.Parallel()
	var searches atomic.Int64
	count := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/v1/search") {
				searches.Add(1)
			}
			next.ServeHTTP(w, r)
		})
	}
	e := newEnv(t, testenv.Options{Raw: count}, demodata.GmailToken)
	for _, tc := range []struct {
		name, q string
		refused bool
	}{
		{"1,000 emoji", strings.Repeat("😀", 1000), true},
		{"251 emoji (1,004 bytes)", strings.Repeat("😀", 251), true},
		{"250 emoji (1,000 bytes)", strings.Repeat("😀", 250), false},
		{"1,000 ASCII", strings.Repeat("a", 1000), false},
	} {
		before := searches.Load()
		res := e.c.call("search", map[string]any{"q": tc.q})
		sent := searches.Load() > before
		if tc.refused {
			if !res.IsError || res.errorCode(t) != "invalid_arguments" || !strings.Contains(res.text(), "bytes") || sent {
				t.Errorf("%s: want invalid_arguments naming bytes before any RS call (sent=%t):\n%.300s", tc.name, sent, res.text())
			}
			continue
		}
		if res.IsError || !sent {
			t.Errorf("%s: want a search (sent=%t):\n%.300s", tc.name, sent, res.text())
		}
	}
}
