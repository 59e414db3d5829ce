package hosted_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// frontHandler is a hosted handler with the sign-in front over the mock
// RS's AS in the real posture, and that AS's authorize endpoint.
func frontHandler(t testing.TB, sel hosted.SignInSelection) (http.Handler, string) {
	t.Helper()
	ds, err := demodata.Build(demodata.Options{Records: 5})
	if err != nil {
		t.Fatal(err)
	}
	rs := rstest.NewServer(ds, rstest.WithRealAuthServer())
	t.Cleanup(rs.Close)
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	a, err := adapter.New(adapter.Config{RS: rc, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	si, err := hosted.DiscoverSignIn(t.Context(), a, sel, nil)
	if err != nil {
		t.Fatal(err)
	}
	return hosted.New(a, hosted.Options{SignIn: si}), rs.URL + "/oauth/authorize"
}

// hostAuthorizeQuery is a well-formed host authorize query.
const hostAuthorizeQuery = "response_type=code&client_id=cli_x&redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcb" +
	"&code_challenge=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa&code_challenge_method=S256&state=st&resource=http%3A%2F%2Fmcp.example%2Fmcp"

// authorizeVia sends GET /oauth/authorize?raw to the front (the raw query
// exactly as given, '#' included) and returns the status and Location.
func authorizeVia(h http.Handler, raw string) (int, string) {
	req := httptest.NewRequest(http.MethodGet, "/oauth/authorize", nil)
	req.URL.RawQuery = raw
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Header().Get("Location")
}

// asSelection is what the reference AS reads as the selection from a
// redirect: its query parsed by qs (rstest.ParseQS), the selection
// parameters as they come out (string, array or object), and whether the
// Location had a fragment.
type asSelection struct {
	Details   any
	Connector any
	Fragment  bool
	Target    string
}

func readAsTheASDoes(t testing.TB, loc string) asSelection {
	t.Helper()
	before, frag, hasFrag := strings.Cut(loc, "#")
	target, rawQuery, _ := strings.Cut(before, "?")
	q := rstest.ParseQS(rawQuery)
	return asSelection{Details: q["authorization_details"], Connector: q["connector_id"], Fragment: hasFrag || frag != "", Target: target}
}

// The front forwards only what it understood: every way a host's query
// could make the reference AS (qs) read a selection other than the
// operator's is refused, or ends in a redirect where qs finds exactly the
// operator's selection.
func TestSignInFrontQueryCannotRewriteTheSelection(t *testing.T) {
	t.Parallel()
	details, err := hosted.ParseAuthorizationDetails([]byte(bothGmailDetails))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		sel   hosted.SignInSelection
		extra string
	}{
		{"bracket keys", hosted.SignInSelection{ConnectorID: "slack"}, "authorization_details[0][source][id]=https%3A%2F%2Fregistry.pdpp.dev%2Fconnectors%2Fgmail"},
		{"encoded bracket keys", hosted.SignInSelection{ConnectorID: "slack"}, "authorization_details%5B0%5D%5Btype%5D=x"},
		{"lower-case encoded brackets", hosted.SignInSelection{ConnectorID: "slack"}, "authorization_details%5b0%5d=x"},
		{"connector_id as an array", hosted.SignInSelection{ConnectorID: "slack"}, "connector_id[]=slack"},
		{"connector_id as an encoded array", hosted.SignInSelection{AuthorizationDetails: details}, "connector_id%5B%5D=slack"},
		{"a look-alike name", hosted.SignInSelection{ConnectorID: "slack"}, "connector_idx=gmail"},
		{"1,000 filler parameters", hosted.SignInSelection{ConnectorID: "slack"}, strings.Repeat("f=x&", 1000) + "g=1"},
		{"1,000 distinct filler parameters", hosted.SignInSelection{AuthorizationDetails: details}, fillers(1000)},
		{"a raw #", hosted.SignInSelection{ConnectorID: "slack"}, "state2=x#"},
		{"a raw # before the selection", hosted.SignInSelection{AuthorizationDetails: details}, "x=%23&y=#frag"},
		{"an encoded # is a value", hosted.SignInSelection{ConnectorID: "slack"}, "scope=a%23b"},
		{"the same selection again", hosted.SignInSelection{ConnectorID: "slack"}, "connector_id=slack"},
		{"unknown parameters", hosted.SignInSelection{AuthorizationDetails: details}, "prompt=consent&x=1"},
	}
	handlers := map[string]http.Handler{}
	targets := map[string]string{}
	var mu sync.Mutex
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			key := tc.sel.Describe()
			mu.Lock()
			h, ok := handlers[key]
			if !ok {
				h, targets[key] = frontHandler(t, tc.sel)
				handlers[key] = h
			}
			target := targets[key]
			mu.Unlock()
			status, loc := authorizeVia(h, hostAuthorizeQuery+"&"+tc.extra)
			if status == http.StatusBadRequest {
				return // refused: nothing reached the AS
			}
			if status != http.StatusFound {
				t.Fatalf("status %d", status)
			}
			want := asSelection{Target: target}
			if tc.sel.ConnectorID != "" {
				want.Connector = tc.sel.ConnectorID
			} else {
				want.Details = tc.sel.AuthorizationDetails
			}
			if diff := cmp.Diff(want, readAsTheASDoes(t, loc)); diff != "" {
				t.Errorf("the AS reads from %s (-operator's selection +read):\n%s", loc, diff)
			}
		})
	}
}

// fillers is n distinct parameters.
func fillers(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = "f" + strconv.Itoa(i) + "=1"
	}
	return strings.Join(parts, "&")
}

// FuzzSignInFrontQuery: no host query makes a redirect whose query the
// reference AS's parser (qs: bracket keys, arrays, the 1,000-parameter
// limit) reads as a selection other than the operator's, or whose
// Location has a fragment.
func FuzzSignInFrontQuery(f *testing.F) {
	for _, s := range []string{"", "connector_id[]=slack", "authorization_details%5B0%5D=x", strings.Repeat("a=1&", 70),
		"x=#", "connector_id=slack", "authorization_details=%5B%5D", "a%5b=1", "state=%ZZ", "scope=a+b;c"} {
		f.Add(s)
	}
	sel := hosted.SignInSelection{ConnectorID: "slack"}
	h, target := frontHandler(f, sel)
	f.Fuzz(func(t *testing.T, extra string) {
		for _, raw := range []string{hostAuthorizeQuery + "&" + extra, extra + "&" + hostAuthorizeQuery} {
			status, loc := authorizeVia(h, raw)
			if status != http.StatusFound {
				continue
			}
			got := readAsTheASDoes(t, loc)
			if diff := cmp.Diff(asSelection{Connector: "slack", Target: target}, got); diff != "" {
				t.Fatalf("query %q: the AS reads from %s (-operator's +read):\n%s", raw, loc, diff)
			}
		}
	})
}
