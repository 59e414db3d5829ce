package hosted_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// The start-up check and the authorization server agree: a selection
// serve accepts is one the AS (the mock in the real AS's posture, which
// answers as the reference AS does) turns into a code, and one serve
// refuses the AS refuses too. Each case changes one member of README's
// example; the data it names exists (both Gmail connections), so only
// the rules decide.
func TestSignInCheckAgreesWithTheAS(t *testing.T) {
	t.Parallel()
	ds, err := demodata.Build(demodata.Options{Records: 5})
	if err != nil {
		t.Fatal(err)
	}
	rs := rstest.NewServer(ds, rstest.WithRealAuthServer())
	t.Cleanup(rs.Close)
	clientID := registerClient(t, rs.URL)
	stream := func(m map[string]any) []map[string]any { return []map[string]any{m} }
	both := []string{demodata.GmailWorkConnectionID, demodata.GmailPersonalConnectionID}
	cases := []struct {
		name string
		edit map[string]any
	}{
		{"README's example", nil},
		{"the messages stream only", map[string]any{"streams": stream(map[string]any{"name": "messages", "instance_ids": both})}},
		{"two named streams", map[string]any{"streams": []map[string]any{{"name": "messages", "instance_ids": both}, {"name": "threads", "instance_ids": both}}}},
		{"single use", map[string]any{"access_mode": "single_use"}},
		{"a description", map[string]any{"purpose_description": "Let my assistant read my mail."}},
		{"source without kind", map[string]any{"source": map[string]any{"id": "https://registry.pdpp.dev/connectors/gmail"}}},
		{"a short source id", map[string]any{"source": map[string]any{"kind": "connector", "id": "gmail"}}},
		{"the .org type", map[string]any{"type": "https://pdpp.org/data-access"}},
		{"no type", map[string]any{"type": nil}},
		{"no purpose", map[string]any{"purpose_code": nil}},
		{"a purpose that is no URI", map[string]any{"purpose_code": "assistant"}},
		{"no access mode", map[string]any{"access_mode": nil}},
		{"an unknown access mode", map[string]any{"access_mode": "forever"}},
		{"connector_id beside source", map[string]any{"connector_id": "gmail"}},
		{"a source member the AS does not take", map[string]any{"source": map[string]any{"id": "https://registry.pdpp.dev/connectors/gmail", "name": "g"}}},
		{"an unknown source kind", map[string]any{"source": map[string]any{"id": "https://registry.pdpp.dev/connectors/gmail", "kind": "app"}}},
		{"no streams", map[string]any{"streams": nil}},
		{"empty streams", map[string]any{"streams": []map[string]any{}}},
		{"empty instance_ids", map[string]any{"streams": stream(map[string]any{"name": "*", "instance_ids": []string{}})}},
		{"an instance twice", map[string]any{"streams": stream(map[string]any{"name": "*", "instance_ids": []string{both[0], both[0]}})}},
		{"* beside a stream", map[string]any{"streams": []map[string]any{{"name": "*", "instance_ids": both}, {"name": "messages", "instance_ids": both}}}},
		{"a stream twice", map[string]any{"streams": []map[string]any{{"name": "messages", "instance_ids": both}, {"name": "messages", "instance_ids": both}}}},
		{"a stream member the AS does not take", map[string]any{"streams": stream(map[string]any{"name": "*", "instance_ids": both, "limit": 3})}},
		{"fields and view", map[string]any{"streams": stream(map[string]any{"name": "messages", "instance_ids": both, "fields": []string{"subject"}, "view": "v"})}},
		{"an empty stream name", map[string]any{"streams": stream(map[string]any{"name": "", "instance_ids": both})}},
	}
	type verdicts struct{ Serve, AS bool }
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			doc := gmailEntry(t, tc.edit)
			_, err := hosted.ParseAuthorizationDetails([]byte(doc))
			status, desc := authorizeAt(t, rs.URL, clientID, doc)
			got := verdicts{Serve: err == nil, AS: status == http.StatusFound}
			if diff := cmp.Diff(verdicts{Serve: got.AS, AS: got.AS}, got); diff != "" {
				t.Errorf("serve says %v, the AS %d %s (-agreement +got):\n%s", err, status, desc, diff)
			}
		})
	}
}

// registerClient registers a public client with the AS at base.
func registerClient(t *testing.T, base string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"client_name": "agreement", "redirect_uris": []string{signInCallback}})
	res, err := http.Post(base+"/oauth/register", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var cl struct {
		ClientID string `json:"client_id"`
	}
	if err := json.NewDecoder(res.Body).Decode(&cl); err != nil {
		t.Fatal(err)
	}
	return cl.ClientID
}

// authorizeAt sends an authorize request with doc as authorization_details
// to the AS at base and returns its status and error description.
func authorizeAt(t *testing.T, base, clientID, doc string) (int, string) {
	t.Helper()
	q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {signInCallback},
		"code_challenge": {strings.Repeat("a", 43)}, "code_challenge_method": {"S256"}, "authorization_details": {doc}}
	res, err := noFollow.Get(base + "/oauth/authorize?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var e struct {
		Description string `json:"error_description"`
	}
	_ = json.NewDecoder(res.Body).Decode(&e)
	return res.StatusCode, e.Description
}
