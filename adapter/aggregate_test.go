package adapter_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

func TestAggregateTextCarriesAnswer(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken)
	for _, tc := range []struct {
		name string
		args map[string]any
		want []*regexp.Regexp
	}{
		{"scalar count", map[string]any{"stream": "messages", "metric": "count"},
			[]*regexp.Regexp{regexp.MustCompile(`^aggregate count\(messages\) = \d+ over \d+ records$`)}},
		{"sum", map[string]any{"stream": "messages", "metric": "sum", "field": "size_bytes"},
			[]*regexp.Regexp{regexp.MustCompile(`sum\(messages\.size_bytes\) = \d+`)}},
		{"grouped", map[string]any{"stream": "messages", "metric": "count", "group_by": "has_attachments", "connection_id": demodata.GmailWorkConnectionID},
			[]*regexp.Regexp{regexp.MustCompile(`by has_attachments: 2 buckets`), regexp.MustCompile(`(?m)^(true|false) = \d+$`), regexp.MustCompile(`other_count=0`)}},
		{"time buckets", map[string]any{"stream": "messages", "metric": "count", "group_by_time": "received_at", "granularity": "month", "time_zone": "America/Chicago", "limit": 3, "connection_id": demodata.GmailWorkConnectionID},
			[]*regexp.Regexp{regexp.MustCompile(`by month\(received_at\) time_zone=America/Chicago: 3 buckets`), regexp.MustCompile(`(?m)^"\d{4}-\d{2}-01" = \d+$`), regexp.MustCompile(`(?m)^other_count=[1-9]\d*\nother_count records are in buckets beyond limit`)}},
		{"merged time buckets", map[string]any{"stream": "messages", "metric": "count", "group_by_time": "received_at", "granularity": "month", "limit": 3},
			[]*regexp.Regexp{regexp.MustCompile(`3 buckets`), regexp.MustCompile(`other_count not reported \(merged across connections\)`)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.c.call("aggregate", tc.args)
			if r.IsError {
				t.Fatal(r.text())
			}
			for _, re := range tc.want {
				if !re.MatchString(r.text()) {
					t.Errorf("text does not match %s:\n%s", re, r.text())
				}
			}
			// structuredContent is the same answer: every bucket and the
			// value, nothing of the REST envelope.
			var sc map[string]json.RawMessage
			if err := json.Unmarshal(r.StructuredContent, &sc); err != nil || sc["over_records"] == nil {
				t.Errorf("structured is not the answer: %s", r.StructuredContent)
			}
			for _, rest := range []string{"links", "object", "meta", "data"} {
				if _, ok := sc[rest]; ok {
					t.Errorf("REST member %s kept in structuredContent", rest)
				}
			}
			// The answer is the first member, keyed by what was asked, as
			// the text's first line names it.
			first := strings.TrimPrefix(strings.SplitN(string(r.StructuredContent), `":`, 2)[0], `{"`)
			if !strings.HasPrefix(r.text(), "aggregate "+strings.SplitN(first, " by ", 2)[0]) {
				t.Errorf("first member %q is not the text's answer:\n%s", first, r.text())
			}
			var buckets map[string]int64
			_ = json.Unmarshal(sc[first], &buckets)
			if lines := regexp.MustCompile(`(?m)^\S+ = \d+$`).FindAllString(r.text(), -1); len(lines) != len(buckets) {
				t.Errorf("text shows %d buckets, structuredContent %d", len(lines), len(buckets))
			}
		})
	}
}

func TestAggregateRejectsInconsistentArgsLocally(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken)
	for name, args := range map[string]map[string]any{
		"sum without field":      {"stream": "messages", "metric": "sum"},
		"count with field":       {"stream": "messages", "metric": "count", "field": "size_bytes"},
		"two dimensions":         {"stream": "messages", "metric": "count", "group_by": "is_seen", "group_by_time": "received_at", "granularity": "day"},
		"time without unit":      {"stream": "messages", "metric": "count", "group_by_time": "received_at"},
		"unit without time":      {"stream": "messages", "metric": "count", "granularity": "day"},
		"grouped sum":            {"stream": "messages", "metric": "sum", "field": "size_bytes", "group_by": "is_seen"},
		"limit without grouping": {"stream": "messages", "metric": "count", "limit": 5},
		"bad metric":             {"stream": "messages", "metric": "median"},
	} {
		before := e.rs.RSCalls()
		r := e.c.call("aggregate", args)
		if !r.IsError {
			t.Errorf("%s: accepted", name)
		}
		if n := e.rs.RSCalls() - before; n != 0 {
			t.Errorf("%s: %d RS calls", name, n)
		}
		if strings.Contains(r.text(), "panic") {
			t.Errorf("%s: %s", name, r.text())
		}
	}
}
