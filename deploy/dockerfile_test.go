package deploy_test

import (
	"strings"
	"testing"

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
