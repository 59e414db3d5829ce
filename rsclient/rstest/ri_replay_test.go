package rstest_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pdpp/pdpp-mcp/internal/contract"
	"github.com/pdpp/pdpp-mcp/internal/ritest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// riCapture is one exchange of testdata/ri-captures, written by the e2e RI
// tests' contract proxy (`make ri-captures`): the RS exchange normalised
// (no bearer, continuation tokens and request ids replaced) plus the grant
// the bearer held, read from the RS's compact schema.
type riCapture struct {
	Grant *struct {
		Connections []string            `json:"connections"`
		Streams     map[string][]string `json:"streams"`
	} `json:"grant"`
	Continues   string            `json:"continues"`
	Method      string            `json:"method"`
	Path        string            `json:"path"`
	Status      int               `json:"status"`
	RespHeaders map[string]string `json:"resp_headers"`
	RespBody    string            `json:"resp_body"`
}

// riCaptureMinimum guards against an emptied or truncated capture set.
const riCaptureMinimum = 200

// riReplayKnownDiffs are the RI captures the mock does not answer in
// kind, by file name, with the reason. The test fails if one of them
// starts to agree.
var riReplayKnownDiffs = map[string]string{
	// The last page of a semantic chain. The RI keeps
	// resolveSemanticPerConnectorLimit(first page's limit) nearest FIELD
	// hits per connection and then collapses them into records
	// (server/search-semantic.ts), so a chain holds fewer records than the
	// cap when one record matched in several fields: 55 for limit=20 (cap
	// 30 a connection), 46 for limit=2 (cap 25). The mock caps records
	// (semanticPerConnection), so its chain runs to 60 and 50.
	"get-v1-search-semantic-cursor-cursor-limit-20-q-kayak-itinerary-b1bd6598be": "semantic chain of limit=20 ends after 55 records on the RI, 60 on the mock (field hits capped before collapsing)",
	"get-v1-search-semantic-cursor-cursor-limit-2-q-kayak-itinerary-2f0683fa39":  "semantic chain of limit=2 ends after 46 records on the RI, 50 on the mock (field hits capped before collapsing)",
}

// TestRICaptureReplay sends the mock, loaded with the RI tier's own seeded
// data set (internal/ritest.Generate) and each capture's grant, the request
// of every RI capture (a continuation with the mock's own token from its
// answer to the capture it continues), and compares the shape TestShapeReplay compares plus the
// fields the records carry (the grant's projection).
func TestRICaptureReplay(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("testdata/ri-captures/*.json")
	if len(files) < riCaptureMinimum {
		t.Fatalf("%d RI captures; want at least %d (make ri-captures)", len(files), riCaptureMinimum)
	}
	var caps []riCapture
	var names []string
	for _, f := range files {
		var c riCapture
		b, err := os.ReadFile(f)
		if err != nil || json.Unmarshal(b, &c) != nil {
			t.Fatalf("%s: unreadable capture", f)
		}
		caps = append(caps, c)
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".json"))
	}
	ds, bearers := riReplayDataset(t, caps)
	s, err := rstest.New(ds, rstest.Options{Semantic: true, Capabilities: rstest.CapabilitiesDeclared})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(contract.Middleware(t, s))
	t.Cleanup(ts.Close)
	replayed, differ := 0, 0
	answers := map[string]map[string]any{}
	// Continuations replay after the capture they continue, with the
	// mock's own token from its answer to it: passes until none is left
	// that can be replayed.
	pending := make([]int, len(caps))
	for i := range pending {
		pending[i] = i
	}
	for progress := true; progress; {
		progress = false
		var later []int
		for _, i := range pending {
			c, name := caps[i], names[i]
			if c.Continues != "" && answers[c.Continues] == nil {
				later = append(later, i)
				continue
			}
			progress = true
			replayed++
			path, err := riContinuationPath(c, answers[c.Continues])
			var diff string
			if err != nil {
				diff = err.Error()
			} else {
				status, header, body := replayGet(t, ts.URL+path, bearers[grantKey(c)])
				answers[name] = body
				var want map[string]any
				_ = json.Unmarshal([]byte(c.RespBody), &want)
				diff = cmp.Diff(shapeOf(c.Status, http.Header{"Www-Authenticate": {c.RespHeaders["www-authenticate"]}}, want), shapeOf(status, header, body))
				diff += cmp.Diff(payloadFields(want), payloadFields(body))
			}
			reason, known := riReplayKnownDiffs[name]
			switch {
			case diff != "" && !known:
				differ++
				t.Errorf("%s %s: mock differs from the RI (-ri +mock):\n%s", name, c.Path, diff)
			case diff == "" && known:
				t.Errorf("%s now agrees with the RI; drop it from riReplayKnownDiffs (%s)", name, reason)
			}
		}
		pending = later
	}
	for _, i := range pending {
		if _, known := riReplayKnownDiffs[names[i]]; !known {
			t.Errorf("%s continues %s, which is not in the set", names[i], caps[i].Continues)
		}
	}
	t.Logf("%d RI captures: %d replayed (%d known differences, %d new), %d not replayable", len(caps), replayed, len(riReplayKnownDiffs), differ, len(pending))
}

// riUnlinkedToken stands for a token no captured answer held (one a test
// made up to see it refused): it is no token of the mock's either.
const riUnlinkedToken = "not-a-token-of-this-rs"

// riContinuationPath is c's path with its continuation token placeholder
// replaced by the token of the mock's answer to the capture c continues.
func riContinuationPath(c riCapture, source map[string]any) (string, error) {
	path := c.Path
	for placeholder, member := range map[string]string{"<cursor>": "next_cursor", "<changes-since>": "next_changes_since"} {
		if !strings.Contains(path, placeholder) {
			continue
		}
		if c.Continues == "" {
			path = strings.ReplaceAll(path, placeholder, riUnlinkedToken)
			continue
		}
		tok, _ := source[member].(string)
		if tok == "" {
			return "", fmt.Errorf("the mock's answer to %s has no %s to continue with", c.Continues, member)
		}
		path = strings.ReplaceAll(path, placeholder, url.QueryEscape(tok))
	}
	return path, nil
}

// payloadFields lists the fields the records of an answer carry (a list's
// records, or one record), which is where a grant's field projection shows.
func payloadFields(body map[string]any) []string {
	seen := map[string]bool{}
	add := func(item any) {
		m, _ := item.(map[string]any)
		d, _ := m["data"].(map[string]any)
		for k := range d {
			seen[k] = true
		}
	}
	if list, ok := body["data"].([]any); ok {
		for _, item := range list {
			add(item)
		}
	} else {
		add(body)
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// grantKey names a capture's grant; "" is no bearer.
func grantKey(c riCapture) string {
	if c.Grant == nil {
		return ""
	}
	b, _ := json.Marshal(c.Grant)
	return string(b)
}

// riReplayDataset is the RI tier's data set under the connection ids the
// RI gave it, with one client grant per distinct grant of the captures;
// it returns the bearer of each grant by grantKey.
func riReplayDataset(t *testing.T, caps []riCapture) (*rstest.Dataset, map[string]string) {
	t.Helper()
	raw, err := os.ReadFile("testdata/manifest-gmail.json")
	if err != nil {
		t.Fatal(err)
	}
	gmail, err := demodata.ParseManifest(raw)
	if err != nil {
		t.Fatal(err)
	}
	gmail.SourceID = "https://registry.pdpp.dev/connectors/gmail"
	ids := map[string]string{"work": replayWork, "personal": replayPersonal}
	ds := &rstest.Dataset{Connectors: []*rstest.Connector{gmail}}
	for _, conn := range ritest.Generate().Connections() {
		ds.Connections = append(ds.Connections, rstest.Connection{ID: ids[conn.Key], ConnectorKey: gmail.Key, DisplayName: conn.DisplayName})
		for _, stream := range []string{"messages", "message_bodies", "threads", "labels"} {
			nd, err := conn.NDJSON(stream)
			if err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(bytes.NewReader(nd))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				var line struct {
					Key       string          `json:"key"`
					Data      json.RawMessage `json:"data"`
					EmittedAt time.Time       `json:"emitted_at"`
				}
				if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
					t.Fatal(err)
				}
				ds.Records = append(ds.Records, rstest.Record{ConnectionID: ids[conn.Key], Stream: stream, ID: line.Key, Data: line.Data, EmittedAt: line.EmittedAt})
			}
		}
	}
	bearers := map[string]string{}
	var keys []string
	byKey := map[string]riCapture{}
	for _, c := range caps {
		if k := grantKey(c); k != "" && byKey[k].Grant == nil {
			byKey[k] = c
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for i, k := range keys {
		g := rstest.Grant{ID: fmt.Sprintf("grt_%016x", i+1), ClientID: fmt.Sprintf("cli_%016x", i+1),
			Token: fmt.Sprintf("%064x", i+1), ConnectorKey: gmail.Key}
		var streams []string
		for st := range byKey[k].Grant.Streams {
			streams = append(streams, st)
		}
		sort.Strings(streams)
		for _, st := range streams {
			g.Streams = append(g.Streams, rstest.GrantStream{Name: st, ConnectionIDs: byKey[k].Grant.Connections, Fields: byKey[k].Grant.Streams[st]})
		}
		ds.Grants = append(ds.Grants, g)
		bearers[k] = g.Token
	}
	return ds, bearers
}

// riCaptureSecret matches anything bearer-shaped: an Authorization value
// (a credential of 20 characters or more, so neither a challenge's
// `Bearer resource_metadata=` nor a message's "Bearer token"), a 64-hex
// token, a refresh token, a JWT.
var riCaptureSecret = regexp.MustCompile(`Bearer [A-Za-z0-9._~+/-]{20,}|\brt_[A-Za-z0-9_-]{8,}|\b[0-9a-f]{64}\b|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]+\.`)

// TestRICapturesHoldNoSecrets fails if a committed capture (either set)
// keeps a bearer, refresh token or JWT.
func TestRICapturesHoldNoSecrets(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("testdata/ri-captures/*.json")
	old, _ := filepath.Glob("testdata/real-captures/*.json")
	if len(files) < riCaptureMinimum || len(old) == 0 {
		t.Fatalf("%d RI and %d real captures; want both sets", len(files), len(old))
	}
	for _, f := range append(files, old...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if m := riCaptureSecret.Find(b); m != nil {
			t.Errorf("%s holds something bearer-shaped: %q", f, m)
		}
	}
}

// TestRICaptureSecretPattern proves the scan finds each kind of secret.
func TestRICaptureSecretPattern(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{`"Authorization":"Bearer abcdefghij.klmnopqrstuv"`, true},
		{`"www-authenticate":"Bearer resource_metadata=\"http://127.0.0.1:1/x\""`, false},
		{`"message":"Missing Bearer token"`, false},
		{`"token":"` + strings.Repeat("0f", 32) + `"`, true},
		{`"refresh_token":"rt_AbCdEf012345"`, true},
		{`"id_token":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig"`, true},
		{`"Authorization":"<redacted>"`, false},
		{`"pdpp_self_export_supported":true`, false},
		{`"connection_id":"cin_a04c279a74d7d404a1bc1159"`, false},
		{`"next_cursor":"<cursor>"`, false},
	} {
		if got := riCaptureSecret.MatchString(tc.in); got != tc.want {
			t.Errorf("%s: matched %t, want %t", tc.in, got, tc.want)
		}
	}
}
