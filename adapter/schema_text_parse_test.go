package adapter_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// A client that reads only the stream-scoped schema text can build valid
// sort, fields, aggregate and connection arguments, and the text's claim
// about filters is truthful. Every call built here runs against the
// mock RS.
func TestSchemaTextYieldsValidArguments(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, threeGrants...)
	for _, tc := range []struct{ stream, connectionID string }{
		{"messages", demodata.GmailWorkConnectionID},
		{"messages", demodata.SlackConnectionID},
		{"conversations", ""},
	} {
		t.Run(tc.stream+"/"+tc.connectionID, func(t *testing.T) {
			args := map[string]any{"stream": tc.stream}
			if tc.connectionID != "" {
				args["connection_id"] = tc.connectionID
			}
			text := e.c.call("schema", args).text()
			conn := firstGroup(t, text, `connection_id: (cin_[0-9a-f]+)`)
			sort := firstGroup(t, text, `sort: sort:"(-?\w+)"`)
			fieldsLine := firstGroup(t, text, `fields\(\d+\): ([^\n]+)`)
			var fields []string
			for _, f := range strings.Split(fieldsLine, "; ") {
				name, flags, _ := strings.Cut(f, "[")
				if !strings.Contains(flags, "g=false") && len(fields) < 3 {
					fields = append(fields, name)
				}
			}
			base := map[string]any{"stream": tc.stream, "connection_id": conn}
			q := withArgs(base, map[string]any{"sort": sort, "fields": fields, "limit": 3})
			if r := e.c.call("query_records", q); r.IsError {
				t.Errorf("query_records built from text failed: %v → %s", q, r.text())
			}
			aggLine := firstGroup(t, text, `aggregate: ([^\n]+)`)
			calls := []map[string]any{withArgs(base, map[string]any{"metric": "count"})}
			for _, kind := range []string{"group_by", "group_by_time", "sum", "min", "max", "count_distinct"} {
				m := regexp.MustCompile(`\b` + kind + `=([\w|]+)`).FindStringSubmatch(aggLine)
				if m == nil {
					continue
				}
				f := strings.Split(m[1], "|")[0]
				switch kind {
				case "group_by":
					calls = append(calls, withArgs(base, map[string]any{"metric": "count", "group_by": f}))
				case "group_by_time":
					calls = append(calls, withArgs(base, map[string]any{"metric": "count", "group_by_time": f, "granularity": "month"}))
				default:
					calls = append(calls, withArgs(base, map[string]any{"metric": kind, "field": f}))
				}
			}
			if len(calls) < 2 {
				t.Errorf("aggregate line offers nothing to build: %s", aggLine)
			}
			for _, a := range calls {
				if r := e.c.call("aggregate", a); r.IsError {
					t.Errorf("aggregate built from text failed: %v → %s", a, r.text())
				}
			}
			// The text says client grants advertise no filters; the RS agrees.
			if !strings.Contains(text, "filters: unavailable to this token") {
				t.Fatalf("filter line missing:\n%s", text)
			}
			r := e.c.call("query_records", withArgs(base, map[string]any{"filter": map[string]any{fields[0]: "x"}}))
			if !r.IsError {
				t.Error("a filter the text says is unavailable was accepted")
			}
		})
	}
}

func firstGroup(t *testing.T, text, re string) string {
	t.Helper()
	m := regexp.MustCompile(re).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("text lacks %s:\n%s", re, text)
	}
	return m[1]
}

func withArgs(base, extra map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}
