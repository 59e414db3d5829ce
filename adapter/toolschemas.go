package adapter

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
)

// Tool schemas are data: one readable JSON file per tool and direction in
// toolschemas/, reviewed as JSON rather than as concatenated Go strings.
// They are compacted once at start-up; json.Compact keeps key order and
// escapes as written, so tools/list is byte-identical to the files' content
// (pinned by testdata/tools_list.golden.json). Shared shapes (filter,
// connection_id, page limits) repeat across files; a test keeps the copies
// identical.
//
//go:embed toolschemas/*.json
var toolSchemaFiles embed.FS

// toolSchemas maps a file name (<tool>.input.json) to its compact schema.
var toolSchemas = mustCompactSchemas(toolSchemaFiles)

// mustCompactSchemas reads and compacts every schema file. A file that is
// not JSON is a build mistake caught by any test of the package.
func mustCompactSchemas(fsys fs.FS) map[string]string {
	names, err := fs.Glob(fsys, "toolschemas/*.json")
	if err != nil {
		panic(err)
	}
	out := make(map[string]string, len(names))
	for _, path := range names {
		raw, err := fs.ReadFile(fsys, path)
		if err != nil {
			panic(err)
		}
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err != nil {
			panic(fmt.Sprintf("adapter: %s is not JSON: %v", path, err))
		}
		out[path[len("toolschemas/"):]] = b.String()
	}
	return out
}
