package deploy_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/deploy"
)

// An ARG whose name starts another's ($GO, $GO_VERSION) expands the longer
// name where it is written, whatever order the map of ARGs iterates in.
func TestParseDockerfileExpandsLongestArgName(t *testing.T) {
	t.Parallel()
	src := "ARG GO=9\nARG GO_VERSION=1.26\nFROM golang:$GO_VERSION AS build\nFROM scratch\nUSER 65532:65532\nENTRYPOINT [\"/pdpp-mcp\"]\n"
	for range 20 { // map order varies from call to call
		df, err := deploy.ParseDockerfile(strings.NewReader(src))
		if err != nil {
			t.Fatal(err)
		}
		if len(df.Bases) == 0 || df.Bases[0] != "golang:1.26" {
			t.Fatalf("bases %q, want golang:1.26 first", df.Bases)
		}
	}
}

// LABEL and ENV values may be quoted to hold blanks (the image's
// description label does); only the final stage's labels count.
func TestParseDockerfileLabels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src string
		want      map[string]string
		wantErr   bool
	}{
		{"quoted with spaces", "FROM a\nLABEL x.title=\"pdpp mcp\" \\\n  x.licenses=\"Apache-2.0\"\n",
			map[string]string{"x.title": "pdpp mcp", "x.licenses": "Apache-2.0"}, false},
		{"escaped quote", "FROM a\nLABEL d=\"say \\\"hi\\\"\"\n", map[string]string{"d": `say "hi"`}, false},
		{"bare value", "FROM a\nLABEL l=MIT\n", map[string]string{"l": "MIT"}, false},
		{"an earlier stage's labels do not reach the image", "FROM a AS b\nLABEL l=MIT\nFROM c\n", map[string]string{}, false},
		{"not a pair", "FROM a\nLABEL licenses\n", map[string]string{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			df, err := deploy.ParseDockerfile(strings.NewReader(tt.src))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err %v, want error %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, df.Labels); diff != "" {
				t.Errorf("labels (-want +got):\n%s", diff)
			}
		})
	}
}
