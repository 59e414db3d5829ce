package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/pdpp/pdpp-mcp/internal/regularfile"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/bearerauth"
	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

// runServe is the hosted Streamable HTTP server. With --metrics-addr the
// Prometheus metrics get a listener of their own (for a cluster-internal
// port) and the public port does not serve /metrics.
func runServe(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) int {
	f, code, ok := parseServeFlags(args, env, stdout, stderr)
	if !ok {
		return code
	}
	logger := f.logger
	f.cfg.Logger = logger
	if f.cfg.CursorKey == nil {
		logger.Warn("no cursor secret configured (PDPP_MCP_CURSOR_SECRET or PDPP_MCP_CURSOR_SECRET_FILE): continuation cursors are signed with a per-process key and stop working across replicas and restarts")
	}
	var metricsSrv *startedServer
	if f.metricsAddr != "" {
		f.cfg.Metrics = hosted.NewMetrics()
		f.cfg.SeparateMetrics = true
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", f.cfg.Metrics.Handler())
		var err error
		if metricsSrv, err = startHTTP(f.metricsAddr, mux); err != nil {
			fmt.Fprintf(stderr, "pdpp-mcp serve: metrics: %v\n", err)
			return exitFailure
		}
	}
	handler, err := newHostedHandler(f.cfg)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp serve: %v\n", err)
		if errors.As(err, new(configError)) {
			return exitConfig
		}
		return exitUsage
	}
	if f.cfg.SignIn.Configured() {
		logger.Info("header-free sign-in front", "selection", f.cfg.SignIn.Describe())
	}
	srv, err := startHTTP(f.addr, handler)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp serve: %v\n", err)
		return exitFailure
	}
	ready := serveReady{MCPURL: srv.URL + "/mcp", RSURL: f.cfg.RSURL}
	attrs := []any{"addr", srv.URL, "rs", f.cfg.RSURL, "version", appVersion()}
	if metricsSrv != nil {
		ready.MetricsURL = metricsSrv.URL + "/metrics"
		attrs = append(attrs, "metrics_addr", metricsSrv.URL)
	}
	line, _ := json.Marshal(ready)
	fmt.Fprintln(stdout, string(line))
	logger.Info("serving", attrs...)
	// SIGTERM (or Ctrl-C) cancels ctx: say so, and how long the drain may
	// take, so an operator reading the logs sees why requests stop. Logged
	// on this goroutine, before the drain: nothing writes after return.
	srv.onShutdown = func() {
		logger.Info("shutting down: no new connections, draining in-flight requests", "drain", f.shutdownTimeout.String())
	}
	err = srv.waitAndShutdownWithin(ctx, f.shutdownTimeout)
	if metricsSrv != nil {
		// The metrics listener outlives the drain so the last scrape sees it.
		stopped, cancel := context.WithCancel(context.Background())
		cancel()
		err = errors.Join(err, metricsSrv.waitAndShutdownWithin(stopped, time.Second))
	}
	if err != nil {
		logger.Error("stopped with an error", "err", err.Error())
		return exitFailure
	}
	logger.Info("stopped")
	return exitOK
}

// serveReady is the one JSON line `serve` prints on stdout once it
// listens, for scripts and tests (the shape of `demo --json`'s URLs);
// everything else serve says is a log record on stderr.
type serveReady struct {
	MCPURL     string `json:"mcp_url"`
	RSURL      string `json:"rs_url"`
	MetricsURL string `json:"metrics_url,omitempty"`
}

// hostedConfig is everything the hosted adapter needs; serve and demo
// both build one. New options get zero-value defaults.
type hostedConfig struct {
	RSURL          string
	ServerName     string
	PublicURL      string
	AllowedOrigins []string
	CursorKey      *contentladder.CursorKey
	Logger         *slog.Logger
	// TrustedProxies may set X-Forwarded-Proto/Host; default none.
	TrustedProxies []netip.Prefix
	// AuthorizationServers for the RFC 9728 metadata; default the RS's.
	AuthorizationServers []string
	// MaxBodyBytes caps /mcp request bodies; default 1 MiB.
	MaxBodyBytes int64
	// MaxResultBytes is the adapter's result ceiling; zero: its default.
	MaxResultBytes int
	// Auth selects JWT / introspection; zero = the RS schema probe.
	Auth bearerauth.Options
	// Metrics is the registry to record into; nil makes a fresh one.
	Metrics *hosted.Metrics
	// SeparateMetrics: the caller serves Metrics on a listener of its own,
	// so the hosted handler does not mount /metrics.
	SeparateMetrics bool
	// Limits are the verification rate and the RS byte budget; zero
	// values take the packages' defaults.
	Limits limits
	// LocalStdio is the demo's working stdio setup, shown by the setup
	// pages instead of the production steps; nil for serve.
	LocalStdio *hosted.LocalStdio
	// SignIn is the operator's source selection for the header-free
	// sign-in front; unset: no front, the RS's AS is advertised.
	SignIn hosted.SignInSelection
	// Waits bounds the reads that only refine a page; zero: defaults.
	Waits adapter.Waits
	// MaxRefiningReads bounds those reads in flight at once; zero: the
	// adapter's default.
	MaxRefiningReads int
}

// newHostedHandler builds the hosted adapter for one RS.
func newHostedHandler(cfg hostedConfig) (http.Handler, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	metrics := cfg.Metrics
	if metrics == nil {
		metrics = hosted.NewMetrics()
	}
	rs, err := rsclient.New(rsclient.Config{BaseURL: cfg.RSURL, Logger: cfg.Logger, UserAgent: "pdpp-mcp/" + appVersion(),
		Transport: metrics.Transport(nil), MaxBytesInFlight: cfg.Limits.MaxRSBytesInFlight})
	if err != nil {
		return nil, err
	}
	a, err := adapter.New(adapter.Config{RS: rs, ServerName: cfg.ServerName, Version: appVersion(), CursorKey: cfg.CursorKey,
		Logger: cfg.Logger, Observer: metrics, Waits: cfg.Waits, MaxResultBytes: cfg.MaxResultBytes,
		MaxRefiningReads: cfg.MaxRefiningReads})
	if err != nil {
		return nil, err
	}
	metrics.SetBuildInfo(appVersion())
	var signIn *hosted.SignIn
	if cfg.SignIn.Configured() {
		// Checked before anything listens: a front that cannot reach or
		// use the RS's AS would publish metadata no host can follow.
		if signIn, err = hosted.DiscoverSignIn(context.Background(), a, cfg.SignIn, nil); err != nil {
			return nil, configError{err}
		}
	}
	return hosted.New(a, hosted.Options{
		SignIn:               signIn,
		PublicURL:            cfg.PublicURL,
		AllowedOrigins:       cfg.AllowedOrigins,
		TrustedProxies:       cfg.TrustedProxies,
		MaxBodyBytes:         cfg.MaxBodyBytes,
		VerifyRate:           cfg.Limits.VerifyRate,
		VerifyBurst:          cfg.Limits.VerifyBurst,
		VerifyIPv6Prefix:     cfg.Limits.VerifyIPv6Prefix,
		AuthorizationServers: cfg.AuthorizationServers,
		Auth:                 cfg.Auth,
		Metrics:              metrics,
		LocalStdio:           cfg.LocalStdio,
		// With --metrics-addr, /metrics lives on its own listener only.
		MetricsServedElsewhere: cfg.SeparateMetrics,
		Logger:                 cfg.Logger,
	}), nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

const serveUsage = `usage: pdpp-mcp serve --provider-url URL [flags]

Serves the PDPP MCP tools over stateless Streamable HTTP at /mcp. Every
request needs a grant-scoped client bearer; owner and control-plane tokens
get 403. Token kinds come from verified JWT claims (--jwt-*), RFC 7662
introspection (--introspection-*), or else the RS schema.

Each flag also comes from the environment variable shown; a flag on the
command line wins over the variable, the variable over the default.

Secrets come only from the environment, each directly or as a file:
  PDPP_MCP_CURSOR_SECRET or PDPP_MCP_CURSOR_SECRET_FILE
      at least 32 random bytes, the same on every replica (without one,
      continuation cursors only work on the replica that issued them)
  PDPP_MCP_INTROSPECTION_CLIENT_SECRET or PDPP_MCP_INTROSPECTION_CLIENT_SECRET_FILE

flags:
`

// defaultShutdownTimeout is how long in-flight requests get to finish
// after SIGTERM. Kubernetes' terminationGracePeriodSeconds must exceed the
// preStop sleep plus this (deploy/ checks its manifests against it).
const defaultShutdownTimeout = 10 * time.Second

// serveFlags is the parsed serve configuration.
type serveFlags struct {
	addr            string
	metricsAddr     string
	shutdownTimeout time.Duration
	logger          *slog.Logger
	cfg             hostedConfig
}

// serveFlagValues are the serve flags as given (flag, else environment,
// else default), before any of them is checked.
type serveFlagValues struct {
	providerURL, addr, metricsAddr, shutdown, publicURL string
	origins, proxies, asServers, serverName             string
	maxBody, maxResult                                  string
	jwtIssuer, jwtAudience, jwtKeys, jwksURL            string
	introURL, introID                                   string
	signInDetails, signInConnector                      string
	logs                                                logFlags
	lims                                                limitFlags
	waits, refiningReads                                *string
	showVersion                                         bool
}

// defineServeFlags registers every serve flag on fs. Each string flag
// defaults to its environment variable, which its help text names.
func defineServeFlags(fs *flag.FlagSet, env func(string) string) *serveFlagValues {
	v := &serveFlagValues{}
	str := func(dst *string, name, envKey, def, usage string) {
		fs.StringVar(dst, name, envOr(env, envKey, def), usage+" ("+envKey+")")
	}
	str(&v.providerURL, "provider-url", "PDPP_PROVIDER_URL", "", "PDPP resource server origin")
	str(&v.addr, "addr", "PDPP_MCP_ADDR", "127.0.0.1:7670", "listen address HOST:PORT")
	str(&v.metricsAddr, "metrics-addr", "PDPP_MCP_METRICS_ADDR", "", "serve /metrics on this HOST:PORT only (default: /metrics on --addr)")
	str(&v.shutdown, "shutdown-timeout", "PDPP_MCP_SHUTDOWN_TIMEOUT", defaultShutdownTimeout.String(), "how long in-flight requests may finish after SIGTERM")
	str(&v.publicURL, "public-url", "PDPP_MCP_PUBLIC_URL", "", "public origin clients use, e.g. https://mcp.example.com (default: a trusted proxy's X-Forwarded-Host, else the listen address; never the Host header)")
	str(&v.origins, "allowed-origins", "PDPP_MCP_ALLOWED_ORIGINS", "", "comma-separated browser origins allowed besides the public origin")
	str(&v.proxies, "trusted-proxies", "PDPP_MCP_TRUSTED_PROXIES", "", "comma-separated proxy CIDRs/IPs whose X-Forwarded-Proto/Host are trusted (default none)")
	str(&v.asServers, "authorization-servers", "PDPP_MCP_AUTHORIZATION_SERVERS", "", "comma-separated authorization servers to advertise (default: the RS's)")
	str(&v.serverName, "server-name", "PDPP_MCP_SERVER_NAME", adapter.DefaultServerName, "serverInfo name")
	str(&v.maxBody, "max-body-bytes", "PDPP_MCP_MAX_BODY_BYTES", "", "cap on /mcp request bodies in bytes (default 1 MiB)")
	str(&v.jwtIssuer, "jwt-issuer", "PDPP_MCP_JWT_ISSUER", "", "verify JWT access tokens from this issuer")
	str(&v.jwtAudience, "jwt-audience", "PDPP_MCP_JWT_AUDIENCE", "", "required JWT aud (default <public-url>/mcp)")
	str(&v.jwtKeys, "jwt-keys", "PDPP_MCP_JWT_KEYS", "", "file with verification keys (JWKS JSON or PEM public keys)")
	str(&v.jwksURL, "jwks-url", "PDPP_MCP_JWKS_URL", "", "JWKS URL of the issuer (fetched and cached)")
	str(&v.introURL, "introspection-url", "PDPP_MCP_INTROSPECTION_URL", "", "RFC 7662 introspection endpoint for opaque tokens")
	str(&v.introID, "introspection-client-id", "PDPP_MCP_INTROSPECTION_CLIENT_ID", "", "client id for introspection (secret: PDPP_MCP_INTROSPECTION_CLIENT_SECRET[_FILE])")
	str(&v.signInDetails, "sign-in-details", "PDPP_MCP_SIGN_IN_DETAILS", "", "JSON file of authorization_details a header-free sign-in asks the RS's authorization server for (enables the sign-in front)")
	str(&v.signInConnector, "sign-in-connector", "PDPP_MCP_SIGN_IN_CONNECTOR", "", "connector_id a header-free sign-in asks for (one connection of that connector only; enables the sign-in front)")
	v.logs = addLogFlags(fs, env, "info", "json")
	v.lims = addLimitFlags(fs, env)
	v.waits = addWaitFlag(fs, env)
	addMaxResultFlag(fs, env, &v.maxResult)
	v.refiningReads = addRefiningReadsFlag(fs, env)
	fs.BoolVar(&v.showVersion, "version", false, "print the version and exit")
	return v
}

// configError marks a validation failure that is a configuration error
// (exit 78: an unusable secret) rather than a usage error (exit 64).
type configError struct{ err error }

func (e configError) Error() string { return e.err.Error() }

// parseServeFlags reads flags (which beat env) and validates them. A bad
// flag is a usage error (64); an unusable secret a configuration error
// (78). Either happens before anything listens.
func parseServeFlags(args []string, env func(string) string, stdout, stderr io.Writer) (serveFlags, int, bool) {
	fs := flag.NewFlagSet("pdpp-mcp serve", flag.ContinueOnError)
	v := defineServeFlags(fs, env)
	if code, ok := parseFlags(fs, serveUsage, args, stdout, stderr); !ok {
		return serveFlags{}, code, false
	}
	if v.showVersion {
		fmt.Fprintln(stdout, appVersion())
		return serveFlags{}, exitOK, false
	}
	f, err := v.validate(env, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp serve: %v\n", err)
		if errors.As(err, new(configError)) {
			return serveFlags{}, exitConfig, false
		}
		return serveFlags{}, exitUsage, false
	}
	return f, exitOK, true
}

// validate checks the flags in the order their errors are reported and
// builds the serve configuration; the logger writes to stderr.
func (v *serveFlagValues) validate(env func(string) string, stderr io.Writer) (serveFlags, error) {
	var f serveFlags
	var err error
	if f.logger, err = v.logs.logger(stderr); err != nil {
		return f, err
	}
	if f.shutdownTimeout, err = time.ParseDuration(v.shutdown); err != nil || f.shutdownTimeout <= 0 {
		return f, fmt.Errorf("--shutdown-timeout %q: want a positive duration such as 10s", v.shutdown)
	}
	if v.metricsAddr != "" && v.metricsAddr == v.addr {
		return f, errors.New("--metrics-addr must differ from --addr")
	}
	f.addr, f.metricsAddr = v.addr, v.metricsAddr
	f.cfg, err = v.hostedConfig(env)
	return f, err
}

// hostedConfig checks the flags that configure the hosted adapter itself:
// the RS, request limits, origins and proxies, the cursor secret and the
// bearer verification.
func (v *serveFlagValues) hostedConfig(env func(string) string) (hostedConfig, error) {
	norm, err := v.normalizedProviderURL()
	if err != nil {
		return hostedConfig{}, err
	}
	maxBody, err := strconv.ParseInt(orZero(v.maxBody), 10, 64)
	if err != nil || maxBody < 0 {
		return hostedConfig{}, fmt.Errorf("--max-body-bytes %q: want a non-negative number of bytes", v.maxBody)
	}
	cfg := hostedConfig{RSURL: norm, ServerName: v.serverName, AllowedOrigins: splitList(v.origins),
		AuthorizationServers: splitList(v.asServers), MaxBodyBytes: maxBody}
	if cfg.MaxResultBytes, err = parseMaxResultBytes(v.maxResult); err != nil {
		return cfg, err
	}
	if cfg.Limits, err = v.lims.parse(); err != nil {
		return cfg, err
	}
	if cfg.Waits, err = parseWaits(*v.waits); err != nil {
		return cfg, err
	}
	if cfg.MaxRefiningReads, err = parseRefiningReads(*v.refiningReads); err != nil {
		return cfg, err
	}
	if cfg.PublicURL, err = v.checkedOrigins(cfg.AllowedOrigins); err != nil {
		return cfg, err
	}
	if cfg.TrustedProxies, err = parsePrefixes(v.proxies); err != nil {
		return cfg, fmt.Errorf("--trusted-proxies: %v", err)
	}
	if cfg.CursorKey, err = cursorKeyFromEnv(env); err != nil {
		return cfg, err
	}
	if cfg.Auth.JWT, err = v.jwtOptions(cfg.PublicURL); err != nil {
		return cfg, err
	}
	if cfg.Auth.Introspection, err = v.introspectionOptions(env); err != nil {
		return cfg, err
	}
	cfg.SignIn, err = v.signInSelection()
	return cfg, err
}

// signInSelection reads --sign-in-details / --sign-in-connector; the zero
// selection when neither is set.
func (v *serveFlagValues) signInSelection() (hosted.SignInSelection, error) {
	sel := hosted.SignInSelection{ConnectorID: strings.TrimSpace(v.signInConnector)}
	if v.signInDetails != "" {
		b, err := readBounded(v.signInDetails, 4*hosted.MaxAuthorizationDetailsBytes)
		if err != nil {
			return sel, fmt.Errorf("--sign-in-details: %v", err)
		}
		if sel.AuthorizationDetails, err = hosted.ParseAuthorizationDetails(b); err != nil {
			return sel, fmt.Errorf("--sign-in-details %s: %v", v.signInDetails, err)
		}
	}
	if !sel.Configured() {
		return sel, nil
	}
	if err := sel.Validate(); err != nil {
		return sel, fmt.Errorf("--sign-in-details / --sign-in-connector: %v", err)
	}
	return sel, nil
}

// normalizedProviderURL is the required --provider-url in canonical form.
func (v *serveFlagValues) normalizedProviderURL() (string, error) {
	return providerURLFromFlag(v.providerURL)
}

// checkedOrigins validates --public-url (returned as an origin, "" when
// unset) and then every --allowed-origins entry.
func (v *serveFlagValues) checkedOrigins(allowed []string) (string, error) {
	var public string
	if v.publicURL != "" {
		var err error
		if public, err = originOnly(v.publicURL); err != nil {
			return "", fmt.Errorf("--public-url: %v", err)
		}
	}
	for _, o := range allowed {
		if _, err := originOnly(o); err != nil {
			return "", fmt.Errorf("--allowed-origins %q: %v", o, err)
		}
	}
	return public, nil
}

// cursorKeyFromEnv derives the cursor signing key from
// PDPP_MCP_CURSOR_SECRET[_FILE]; nil when neither is set. Every failure
// is a configuration error.
func cursorKeyFromEnv(env func(string) string) (*contentladder.CursorKey, error) {
	secret, source, err := secretFromEnv(env, "PDPP_MCP_CURSOR_SECRET")
	if err != nil {
		return nil, configError{err}
	}
	if source == "" {
		return nil, nil
	}
	key, err := cursorKeyFromSecret(secret, source)
	if err != nil {
		return nil, configError{err}
	}
	return key, nil
}

// jwtOptions is the JWT verification the --jwt-*/--jwks-url flags ask
// for, nil when none is set.
func (v *serveFlagValues) jwtOptions(publicURL string) (*bearerauth.JWTOptions, error) {
	if v.jwtIssuer == "" && v.jwtKeys == "" && v.jwksURL == "" {
		return nil, nil
	}
	if err := v.checkJWTFlagsTogether(publicURL); err != nil {
		return nil, err
	}
	jo := &bearerauth.JWTOptions{Issuer: v.jwtIssuer, Audience: v.jwtAudience, JWKSURL: v.jwksURL}
	if v.jwksURL != "" {
		if err := checkAuthorityURL(v.jwksURL); err != nil {
			return nil, fmt.Errorf("--jwks-url: %v", err)
		}
	}
	if v.jwtKeys != "" {
		var err error
		if jo.Keys, err = loadKeyFile(v.jwtKeys); err != nil {
			return nil, err
		}
	}
	return jo, nil
}

// checkJWTFlagsTogether requires the JWT flags that only work together:
// an issuer, a source of keys, and an audience that is configured rather
// than taken from request headers.
func (v *serveFlagValues) checkJWTFlagsTogether(publicURL string) error {
	switch {
	case v.jwtIssuer == "":
		return errors.New("--jwt-keys/--jwks-url need --jwt-issuer")
	case v.jwtKeys == "" && v.jwksURL == "":
		return errors.New("--jwt-issuer needs --jwt-keys or --jwks-url")
	case v.jwtAudience == "" && publicURL == "":
		return errors.New("--jwt-issuer needs --public-url (or --jwt-audience): the audience must not come from request headers")
	}
	return nil
}

// loadKeyFile reads and parses the --jwt-keys file (JWKS JSON or PEM).
func loadKeyFile(path string) ([]bearerauth.VerificationKey, error) {
	raw, err := readBounded(path, 256<<10)
	if err != nil {
		return nil, fmt.Errorf("--jwt-keys: %v", err)
	}
	keys, err := bearerauth.ParseKeySet(raw)
	if err != nil {
		return nil, fmt.Errorf("--jwt-keys %s: %v", path, err)
	}
	return keys, nil
}

// introspectionOptions is the RFC 7662 introspection --introspection-url
// asks for, nil without one. The client id and secret come together or
// not at all; a broken secret variable is a configuration error.
func (v *serveFlagValues) introspectionOptions(env func(string) string) (*bearerauth.IntrospectionOptions, error) {
	if v.introURL == "" {
		return nil, nil
	}
	if err := checkAuthorityURL(v.introURL); err != nil {
		return nil, fmt.Errorf("--introspection-url: %v", err)
	}
	secret, _, err := secretFromEnv(env, "PDPP_MCP_INTROSPECTION_CLIENT_SECRET")
	if err != nil {
		return nil, configError{err}
	}
	if (v.introID == "") != (secret == "") {
		return nil, errors.New("introspection needs both --introspection-client-id and PDPP_MCP_INTROSPECTION_CLIENT_SECRET[_FILE], or neither")
	}
	return &bearerauth.IntrospectionOptions{URL: v.introURL, ClientID: v.introID, ClientSecret: secret}, nil
}

// originOnly validates an http(s) origin (no path beyond "/", no query,
// no userinfo) and returns it without a trailing slash.
func originOnly(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", errors.New("want http(s)://host[:port]")
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" || strings.Trim(u.Path, "/") != "" {
		return "", errors.New("want an origin only: no path, query, fragment or credentials")
	}
	return u.Scheme + "://" + u.Host, nil
}

// checkAuthorityURL requires https for JWKS and introspection endpoints,
// except on loopback (local development and tests): keys and tokens must
// not travel in clear text across a network.
func checkAuthorityURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil {
		return errors.New("want an absolute http(s) URL without credentials")
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		h := u.Hostname()
		if ip, err := netip.ParseAddr(h); (err == nil && ip.IsLoopback()) || strings.EqualFold(h, "localhost") {
			return nil
		}
		return errors.New("http is only allowed on loopback; use https")
	}
	return errors.New("want an http(s) URL")
}

// parsePrefixes reads comma-separated CIDRs or bare IPs.
func parsePrefixes(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, p := range splitList(s) {
		if strings.Contains(p, "/") {
			pr, err := netip.ParsePrefix(p)
			if err != nil {
				return nil, fmt.Errorf("%q is not a CIDR", p)
			}
			out = append(out, pr.Masked())
			continue
		}
		ip, err := netip.ParseAddr(p)
		if err != nil {
			return nil, fmt.Errorf("%q is not an IP or CIDR", p)
		}
		out = append(out, netip.PrefixFrom(ip, ip.BitLen()))
	}
	return out, nil
}

// readBounded reads a small configuration file.
func readBounded(path string, max int64) ([]byte, error) {
	fh, _, err := regularfile.Open(path, "file") // a FIFO never blocks start-up
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("larger than %d bytes", max)
	}
	return b, nil
}
