package deploy_test

import (
	"os"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/deploy"
)

// FuzzParseDockerfile: any input parses or fails cleanly, never panics,
// and a parsed file always has a base image.
func FuzzParseDockerfile(f *testing.F) {
	for _, path := range []string{"Dockerfile", "testdata/insecure/Dockerfile"} {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("FROM a\\\n:b\nUSER 1\nENV A=1 B=\"2\"\nENTRYPOINT [\"x\"]\n")
	f.Add("ARG X\nFROM $X AS y\nENTRYPOINT x")
	f.Add("FROM a\nLABEL l=\"x \\\"y\\\"\" m=n \\\n  o=\"\"\nLABEL \"unterminated=1\n")
	f.Fuzz(func(t *testing.T, src string) {
		df, err := deploy.ParseDockerfile(strings.NewReader(src))
		if err == nil && len(df.Bases) == 0 {
			t.Errorf("parsed without a base image: %q", src)
		}
	})
}

// FuzzDecode: strict decoding of arbitrary YAML never panics.
func FuzzDecode(f *testing.F) {
	for _, path := range []string{"kubernetes/deployment.yaml", "kubernetes/config.yaml", "testdata/broken/duplicate-field.yaml"} {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("---\n# only a comment\n---\napiVersion: v1\nkind: ConfigMap\n")
	f.Fuzz(func(t *testing.T, src string) {
		objs, err := deploy.Decode("fuzz.yaml", strings.NewReader(src))
		for _, o := range objs {
			if err == nil && o.Obj == nil {
				t.Errorf("nil object without an error")
			}
		}
	})
}
