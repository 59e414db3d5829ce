package hosted

import (
	"mime"
	"strings"
	"testing"
)

// acceptsJSONParsed is acceptsJSON without its fast path: every media
// range parsed. The fuzz test holds the two to the same answers.
func acceptsJSONParsed(values []string) bool {
	if len(values) == 0 {
		return true
	}
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			if q, ok := params["q"]; ok && (q == "0" || q == "0.0" || q == "0.00" || q == "0.000") {
				continue
			}
			if mt == "application/json" || mt == "application/*" || mt == "*/*" {
				return true
			}
		}
	}
	return false
}

// FuzzMediaTypeFastPaths: the unparsed fast paths of isJSONContentType and
// acceptsJSON answer exactly what parsing every value would.
func FuzzMediaTypeFastPaths(f *testing.F) {
	for _, s := range []string{"application/json", "APPLICATION/JSON", "application/json; charset=utf-8", "application/json, text/event-stream",
		"text/event-stream", "application/json;q=0, text/event-stream", "*/*", "application/*", " application/json ", "application/json;;",
		"application/jsonx", "*/*;q=0", "text/*", "application/json\t", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		mt, _, err := mime.ParseMediaType(v)
		if got, want := isJSONContentType(v), err == nil && mt == "application/json"; got != want {
			t.Errorf("isJSONContentType(%q) = %t, parsing says %t", v, got, want)
		}
		if got, want := acceptsJSON([]string{v}), acceptsJSONParsed([]string{v}); got != want {
			t.Errorf("acceptsJSON(%q) = %t, parsing every range says %t", v, got, want)
		}
	})
}
