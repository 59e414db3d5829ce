package page

import (
	"encoding/json"
	"strings"
	"testing"
)

// A long string group key is cut as text: the text channel shows it quoted
// once and structuredContent names the bucket without a stray quote or a
// split escape.
func TestLongBucketKeyCutAsText(t *testing.T) {
	t.Parallel()
	for _, long := range []string{strings.Repeat("a", 300), strings.Repeat("é\\\"x", 100)} {
		raw, _ := json.Marshal(long)
		key := bucketKey(raw)
		var got string
		if err := json.Unmarshal(key, &got); err != nil {
			t.Fatalf("bucketKey(%.20s…) = %s: not a JSON string: %v", raw, key, err)
		}
		if name := bucketName(key); name != got || strings.HasPrefix(name, `"`) || !strings.HasPrefix(long, strings.TrimSuffix(name, "…")) {
			t.Errorf("bucket name %q: want a prefix of the key's text, cut with …", name)
		}
	}
	if short := json.RawMessage(`"inbox"`); string(bucketKey(short)) != `"inbox"` {
		t.Errorf("a short key changed: %s", bucketKey(short))
	}
}
