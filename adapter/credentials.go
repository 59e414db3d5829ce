package adapter

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/pdpp/pdpp-mcp/internal/softcache"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

// CodeCredentialExpired is the typed code of a call (or a grant's warning)
// whose credential expired or was refused by the RS and could not be
// replaced from the credential cache.
const CodeCredentialExpired = "credential_expired"

// reloadInterval bounds how often an unchanged credential cache is re-read:
// a burst of calls with a dead token reads the file once. A changed file
// (another Stamp) is read at once, still once for a burst.
const reloadInterval = time.Second

// MaxGrants caps the grants of one stdio session: every call reads each
// grant's schema (and search asks each grant), so a credential cache of
// thousands of grants would cost thousands of RS requests per call.
const MaxGrants = 64

// refusedBackoff is how long a grant whose token the RS refused is not
// asked again: a cache full of dead tokens would otherwise cost one RS
// request per dead token on every call. A changed credential cache (new
// tokens, new keys) is read at once as always.
const refusedBackoff = time.Minute

// checkGrantCount refuses a credential cache with more than MaxGrants
// grants, saying what to do.
func checkGrantCount(n int) error {
	if n > MaxGrants {
		return fmt.Errorf("the credential cache holds %d grants; a session serves at most %d (every call reads each grant): remove the grants you no longer use from the cache", n, MaxGrants)
	}
	return nil
}

// credentialSet is the stdio adapter's current grants and how to renew
// them. Without a reload function the set is fixed.
type credentialSet struct {
	mu     sync.Mutex
	grants []Grant
	// load re-reads the credential cache; nil when there is none.
	load func() ([]Grant, error)
	// reconnect is the command that issues fresh credentials.
	reconnect string
	// stamp names the cache file's current state (nil: not watched).
	stamp func() string
	// adopted is the stamp the current grants were read at; "" before the
	// first re-read (the start-up grants were read at an unknown stamp).
	adopted string
	// reads shares and rate-limits re-reads of the cache, keyed by stamp:
	// one read per file state and reloadInterval.
	reads *softcache.Cache[[]Grant]
	// lastErr is the last re-read's failure, shown in credential_expired.
	lastErr string
	// refused holds, per token key, until when the RS's refusal of that
	// token stands: it is not asked again before then.
	refusals map[string]time.Time
	now      func() time.Time
}

func newCredentialSet(grants []Grant, load func() ([]Grant, error), stamp func() string, reconnect string, now func() time.Time) *credentialSet {
	if now == nil {
		now = time.Now
	}
	c := &credentialSet{grants: grants, load: load, stamp: stamp, reconnect: reconnect, now: now, refusals: map[string]time.Time{},
		reads: softcache.New[[]Grant](softcache.Options{TTL: reloadInterval, ErrorTTL: reloadInterval, MaxEntries: 1, Now: now})}
	if load != nil && stamp != nil {
		c.adopted = stamp()
	}
	return c
}

func (c *credentialSet) current() []Grant {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.grants
}

// changed reports whether the cache file is no longer the one the current
// grants were read from: a `pdpp connect` wrote it since. One stat, no
// read.
func (c *credentialSet) changed() bool {
	if c.load == nil || c.stamp == nil {
		return false
	}
	s := c.stamp()
	c.mu.Lock()
	defer c.mu.Unlock()
	return s != c.adopted
}

// reload re-reads the credential cache and adopts what it holds; on
// failure the current grants stay. Calls that see the same file state
// share one read, repeated at most once per reloadInterval; a new state
// is read at once.
func (c *credentialSet) reload(ctx context.Context) []Grant {
	if c.load == nil {
		return c.current()
	}
	key := "cache"
	if c.stamp != nil {
		key = c.stamp()
	}
	grants, err := c.reads.Get(ctx, key, func(context.Context) ([]Grant, time.Time, error) {
		g, err := c.load()
		if err == nil {
			err = checkGrantCount(len(g))
		}
		return g, time.Time{}, err
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.lastErr = err.Error()
		return c.grants
	}
	c.lastErr = ""
	c.grants = grants
	if c.stamp != nil {
		c.adopted = key
	}
	return grants
}

// noteRefused records that the RS refused the token with key: it is left
// out of calls for refusedBackoff. Only keys of the current grants are
// kept, so the record never outgrows the set.
func (c *credentialSet) noteRefused(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	c.refusals[key] = now.Add(refusedBackoff)
	for k, until := range c.refusals {
		if !now.Before(until) || !slices.ContainsFunc(c.grants, func(g Grant) bool { return g.Key == k }) {
			delete(c.refusals, k)
		}
	}
}

// refusedUntil reports until when the RS's refusal of key stands, and
// whether it still does.
func (c *credentialSet) refusedUntil(key string) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	until, ok := c.refusals[key]
	return until, ok && c.now().Before(until)
}

// refused reports whether the RS's refusal of key still stands.
func (c *credentialSet) refused(key string) bool {
	_, ok := c.refusedUntil(key)
	return ok
}

// advice tells the user how to renew a credential.
func (c *credentialSet) advice() string {
	if c.reconnect == "" {
		return "renew the client's credential"
	}
	return fmt.Sprintf("run `%s` in any terminal; this session picks the new credential up without a restart", c.reconnect)
}

// expiredError is the typed error of a call no credential can serve.
func (c *credentialSet) expiredError() *toolError {
	c.mu.Lock()
	detail := c.lastErr
	c.mu.Unlock()
	msg := "the PDPP credential has expired or was refused by the resource server; " + c.advice()
	if detail != "" {
		msg += " (credential cache: " + detail + ")"
	}
	extras := []field{}
	if c.reconnect != "" {
		extras = append(extras, field{"command", c.reconnect})
	}
	return newAdapterError(CodeCredentialExpired, msg, extras...)
}

// credentialRefused reports whether the RS refused the call's bearer
// itself (rsclient.CredentialRefused: a 401 that is not a context.* grant
// error, or the real RS's 403 grant_expired for an expired access token).
func (e *toolError) credentialRefused() bool {
	return e != nil && e.RSEnvelope != nil && rsclient.CredentialRefused(e.Status, e.Code)
}

// afterRefusal handles a result whose bearer the RS refused. Hosted
// (req.Grant): the grant's cached schema (which vouched for the token's
// kind) is dropped and the transport told (req.CredentialRefused; the
// result may come from a read another request made, which told only that
// request), so it answers with an HTTP 401 challenge that makes the MCP
// client refresh its token instead of a tool result. Stdio: the credential
// cache is re-read and the call retried once when it holds other grants,
// else the result becomes a typed credential_expired naming the command
// that renews the credential.
func (s *Server) afterRefusal(ctx context.Context, req Request, res *mcp.CallToolResult, retry func() *mcp.CallToolResult) *mcp.CallToolResult {
	if !resultError(res).credentialRefused() {
		return res
	}
	if req.Grant != nil {
		s.schemas.forget(*req.Grant)
		req.credentialRefused()
		return res
	}
	before := s.creds.current()
	for _, g := range before {
		s.schemas.forget(g)
	}
	after := s.creds.reload(ctx)
	if !slices.EqualFunc(before, after, func(a, b Grant) bool { return a.Key == b.Key }) {
		res = retry()
		if !resultError(res).credentialRefused() {
			return res
		}
	}
	return errorResult(s.creds.expiredError())
}
