package bearerauth

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// IntrospectionOptions configures RFC 7662 token introspection.
type IntrospectionOptions struct {
	// URL is the introspection endpoint.
	URL string
	// ClientID and ClientSecret authenticate the adapter to it with HTTP
	// Basic (RFC 6749 §2.3.1 form-encoding); empty sends no credentials.
	ClientID, ClientSecret string
}

const (
	introspectionTimeout  = 5 * time.Second
	maxIntrospectionBytes = 64 << 10
)

type introspector struct {
	opts IntrospectionOptions
	hc   *http.Client
	now  func() time.Time
}

func newIntrospector(opts IntrospectionOptions, hc *http.Client, now func() time.Time) *introspector {
	return &introspector{opts: opts, hc: hc, now: now}
}

// introspectionResponse is the subset of RFC 7662 §2.2 the adapter reads.
type introspectionResponse struct {
	Active bool    `json:"active"`
	Exp    float64 `json:"exp"`
	kindClaims
}

// introspect asks the endpoint about token. Inactive → invalid (401);
// active with a kind → that kind's verdict; active without one → unknown
// (the RS decides). Transport or protocol failures → ErrUnavailable.
func (in *introspector) introspect(ctx context.Context, token string) (decision, error) {
	ctx, cancel := context.WithTimeout(ctx, introspectionTimeout)
	defer cancel()
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, in.opts.URL, strings.NewReader(form.Encode()))
	if err != nil {
		return decision{}, ErrUnavailable
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if in.opts.ClientID != "" {
		req.SetBasicAuth(url.QueryEscape(in.opts.ClientID), url.QueryEscape(in.opts.ClientSecret))
	}
	resp, err := in.hc.Do(req)
	if err != nil {
		// err may quote the URL (never the token, which is in the body),
		// but callers only see ErrUnavailable.
		return decision{}, ErrUnavailable
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return decision{}, ErrUnavailable
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxIntrospectionBytes+1))
	if err != nil || len(body) > maxIntrospectionBytes {
		return decision{}, ErrUnavailable
	}
	var ir introspectionResponse
	if err := json.Unmarshal(body, &ir); err != nil {
		return decision{}, ErrUnavailable
	}
	if !ir.Active {
		return decision{verdict: VerdictInvalid}, nil
	}
	d := decision{verdict: claimedKind(ir.kindClaims)}
	if ir.Exp > 0 {
		d.expires = time.Unix(int64(ir.Exp), 0)
		if !in.now().Before(d.expires) {
			// An endpoint that calls an expired token active is wrong;
			// trust the expiry it reported.
			return decision{verdict: VerdictInvalid}, nil
		}
	}
	return d, nil
}
