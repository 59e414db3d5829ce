package page

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// b64 returns n bytes of pseudo-random data as std base64.
func b64(n int) string {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(i*31 + i/7)
	}
	return base64.StdEncoding.EncodeToString(p)
}

func TestClassify(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 300)
	tests := []struct {
		name, value string
		want        FieldInfo
	}{
		{"text", `"héllo"`, FieldInfo{Type: "string", Class: ClassText, SizeChars: 5}},
		{"long text", `"` + long + `"`, FieldInfo{Type: "string", Class: ClassText, SizeChars: 1500}},
		{"base64", `"` + b64(300) + `"`, FieldInfo{Type: "string", Class: ClassBinary, SizeChars: 400, SizeBytes: 300}},
		{"data url", `"data:image/png;base64,` + b64(300) + `"`, FieldInfo{Type: "string", Class: ClassBinary, SizeChars: 422, SizeBytes: 300, MIMEType: "image/png"}},
		{"blob ref", `{"blob_id":"blob_1","mime_type":"application/pdf","size_bytes":245120,"sha256":"abc","fetch_url":"/v1/blobs/blob_1"}`,
			FieldInfo{Type: "object", Class: ClassBinary, SizeChars: 116, MIMEType: "application/pdf", SizeBytes: 245120, Digest: "sha256:abc", BlobID: "blob_1"}},
		{"blob ref string size", `{"blobId":"b","sizeBytes":"12","digest":"sha256:x"}`,
			FieldInfo{Type: "object", Class: ClassBinary, SizeChars: 51, SizeBytes: 12, Digest: "sha256:x", BlobID: "b"}},
		{"object with id is json (TS quirk fixed)", `{"id":"u1","url":"https://x","name":"n"}`, FieldInfo{Type: "object", Class: ClassJSON, SizeChars: 40}},
		{"blob_id alone is json", `{"blob_id":"b"}`, FieldInfo{Type: "object", Class: ClassJSON, SizeChars: 15}},
		{"array", `[1, 2, 3]`, FieldInfo{Type: "array", Class: ClassJSON, SizeChars: 7}},
		{"number", `42.5`, FieldInfo{Type: "number", Class: ClassScalar, SizeChars: 4}},
		{"bool", `true`, FieldInfo{Type: "boolean", Class: ClassScalar, SizeChars: 4}},
		{"null", `null`, FieldInfo{Type: "null", Class: ClassNull}},
		{"invalid", `{"a":`, FieldInfo{Type: "invalid", Class: ClassNull}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.want.Path = "f"
			if diff := cmp.Diff(tt.want, Classify("f", json.RawMessage(tt.value))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestIsLargeBase64(t *testing.T) {
	t.Parallel()
	url := base64.RawURLEncoding.EncodeToString([]byte(b64(300)))
	tests := []struct {
		name, s string
		want    bool
	}{
		{"std", b64(300), true},
		{"std padded", b64(301), true},
		{"url unpadded", url, true},
		{"mime wrapped", b64(150) + "\r\n" + b64(150), true},
		{"data url", "data:application/octet-stream;base64," + b64(200), true},
		{"data url not base64", "data:text/plain," + strings.Repeat("a", 300), false},
		{"short", b64(30), false},
		{"prose", strings.Repeat("hello world ", 30), false},
		{"one letter", strings.Repeat("A", 400), false},
		{"three letters", strings.Repeat("ABC", 100), false},
		{"std bad length", b64(300) + "A", false},
		{"std unpadded", b64(300)[:397] + "x", false},
		{"alnum lone sextet", strings.Repeat("abcd", 80) + "e", false},
		{"mixed alphabets", strings.Repeat("ab+-", 80), false},
		{"padding inside", b64(100) + "==" + b64(200), false},
		{"non-ascii", strings.Repeat("aé", 200), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := IsLargeBase64(tt.s); got != tt.want {
				t.Errorf("IsLargeBase64(%.40q…) = %v, want %v", tt.s, got, tt.want)
			}
		})
	}
}

func TestIsBlobRef(t *testing.T) {
	t.Parallel()
	tests := []struct {
		obj  string
		want bool
	}{
		{`{"blob_id":"b","mime_type":"image/png"}`, true},
		{`{"blob_id":"b","fetch_url":"/v1/blobs/b"}`, true},
		{`{"blob_id":"","mime_type":"image/png"}`, false},
		{`{"blob_id":3,"mime_type":"image/png"}`, false},
		{`{"id":"b","url":"https://x","mime_type":"image/png"}`, false},
		{`{"mime_type":"image/png","size_bytes":3}`, false},
	}
	for _, tt := range tests {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(tt.obj), &obj); err != nil {
			t.Fatal(err)
		}
		if got := IsBlobRef(obj); got != tt.want {
			t.Errorf("IsBlobRef(%s) = %v, want %v", tt.obj, got, tt.want)
		}
	}
}
