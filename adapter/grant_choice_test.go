package adapter_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// A second narrow grant over the Work connection whose fields neither
// include nor are included in the restricted demo grant's: neither covers
// the other, so routing cannot choose between them.
const (
	sideGrantID    = "grt_5ide5ide5ide5ide"
	sideGrantToken = "5151515151515151515151515151515151515151515151515151515151515151"
)

func datasetWithSideGrant(t *testing.T) *rstest.Dataset {
	t.Helper()
	base := testenv.Dataset(t)
	ds := *base
	ds.Grants = append(slices.Clone(base.Grants), rstest.Grant{ID: sideGrantID, ClientID: "cli_5ide5ide5ide5ide",
		Token: sideGrantToken, ConnectorKey: "gmail", Status: "active", Streams: []rstest.GrantStream{
			{Name: "messages", ConnectionIDs: []string{demodata.GmailWorkConnectionID},
				Fields: []string{"id", "subject", "received_at", "from_email", "labels"}},
		}})
	return &ds
}

// When several cached grants serve a read and none covers the
// others, the answer is a typed, bounded choice naming each grant and the
// argument that picks one (grant_id); with grant_id the picked grant
// answers and the result says so. A grant_id that does not serve the read
// is refused with the grants that do.
func TestGrantIDPicksAmongIncomparableGrants(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{Dataset: datasetWithSideGrant(t)}, demodata.GmailRestrictedToken, sideGrantToken)
	work := demodata.GmailWorkConnectionID
	count := map[string]any{"stream": "messages", "metric": "count", "connection_id": work}

	r := e.c.call("aggregate", count)
	var env struct {
		Error struct {
			Code      string `json:"code"`
			Message   string `json:"message"`
			RetryWith string `json:"retry_with"`
			Grants    []struct {
				GrantID string `json:"grant_id"`
				Label   string `json:"label"`
			} `json:"available_grants"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.text()), &env); err != nil || !r.IsError {
		t.Fatalf("want an ambiguous_grant error: %v\n%s", err, r.text())
	}
	var offered []string
	for _, g := range env.Error.Grants {
		offered = append(offered, g.GrantID)
	}
	slices.Sort(offered)
	if env.Error.Code != "ambiguous_grant" || env.Error.RetryWith != "grant_id" ||
		!slices.Equal(offered, []string{demodata.GmailRestrictedGrantID, sideGrantID}) || !strings.Contains(env.Error.Message, "grant_id") {
		t.Fatalf("choice = %+v", env.Error)
	}
	if string(r.StructuredContent) != r.text() {
		t.Errorf("the choice differs between the channels")
	}

	for _, id := range offered {
		args := map[string]any{"grant_id": id}
		for k, v := range count {
			args[k] = v
		}
		r := e.c.call("aggregate", args)
		if r.IsError {
			t.Fatalf("grant_id %s: %s", id, r.text())
		}
		for _, page := range []string{r.text(), string(r.StructuredContent)} {
			if !strings.Contains(page, "grant_chosen") || !strings.Contains(page, id) || !strings.Contains(page, "as grant_id asked") {
				t.Errorf("grant_id %s: the page does not say which grant answered:\n%s", id, page)
			}
		}
	}
	rec := e.c.call("query_records", map[string]any{"stream": "messages", "connection_id": work, "grant_id": sideGrantID, "limit": 3})
	if rec.IsError || !strings.Contains(rec.text(), "from_email") || strings.Contains(rec.text(), "from_name") {
		t.Errorf("records picked by grant_id carry that grant's fields only:\n%s", rec.text())
	}

	bad := e.c.call("aggregate", map[string]any{"stream": "messages", "metric": "count", "connection_id": work, "grant_id": demodata.SlackGrantID})
	if code := bad.errorCode(t); code != "unknown_grant" || !strings.Contains(bad.text(), sideGrantID) || !strings.Contains(bad.text(), demodata.GmailRestrictedGrantID) {
		t.Errorf("a grant_id that does not serve the read: %s", bad.text())
	}
	one := newEnv(t, testenv.Options{}, demodata.GmailToken)
	if r := one.c.call("aggregate", map[string]any{"stream": "messages", "metric": "count", "grant_id": sideGrantID}); r.errorCode(t) != "unknown_grant" {
		t.Errorf("one grant, another grant_id: %s", r.text())
	}
}

// A grant over both Gmail connections that grants fewer message fields
// than the side grant: on the Work connection neither covers the other.
const (
	thinGrantID    = "grt_7hin7hin7hin7hin"
	thinGrantToken = "7171717171717171717171717171717171717171717171717171717171717171"
)

func datasetWithThinAndSideGrants(t *testing.T) *rstest.Dataset {
	t.Helper()
	ds := datasetWithSideGrant(t)
	ds.Grants = append(ds.Grants, rstest.Grant{ID: thinGrantID, ClientID: "cli_7hin7hin7hin7hin",
		Token: thinGrantToken, ConnectorKey: "gmail", Status: "active", Streams: []rstest.GrantStream{
			{Name: "messages", ConnectionIDs: []string{demodata.GmailWorkConnectionID, demodata.GmailPersonalConnectionID},
				Fields: []string{"id", "subject", "received_at", "is_seen"}},
		}})
	return ds
}

// errorOf decodes a tool error's envelope.
type errorOf struct {
	Code        string `json:"code"`
	Message     string `json:"message"`
	RetryWith   string `json:"retry_with"`
	Connections []struct {
		ConnectionID string `json:"connection_id"`
	} `json:"available_connections"`
	NextSteps []string `json:"-"` // the error body's, beside error
}

func decodeError(t *testing.T, r toolResult) errorOf {
	t.Helper()
	var env struct {
		Error     errorOf  `json:"error"`
		NextSteps []string `json:"next_steps"`
	}
	if err := json.Unmarshal([]byte(r.text()), &env); err != nil || !r.IsError {
		t.Fatalf("want an error: %v\n%s", err, r.text())
	}
	env.Error.NextSteps = env.NextSteps
	return env.Error
}

// TestAmbiguityWithoutConnectionGivesAStepThatWorks: two incomparable
// grants on one connection make a read without connection_id a choice of
// grant, not of connection (naming the connection would only lead to that
// choice): the answer is ambiguous_grant, and its grant_id step answers.
// When the grants span several connections, each connection is listed
// once, the shared one is named with the grant_id it needs, and each
// step the error gives answers.
func TestAmbiguityWithoutConnectionGivesAStepThatWorks(t *testing.T) {
	t.Parallel()
	count := func(extra ...string) map[string]any {
		args := map[string]any{"stream": "messages", "metric": "count"}
		for i := 0; i+1 < len(extra); i += 2 {
			args[extra[i]] = extra[i+1]
		}
		return args
	}
	one := newEnv(t, testenv.Options{Dataset: datasetWithSideGrant(t)}, demodata.GmailRestrictedToken, sideGrantToken)
	e := decodeError(t, one.c.call("aggregate", count()))
	if e.Code != "ambiguous_grant" || e.RetryWith != "grant_id" {
		t.Fatalf("two grants on one connection: %+v", e)
	}
	for _, id := range []string{demodata.GmailRestrictedGrantID, sideGrantID} {
		if r := one.c.call("aggregate", count("grant_id", id)); r.IsError {
			t.Errorf("the step grant_id=%s fails: %s", id, r.text())
		}
	}

	two := newEnv(t, testenv.Options{Dataset: datasetWithThinAndSideGrants(t)}, thinGrantToken, sideGrantToken)
	e = decodeError(t, two.c.call("aggregate", count()))
	var listed []string
	for _, c := range e.Connections {
		listed = append(listed, c.ConnectionID)
	}
	slices.Sort(listed)
	want := []string{demodata.GmailWorkConnectionID, demodata.GmailPersonalConnectionID}
	slices.Sort(want)
	if e.Code != "ambiguous_connection" || !slices.Equal(listed, want) {
		t.Fatalf("each connection once: %+v", e)
	}
	if !strings.Contains(e.Message, demodata.GmailWorkConnectionID+" is served by grants") || !strings.Contains(e.Message, "grant_id") {
		t.Errorf("the shared connection must be named with grant_id: %s", e.Message)
	}
	if len(e.NextSteps) != 3 {
		t.Errorf("want a step for the unshared connection and one per grant on the shared one: %q", e.NextSteps)
	}
	for _, step := range e.NextSteps { // every step runs as written
		_, call, ok := strings.Cut(step, ": aggregate ")
		var args map[string]any
		if !ok || json.Unmarshal([]byte(call), &args) != nil {
			t.Errorf("step is not an aggregate call: %q", step)
			continue
		}
		if r := two.c.call("aggregate", args); r.IsError {
			t.Errorf("step %q fails: %s", step, r.text())
		}
	}
	if r := two.c.call("aggregate", count("connection_id", demodata.GmailPersonalConnectionID)); r.IsError {
		t.Errorf("connection_id of the unshared connection fails: %s", r.text())
	}
	if r := two.c.call("aggregate", count("connection_id", demodata.GmailWorkConnectionID, "grant_id", sideGrantID)); r.IsError {
		t.Errorf("connection_id with grant_id on the shared connection fails: %s", r.text())
	}
}
