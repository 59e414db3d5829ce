package ritest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// maxResponse bounds every RI answer the harness reads.
const maxResponse = 16 << 20

// httpc is the harness's HTTP client for the RI: it never follows
// redirects (the OAuth steps read Location), bounds every answer, and
// fails on any status the caller did not expect.
type httpc struct{ hc *http.Client }

func newHTTPC() httpc {
	return httpc{hc: &http.Client{
		Timeout:       60 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// reply is one answer of the RI.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// request is one call: a form, a JSON body or raw bytes, an optional bearer.
type request struct {
	method, url string
	form        url.Values
	json        any
	raw         []byte
	contentType string
	bearer      string
	accept      string
}

func (c httpc) do(ctx context.Context, r request, want ...int) (reply, error) {
	var body io.Reader
	ctype := r.contentType
	switch {
	case r.form != nil:
		body, ctype = strings.NewReader(r.form.Encode()), "application/x-www-form-urlencoded"
	case r.json != nil:
		raw, err := json.Marshal(r.json)
		if err != nil {
			return reply{}, err
		}
		body, ctype = bytes.NewReader(raw), "application/json"
	case r.raw != nil:
		body = bytes.NewReader(r.raw)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, r.url, body)
	if err != nil {
		return reply{}, err
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if r.bearer != "" {
		req.Header.Set("Authorization", "Bearer "+r.bearer)
	}
	if r.accept != "" {
		req.Header.Set("Accept", r.accept)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return reply{}, fmt.Errorf("%s %s: %w", r.method, redact(r.url), err)
	}
	out := reply{status: resp.StatusCode, header: resp.Header, body: raw}
	if len(want) > 0 && !slices.Contains(want, resp.StatusCode) {
		return out, fmt.Errorf("%s %s: HTTP %d, want %v: %.500s", r.method, redact(r.url), resp.StatusCode, want, raw)
	}
	return out, nil
}

// doJSON is do with the answer decoded into out.
func (c httpc) doJSON(ctx context.Context, r request, out any, want ...int) error {
	rep, err := c.do(ctx, r, want...)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(rep.body, out); err != nil {
		return fmt.Errorf("%s %s: %w: %.300s", r.method, redact(r.url), err, rep.body)
	}
	return nil
}

// redact drops the query of a URL for an error message: the OAuth steps
// carry codes and refresh tokens there.
func redact(raw string) string {
	if i := strings.IndexByte(raw, '?'); i >= 0 {
		return raw[:i] + "?…"
	}
	return raw
}
