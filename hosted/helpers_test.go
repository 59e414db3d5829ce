package hosted_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/bearerauth"
	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

// publicURL is the configured public origin of the hosted test servers; it
// differs from the httptest address on purpose, so tests see that
// challenges and audiences name the configured origin, not the Host.
const publicURL = "https://mcp.example.test"

// fakeClock is a settable clock shared by the adapter and token minting.
type fakeClock struct{ ns atomic.Int64 }

func newFakeClock() *fakeClock {
	c := &fakeClock{}
	c.ns.Store(time.Now().UnixNano())
	return c
}
func (c *fakeClock) Now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

// hostedEnv is a mock RS plus a hosted adapter served over loopback.
type hostedEnv struct {
	rs    *testenv.RS
	url   string // http://127.0.0.1:port of the adapter
	clock *fakeClock
}

func startHosted(t *testing.T, opts hosted.Options, cfg adapter.Config) *hostedEnv {
	t.Helper()
	return startHostedOn(t, testenv.Options{}, opts, cfg)
}

// startHostedOn is startHosted over a mock RS started with rsOpts.
func startHostedOn(t *testing.T, rsOpts testenv.Options, opts hosted.Options, cfg adapter.Config) *hostedEnv {
	t.Helper()
	rs := testenv.StartRS(t, rsOpts)
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	clock := newFakeClock()
	cfg.RS, cfg.Version = rc, "test"
	if cfg.Now == nil {
		cfg.Now = clock.Now
	}
	if opts.Auth.Now == nil {
		opts.Auth.Now = cfg.Now
	}
	if cfg.Waits == (adapter.Waits{}) {
		cfg.Waits = adapter.UnboundedWaits // pages must not depend on the machine's speed
	}
	srv, err := adapter.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(hosted.New(srv, opts))
	t.Cleanup(hs.Close)
	return &hostedEnv{rs: rs, url: hs.URL, clock: clock}
}

// httpResult is what a client saw.
type httpResult struct {
	Status int
	Header http.Header
	Body   []byte
}

// errorBody decodes the adapter's HTTP error envelope.
func (r httpResult) errorBody(t *testing.T) map[string]string {
	t.Helper()
	var env struct {
		Error map[string]string `json:"error"`
	}
	if err := json.Unmarshal(r.Body, &env); err != nil {
		t.Fatalf("error body is not JSON: %v\n%s", err, r.Body)
	}
	return env.Error
}

const toolsCallSchema = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"schema","arguments":{}}}`
const toolsList = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`

// post sends body to /mcp with optional Authorization and extra headers.
func post(t *testing.T, base, auth, body string, hdr map[string]string) httpResult {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	return httpResult{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// rsRequestsWith lists "METHOD path" of every RS request carrying bearer.
func rsRequestsWith(rs *testenv.RS, bearer string) []string {
	var out []string
	for _, r := range rs.Server.Requests() {
		if r.Bearer == bearer {
			out = append(out, r.Method+" "+r.Path)
		}
	}
	return out
}

// issuer mints test JWTs with an RSA key (published by a JWKS server), an
// ECDSA key (also in the JWKS) and an HMAC secret (configured directly).
type issuer struct {
	iss      string
	rsa      *rsa.PrivateKey
	ec       *ecdsa.PrivateKey
	hmac     []byte
	jwksURL  string
	jwksHits atomic.Int64
	jwksDown atomic.Bool
	rogue    *rsa.PrivateKey
}

var (
	keysOnce   sync.Once
	sharedRSA  *rsa.PrivateKey
	sharedEC   *ecdsa.PrivateKey
	sharedRSA2 *rsa.PrivateKey
)

// testKeys are generated once per test binary: RSA generation is slow.
func testKeys(t *testing.T) (*rsa.PrivateKey, *ecdsa.PrivateKey, *rsa.PrivateKey) {
	keysOnce.Do(func() {
		var err error
		if sharedRSA, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			panic(err)
		}
		if sharedRSA2, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			panic(err)
		}
		if sharedEC, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
			panic(err)
		}
	})
	return sharedRSA, sharedEC, sharedRSA2
}

func newIssuer(t *testing.T) *issuer {
	t.Helper()
	r, e, r2 := testKeys(t)
	is := &issuer{iss: "https://as.example.test", rsa: r, ec: e, rogue: r2, hmac: []byte("0123456789abcdef0123456789abcdef-hmac")}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		is.jwksHits.Add(1)
		if is.jwksDown.Load() {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(is.jwks())
	}))
	t.Cleanup(hs.Close)
	is.jwksURL = hs.URL + "/jwks.json"
	return is
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// jwks publishes the RSA and EC public keys.
func (is *issuer) jwks() []byte {
	x, y := make([]byte, 32), make([]byte, 32)
	is.ec.X.FillBytes(x)
	is.ec.Y.FillBytes(y)
	doc := map[string]any{"keys": []map[string]string{
		{"kty": "RSA", "kid": "rsa1", "use": "sig", "n": b64(is.rsa.N.Bytes()), "e": b64(big.NewInt(int64(is.rsa.E)).Bytes())},
		{"kty": "EC", "kid": "ec1", "crv": "P-256", "x": b64(x), "y": b64(y)},
	}}
	b, _ := json.Marshal(doc)
	return b
}

// hmacKeys is the configured-keys JWKS holding the HMAC secret.
func (is *issuer) hmacKeys(t *testing.T) []bearerauth.VerificationKey {
	t.Helper()
	doc, _ := json.Marshal(map[string]any{"keys": []map[string]string{{"kty": "oct", "kid": "hs1", "k": b64(is.hmac)}}})
	keys, err := bearerauth.ParseKeySet(doc)
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// claims are the defaults of a valid client access token at now.
func (is *issuer) claims(now time.Time) jwt.MapClaims {
	return jwt.MapClaims{
		"iss": is.iss, "aud": publicURL + "/mcp", "sub": "user-1", "client_id": "cli_test",
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(10 * time.Minute).Unix(),
		"pdpp_token_kind": "client", "scope": "read",
	}
}

// sign mints a token; alg picks the key (RS256 → rsa1, ES256 → ec1,
// HS256 → hs1, "rogue" → RS256 with an unpublished key claiming kid rsa1,
// "none" → unsigned).
func (is *issuer) sign(t *testing.T, alg string, c jwt.MapClaims) string {
	t.Helper()
	var tok *jwt.Token
	var key any
	switch alg {
	case "RS256":
		tok, key = jwt.NewWithClaims(jwt.SigningMethodRS256, c), is.rsa
		tok.Header["kid"] = "rsa1"
	case "rogue":
		tok, key = jwt.NewWithClaims(jwt.SigningMethodRS256, c), is.rogue
		tok.Header["kid"] = "rsa1"
	case "ES256":
		tok, key = jwt.NewWithClaims(jwt.SigningMethodES256, c), is.ec
		tok.Header["kid"] = "ec1"
	case "HS256":
		tok, key = jwt.NewWithClaims(jwt.SigningMethodHS256, c), is.hmac
		tok.Header["kid"] = "hs1"
	case "none":
		tok, key = jwt.NewWithClaims(jwt.SigningMethodNone, c), jwt.UnsafeAllowNoneSignatureType
	default:
		t.Fatalf("unknown alg %s", alg)
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// with returns a copy of c with changes applied (nil deletes).
func with(c jwt.MapClaims, changes map[string]any) jwt.MapClaims {
	out := jwt.MapClaims{}
	for k, v := range c {
		out[k] = v
	}
	for k, v := range changes {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}

// introspection is an RFC 7662 endpoint over a token → response table. It
// requires HTTP Basic cli_mcp:s3cret and records every token it was asked.
type introspection struct {
	url    string
	mu     sync.Mutex
	asked  []string
	table  map[string]map[string]any
	failed atomic.Bool
}

func newIntrospection(t *testing.T, table map[string]map[string]any) *introspection {
	t.Helper()
	in := &introspection{table: table}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, secret, ok := r.BasicAuth()
		if r.Method != http.MethodPost || !ok || id != "cli_mcp" || secret != "s3cret" ||
			r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
			http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
			return
		}
		if in.failed.Load() {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		tok := r.PostFormValue("token")
		in.mu.Lock()
		in.asked = append(in.asked, tok)
		in.mu.Unlock()
		resp, ok := in.table[tok]
		if !ok {
			resp = map[string]any{"active": false}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(hs.Close)
	in.url = hs.URL + "/introspect"
	return in
}

func (in *introspection) count(tok string) int {
	in.mu.Lock()
	defer in.mu.Unlock()
	n := 0
	for _, a := range in.asked {
		if a == tok {
			n++
		}
	}
	return n
}

// callTool sends one tools/call through the adapter's JSON-RPC entry point,
// as a stdio transport would.
func callTool(t *testing.T, a *adapter.Server, name string, args map[string]any) {
	t.Helper()
	req, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": args}})
	if err != nil {
		t.Fatal(err)
	}
	if resp := a.MCP().HandleMessage(t.Context(), req); resp == nil {
		t.Fatalf("tools/call %s: no response", name)
	}
}
