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

// Issue 23.3: when several cached grants serve a read and none covers the
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
