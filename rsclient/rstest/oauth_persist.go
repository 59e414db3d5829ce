package rstest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Persistence of the authorization server's state (Options.AuthStateFile),
// so a host's saved sign-in survives a restart of the demo: registered
// clients, refresh tokens (with their rotation state and what the sign-in
// selected), revoked sign-ins, and the access tokens it issued. Pending
// authorization codes live a minute and are not kept. The file holds live
// bearers: it is written 0600, atomically (a temporary file renamed over
// it), after every change.

// maxAuthStateBytes bounds the state file read at start-up.
const maxAuthStateBytes = 32 << 20

// authStateFile is the file's shape.
type authStateFile struct {
	Clients  []*persistedClient          `json:"clients"`
	Refresh  map[string]persistedRefresh `json:"refresh_tokens"`
	Revoked  []string                    `json:"revoked_sign_ins"`
	Tokens   map[string]persistedToken   `json:"access_tokens"`
	Packages map[string]string           `json:"package_tokens"`
}

type persistedClient struct {
	ID           string   `json:"client_id"`
	Name         string   `json:"client_name"`
	RedirectURIs []string `json:"redirect_uris"`
}

type persistedRefresh struct {
	ClientID string `json:"client_id"`
	Family   string `json:"sign_in"`
	Used     bool   `json:"used"`
	GrantID  string `json:"grant_id,omitempty"`
	Package  bool   `json:"package,omitempty"`
}

type persistedToken struct {
	GrantID string    `json:"grant_id"`
	Issued  time.Time `json:"issued_at"`
	Family  string    `json:"sign_in,omitempty"`
}

// authPersister serialises writes of the state file.
type authPersister struct{ mu sync.Mutex }

// loadAuthState restores the state file into s; a missing file is a
// fresh start. Entries naming a grant the dataset lacks are dropped.
func (s *Server) loadAuthState() error {
	path := s.opts.AuthStateFile
	b, err := readLimited(path, maxAuthStateBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("auth state %s: %v", path, err)
	}
	var st authStateFile
	if err := json.Unmarshal(b, &st); err != nil {
		return fmt.Errorf("auth state %s: %v", path, err)
	}
	for _, c := range st.Clients {
		if c != nil && c.ID != "" {
			s.as.clients[c.ID] = &oauthClient{ID: c.ID, Name: c.Name, RedirectURIs: c.RedirectURIs}
		}
	}
	for tok, r := range st.Refresh {
		if r.Package || s.hasGrant(r.GrantID) {
			s.as.refresh[tok] = &refreshToken{clientID: r.ClientID, family: r.Family, used: r.Used, sel: selection{grantID: r.GrantID, pkg: r.Package}}
		}
	}
	for _, f := range st.Revoked {
		s.as.revoked[f] = true
	}
	s.tokens.minted, s.tokens.packages = map[string]clientToken{}, map[string]string{}
	for tok, t := range st.Tokens {
		if g := s.grant(t.GrantID); g != nil {
			s.tokens.minted[tok] = clientToken{grant: g, issued: t.Issued, family: t.Family}
		}
	}
	for tok, pkg := range st.Packages {
		s.tokens.packages[tok] = pkg
	}
	return nil
}

// saveAuthState writes the state file when one is configured. Errors are
// not the request's: the sign-in still works until the next restart.
func (s *Server) saveAuthState() {
	if s.opts.AuthStateFile == "" {
		return
	}
	s.persist.mu.Lock()
	defer s.persist.mu.Unlock()
	b, err := json.Marshal(s.authSnapshot())
	if err == nil {
		err = writeFileAtomic(s.opts.AuthStateFile, b)
	}
	if err != nil && s.opts.OnPersistError != nil {
		s.opts.OnPersistError(err)
	}
}

// authSnapshot copies the state under its locks.
func (s *Server) authSnapshot() authStateFile {
	st := authStateFile{Refresh: map[string]persistedRefresh{}, Tokens: map[string]persistedToken{}, Packages: map[string]string{}}
	s.as.mu.Lock()
	for _, c := range s.as.clients {
		st.Clients = append(st.Clients, &persistedClient{ID: c.ID, Name: c.Name, RedirectURIs: c.RedirectURIs})
	}
	for tok, r := range s.as.refresh {
		st.Refresh[tok] = persistedRefresh{ClientID: r.clientID, Family: r.family, Used: r.used, GrantID: r.sel.grantID, Package: r.sel.pkg}
	}
	for f := range s.as.revoked {
		st.Revoked = append(st.Revoked, f)
	}
	s.as.mu.Unlock()
	s.tokens.mu.RLock()
	for tok, t := range s.tokens.minted {
		st.Tokens[tok] = persistedToken{GrantID: t.grant.ID, Issued: t.issued, Family: t.family}
	}
	for tok, pkg := range s.tokens.packages {
		st.Packages[tok] = pkg
	}
	s.tokens.mu.RUnlock()
	return st
}

// grant returns the dataset grant with id, nil when there is none.
func (s *Server) grant(id string) *Grant {
	for i := range s.ds.Grants {
		if s.ds.Grants[i].ID == id {
			return &s.ds.Grants[i]
		}
	}
	return nil
}

// readLimited reads at most max bytes of path.
func readLimited(path string, max int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("larger than %d bytes", max)
	}
	return os.ReadFile(path)
}

// writeFileAtomic replaces path with b (0600), through a temporary file
// in the same directory, so a crash never leaves half a file.
func writeFileAtomic(path string, b []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".auth-state-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(b)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp, 0o600)
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		_ = os.Remove(tmp)
	}
	return werr
}
