package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
)

// captureDirEnv names the folder the RI tests write a fresh capture set
// into (rsclient/rstest/testdata/ri-captures in the repository). Unset, the
// contract proxy records nothing.
const captureDirEnv = "PDPP_RI_CAPTURE_DIR"

// maxCapturedBody bounds the response body one capture keeps; a larger
// exchange is not captured (the replay compares shapes, not bulk payloads).
const maxCapturedBody = 256 << 10

// riCapture is one RS exchange in the JSON shape of the manual captures
// under rsclient/rstest/testdata/real-captures, minus their run-order
// fields (seq, tag), which would make the set depend on test scheduling.
type riCapture struct {
	// Grant is what the request's bearer was granted, learnt from the RS's
	// compact schema; nil for a request without a live client bearer.
	Grant *captureGrant `json:"grant"`
	// Continues names the capture whose answer held the continuation token
	// (cursor or changes_since) this request sent, so a replay can send
	// its own token from its answer to that capture instead.
	Continues   string            `json:"continues,omitempty"`
	Method      string            `json:"method"`
	Path        string            `json:"path"`
	ReqHeaders  map[string]string `json:"req_headers"`
	ReqBody     string            `json:"req_body"`
	Status      int               `json:"status"`
	RespHeaders map[string]string `json:"resp_headers"`
	RespBody    string            `json:"resp_body"`
}

// captureGrant is a bearer's grant as the compact schema states it: the
// granted connection ids and, per stream, the granted fields. It lets a
// replay give the mock the same grant without keeping the bearer.
type captureGrant struct {
	Connections []string            `json:"connections"`
	Streams     map[string][]string `json:"streams"`
}

// captureRecorder collects the normalised exchanges of one contract proxy.
type captureRecorder struct {
	dir   string
	rsURL string
	mu    sync.Mutex
	// exchanges are the recorded exchanges in arrival order.
	exchanges []capturedExchange
	// grants caches each bearer's grant by the bearer's hash.
	grants map[[32]byte]*captureGrant
}

// newCaptureRecorder returns a recorder writing into dir, or nil when dir
// is empty; rsURL is the RS it asks for a bearer's grant.
func newCaptureRecorder(dir, rsURL string) *captureRecorder {
	if dir == "" {
		return nil
	}
	return &captureRecorder{dir: dir, rsURL: rsURL, grants: map[[32]byte]*captureGrant{}}
}

// record normalises one exchange and keeps it with the hashes of the
// continuation token it sent and of those its answer held; names and
// links between captures are settled in write, once every exchange is in.
func (r *captureRecorder) record(req *http.Request, reqBody []byte, status int, h http.Header, body []byte) {
	if r == nil || len(body) > maxCapturedBody {
		return
	}
	e := capturedExchange{c: normaliseCapture(req, reqBody, status, h, body)}
	e.c.Grant = r.grantOf(req.Header.Get("Authorization"))
	q := req.URL.Query()
	for _, param := range []string{"cursor", "changes_since"} {
		if v := q.Get(param); v != "" && v != "beginning" {
			e.sent = append(e.sent, sha256.Sum256([]byte(v)))
		}
	}
	var tokens struct {
		Cursor  string `json:"next_cursor"`
		Changes string `json:"next_changes_since"`
	}
	if json.Unmarshal(body, &tokens) == nil {
		for _, tok := range []string{tokens.Cursor, tokens.Changes} {
			if tok != "" {
				e.held = append(e.held, sha256.Sum256([]byte(tok)))
			}
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.exchanges = append(r.exchanges, e)
}

// capturedExchange is one recorded exchange before its name is settled.
type capturedExchange struct {
	c          riCapture
	sent, held [][32]byte // continuation token hashes
}

// named settles every exchange's name and Continues link, independently
// of the order the exchanges came in: first the exchanges that sent no
// token, then, round by round, each continuation whose token an already
// named exchange (other than itself) held, linked to the least such name.
// A continuation whose token no captured answer held keeps no link.
func (r *captureRecorder) named() map[string]riCapture {
	names := make([]string, len(r.exchanges))
	for i, e := range r.exchanges {
		if len(e.sent) == 0 {
			names[i] = captureName(e.c)
		}
	}
	for {
		holders := map[[32]byte]string{}
		for i, e := range r.exchanges {
			for _, h := range e.held {
				if names[i] != "" && (holders[h] == "" || names[i] < holders[h]) {
					holders[h] = names[i]
				}
			}
		}
		settled := map[int]string{}
		for i, e := range r.exchanges {
			if names[i] != "" {
				continue
			}
			for _, h := range e.sent {
				if src := holders[h]; src != "" {
					e.c.Continues = src
					settled[i] = captureName(e.c)
					r.exchanges[i] = e
				}
			}
		}
		if len(settled) == 0 {
			break
		}
		for i, n := range settled {
			names[i] = n
		}
	}
	out := map[string]riCapture{}
	for i, e := range r.exchanges {
		if names[i] == "" {
			names[i] = captureName(e.c)
		}
		out[names[i]] = e.c
	}
	return out
}

// grantOf asks the RS's compact schema what authz (a whole Authorization
// header) was granted, once per bearer. Any failure (no bearer, an expired
// one) is no grant.
func (r *captureRecorder) grantOf(authz string) *captureGrant {
	if authz == "" {
		return nil
	}
	key := sha256.Sum256([]byte(authz))
	r.mu.Lock()
	g, ok := r.grants[key]
	r.mu.Unlock()
	if ok {
		return g
	}
	g = probeGrant(r.rsURL, authz)
	r.mu.Lock()
	r.grants[key] = g
	r.mu.Unlock()
	return g
}

// probeGrant reads the grant of authz from rsURL's compact schema.
func probeGrant(rsURL, authz string) *captureGrant {
	req, err := http.NewRequest(http.MethodGet, rsURL+"/v1/schema?view=compact", nil)
	if err != nil {
		return nil
	}
	req.Header.Set("Authorization", authz)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil
	}
	var schema struct {
		Connectors []struct {
			Streams []struct {
				Name   string                     `json:"name"`
				Fields map[string]json.RawMessage `json:"field_capabilities"`
			} `json:"streams"`
			Connections []struct {
				ID string `json:"connection_id"`
			} `json:"granted_connections"`
		} `json:"connectors"`
	}
	if json.NewDecoder(io.LimitReader(resp.Body, maxCapturedBody)).Decode(&schema) != nil {
		return nil
	}
	g := &captureGrant{Connections: []string{}, Streams: map[string][]string{}}
	for _, c := range schema.Connectors {
		for _, conn := range c.Connections {
			g.Connections = append(g.Connections, conn.ID)
		}
		for _, st := range c.Streams {
			fields := make([]string, 0, len(st.Fields))
			for f := range st.Fields {
				fields = append(fields, f)
			}
			sort.Strings(fields)
			g.Streams[st.Name] = fields
		}
	}
	sort.Strings(g.Connections)
	return g
}

// write stores every kept capture as dir/NAME.json. The name is derived
// from the normalised content, so identical exchanges from several tests
// (or runs) land on one file and a rerun rewrites the same files.
func (r *captureRecorder) write(t *testing.T) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		t.Errorf("capture dir: %v", err)
		return
	}
	all := r.named()
	for name, c := range all {
		b, err := json.MarshalIndent(c, "", " ")
		if err != nil {
			t.Errorf("capture %s: %v", name, err)
			continue
		}
		tmp, err := os.CreateTemp(r.dir, ".tmp-*")
		if err != nil {
			t.Errorf("capture %s: %v", name, err)
			continue
		}
		_, werr := tmp.Write(append(b, '\n'))
		cerr := tmp.Close()
		if werr != nil || cerr != nil {
			_ = os.Remove(tmp.Name())
			t.Errorf("capture %s: %v %v", name, werr, cerr)
			continue
		}
		if err := os.Rename(tmp.Name(), filepath.Join(r.dir, name+".json")); err != nil {
			t.Errorf("capture %s: %v", name, err)
		}
	}
	t.Logf("wrote %d RI captures to %s", len(all), r.dir)
}

// captureName is a readable slug of the method and path plus a hash of the
// whole normalised capture.
func captureName(c riCapture) string {
	b, _ := json.Marshal(c)
	sum := sha256.Sum256(b)
	slug := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(c.Method+" "+c.Path), "-"), "-")
	if len(slug) > 80 {
		slug = strings.TrimRight(slug[:80], "-")
	}
	return slug + "-" + hex.EncodeToString(sum[:])[:10]
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// The volatile or secret values a capture must not keep.
var (
	// Continuation tokens are opaque and may embed run-specific state.
	volatileQueryParams = map[string]string{"cursor": "<cursor>", "changes_since": "<changes-since>"}
	// Body members replaced wherever they occur: continuation tokens,
	// per-run grant and client ids, and anything credential-like.
	volatileMembers = map[string]string{
		"next_cursor": "<cursor>", "cursor": "<cursor>", "next_changes_since": "<changes-since>",
		"grant_id": "<grant-id>", "client_id": "<client-id>",
		"access_token": "<redacted>", "refresh_token": "<redacted>", "client_secret": "<redacted>",
		"token": "<redacted>", "request_id": "<request-id>", "trace_id": "<trace-id>",
	}
	// Response headers that change per request or per run.
	volatileHeaders = map[string]string{
		"request-id": "<request-id>", "pdpp-reference-trace-id": "<trace-id>",
		"set-cookie": "<redacted>", "etag": "<etag>",
	}
	// Response headers that only describe the transport.
	droppedHeaders = map[string]bool{"date": true, "content-length": true, "connection": true, "keep-alive": true, "transfer-encoding": true}
	// Request headers worth keeping: the rest is the client's plumbing.
	keptRequestHeaders = []string{"Accept", "Content-Type", "Authorization"}
	// Strings that look like a credential wherever they appear (a bearer
	// of 20 characters or more: not a challenge's auth-param, not the
	// words "Bearer token" of an error message).
	credentialShaped = regexp.MustCompile(`Bearer [A-Za-z0-9._~+/-]{20,}=*|\brt_[A-Za-z0-9_-]{8,}|\b[0-9a-f]{64}\b|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*`)
)

// normaliseCapture builds the stable, secret-free form of one exchange.
func normaliseCapture(req *http.Request, reqBody []byte, status int, h http.Header, body []byte) riCapture {
	c := riCapture{
		Method:      req.Method,
		Path:        normalisePath(req.URL),
		ReqHeaders:  map[string]string{},
		ReqBody:     normaliseBody(reqBody),
		Status:      status,
		RespHeaders: map[string]string{},
		RespBody:    normaliseBody(body),
	}
	for _, k := range keptRequestHeaders {
		if v := req.Header.Get(k); v != "" {
			if k == "Authorization" {
				v = "<redacted>"
			}
			c.ReqHeaders[k] = v
		}
	}
	for k, vs := range h {
		lk := strings.ToLower(k)
		if droppedHeaders[lk] {
			continue
		}
		v := strings.Join(vs, ", ")
		if repl, ok := volatileHeaders[lk]; ok {
			v = repl
		}
		c.RespHeaders[lk] = normaliseString(v)
	}
	return c
}

// normalisePath keeps the path and query with continuation tokens replaced
// and the parameters in a stable order.
func normalisePath(u *url.URL) string {
	q := u.Query()
	if len(q) == 0 {
		return u.EscapedPath()
	}
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		for _, v := range q[k] {
			if repl, ok := volatileQueryParams[k]; ok && v != "beginning" {
				parts = append(parts, url.QueryEscape(k)+"="+repl)
				continue
			}
			parts = append(parts, url.QueryEscape(k)+"="+url.QueryEscape(scrubCredentials(v)))
		}
	}
	return u.EscapedPath() + "?" + strings.Join(parts, "&")
}

// normaliseBody rewrites a JSON body with volatile members replaced (keys
// sorted, as encoding/json writes maps); any other body is kept with
// credential-shaped strings scrubbed.
func normaliseBody(b []byte) string {
	if len(bytes.TrimSpace(b)) == 0 {
		return ""
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return scrubCredentials(string(b))
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(normaliseValue(v)); err != nil {
		return scrubCredentials(string(b))
	}
	return strings.TrimSuffix(out.String(), "\n")
}

func normaliseValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, m := range x {
			if repl, ok := volatileMembers[k]; ok {
				if str, isString := m.(string); isString {
					x[k] = keepFormatPrefix(k, str) + repl
					continue
				}
			}
			x[k] = normaliseValue(m)
		}
		return x
	case []any:
		for i := range x {
			x[i] = normaliseValue(x[i])
		}
		return x
	case string:
		return normaliseString(x)
	}
	return v
}

// keepFormatPrefix is the part of a continuation token before its first
// '.' (the RS's token format, as "sem1."), which a replay compares; other
// members keep nothing.
func keepFormatPrefix(member, v string) string {
	if member != "next_cursor" && member != "cursor" {
		return ""
	}
	if prefix, _, found := strings.Cut(v, "."); found && len(prefix) <= 8 && !strings.ContainsAny(prefix, "=/+") {
		return prefix + "."
	}
	return ""
}

// normaliseString replaces, inside any string, the run's loopback ports
// and continuation tokens in links, and anything credential-shaped.
func normaliseString(s string) string {
	s = loopbackPort.ReplaceAllString(s, "${1}:<port>")
	s = queryToken.ReplaceAllStringFunc(s, func(m string) string {
		k, _, _ := strings.Cut(m, "=")
		return k + "=" + volatileQueryParams[k[1:]]
	})
	return scrubCredentials(s)
}

var (
	loopbackPort = regexp.MustCompile(`(//(?:localhost|127\.0\.0\.1|\[::1\])):[0-9]+`)
	queryToken   = regexp.MustCompile(`([?&](?:cursor|changes_since)=)[^&"\s#]+`)
)

// scrubCredentials replaces anything bearer-shaped in s.
func scrubCredentials(s string) string {
	return credentialShaped.ReplaceAllString(s, "<redacted>")
}

// TestNormaliseCapture proves a capture keeps no bearer, refresh token,
// per-run id or continuation token, and that two runs of the same exchange
// with different volatile values get the same file name.
func TestNormaliseCapture(t *testing.T) {
	t.Parallel()
	bearer := strings.Repeat("ab", 32)
	mk := func(reqID, cursor, grant string) riCapture {
		req, _ := http.NewRequest(http.MethodGet, "http://rs/v1/streams/messages/records?limit=2&cursor="+cursor, nil)
		req.Header.Set("Authorization", "Bearer "+bearer)
		req.Header.Set("User-Agent", "x")
		h := http.Header{"Request-Id": {reqID}, "Date": {"now"}, "Content-Type": {"application/json"}}
		body := fmt.Sprintf(`{"next_cursor":%q,"bearer":{"grant_id":%q},"note":"Bearer %s rt_abcdefghijkl","refresh":{"refresh_token":"rt_x"},`+
			`"links":{"next":"/v1/search?q=a&cursor=%s&limit=2"},"authorization_servers":["http://localhost:%s"]}`, cursor, grant, bearer, cursor, reqID[4:])
		return normaliseCapture(req, nil, 200, h, []byte(body))
	}
	a, b := mk("req_1", "c1", "grt_1"), mk("req_2", "c2", "grt_2")
	if captureName(a) != captureName(b) {
		t.Errorf("names differ across volatile values: %s vs %s", captureName(a), captureName(b))
	}
	raw, _ := json.Marshal(a)
	for _, secret := range []string{bearer, "rt_abcdefghijkl", "rt_x", "c1", "grt_1", "req_1", "User-Agent", "Date", "localhost:1"} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("capture keeps %q: %s", secret, raw)
		}
	}
	if !strings.HasPrefix(captureName(a), "get-v1-streams-messages-records-cursor-cursor-limit-2-") {
		t.Errorf("name %s", captureName(a))
	}
}

// TestNormaliseBodyKeepsWhatReplaysCompare proves normalising keeps a
// cursor's format prefix, error messages and challenges, and drops
// bearers and ports.
func TestNormaliseBodyKeepsWhatReplaysCompare(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{`{"next_cursor":"sem1.eyJvZmYiOjJ9"}`, `{"next_cursor":"sem1.<cursor>"}`},
		{`{"next_cursor":"eyJvZmYiOjJ9"}`, `{"next_cursor":"<cursor>"}`},
		{`{"next_changes_since":"chg.123"}`, `{"next_changes_since":"<changes-since>"}`},
		{`{"message":"Missing Bearer token"}`, `{"message":"Missing Bearer token"}`},
		{`{"h":"Bearer resource_metadata=\"http://127.0.0.1:4242/x\""}`, `{"h":"Bearer resource_metadata=\"http://127.0.0.1:<port>/x\""}`},
		{`{"h":"Bearer ` + strings.Repeat("a1", 32) + `"}`, `{"h":"<redacted>"}`},
		{`{"a":[{"request_id":"req_1"}],"b":"<mark>x</mark>"}`, `{"a":[{"request_id":"<request-id>"}],"b":"<mark>x</mark>"}`},
	} {
		if got := normaliseBody([]byte(tc.in)); got != tc.want {
			t.Errorf("normaliseBody(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestCaptureRecorderLinksContinuations proves a request that sends an
// earlier answer's token names that answer's capture.
func TestCaptureRecorderLinksContinuations(t *testing.T) {
	t.Parallel()
	r := newCaptureRecorder(t.TempDir(), "http://127.0.0.1:1")
	get := func(u string) *http.Request {
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		return req
	}
	h := http.Header{"Content-Type": {"application/json"}}
	r.record(get("http://rs/v1/search?q=a"), nil, 200, h, []byte(`{"data":[],"next_cursor":"tok1"}`))
	r.record(get("http://rs/v1/search?q=a&cursor=tok1"), nil, 200, h, []byte(`{"data":[]}`))
	r.record(get("http://rs/v1/search?q=a&cursor=unknown"), nil, 200, h, []byte(`{"data":[],"x":1}`))
	var first string
	continues := map[string]string{}
	for name, c := range r.named() {
		if !strings.Contains(c.Path, "cursor") {
			first = name
		}
		continues[c.RespBody] = c.Continues
	}
	want := map[string]string{`{"data":[],"next_cursor":"<cursor>"}`: "", `{"data":[]}`: first, `{"data":[],"x":1}`: ""}
	if first == "" || !maps.Equal(continues, want) {
		t.Errorf("continues %v, want %v", continues, want)
	}
}
