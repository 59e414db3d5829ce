package credcache

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"github.com/pdpp/pdpp-mcp/internal/regularfile"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// CursorSecretFile is the stdio adapter's cursor secret, beside the
// credentials in the cache root: every stdio process of that cache (a
// restarted server, the Inspector CLI's process per call) seals and opens
// cursors with the same key.
const CursorSecretFile = "mcp-cursor-secret"

// cursorSecretBytes is the random secret's length before encoding.
const cursorSecretBytes = 48

// maxCursorSecretFile bounds the secret file read: a few dozen bytes are
// expected; anything large is not ours.
const maxCursorSecretFile = 4 << 10

// CursorSecret returns the stdio cursor secret kept in cacheRoot, creating
// it (random, mode 0600) on first use, and its path. Concurrent first uses
// agree on one secret: the secret is written to a private temporary file
// and hard-linked into place, so exactly one writer wins and every other
// reads the winner's. warn is non-empty when an existing file is readable
// by others (the key then lets them forge cursors, which read nothing
// without a token of the grant, but the file should be private).
func CursorSecret(cacheRoot string) (secret []byte, path, warn string, err error) {
	path = filepath.Join(cacheRoot, CursorSecretFile)
	if secret, warn, err = readCursorSecret(path); err == nil || !errors.Is(err, os.ErrNotExist) {
		return secret, path, warn, err
	}
	if err := os.MkdirAll(cacheRoot, 0o700); err != nil {
		return nil, path, "", fmt.Errorf("cursor secret: %v", err)
	}
	if err := createCursorSecret(path); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, path, "", fmt.Errorf("cursor secret %s: %v", path, err)
	}
	secret, warn, err = readCursorSecret(path)
	return secret, path, warn, err
}

// createCursorSecret writes a fresh random secret to a 0600 temporary
// file in path's directory and links it to path; os.ErrExist when another
// process got there first.
func createCursorSecret(path string) error {
	raw := make([]byte, cursorSecretBytes)
	_, _ = rand.Read(raw) // crypto/rand.Read never fails on supported platforms
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+CursorSecretFile+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // os.CreateTemp made it 0600
	_, werr := io.WriteString(tmp, base64.RawURLEncoding.EncodeToString(raw)+"\n")
	serr := tmp.Sync()
	if cerr := tmp.Close(); werr == nil && serr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = serr
	}
	if werr != nil {
		return werr
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		return err
	}
	syncDir(filepath.Dir(path))
	return nil
}

// readCursorSecret reads an existing secret file, bounded, without its
// trailing newline.
func readCursorSecret(path string) ([]byte, string, error) {
	f, st, err := regularfile.Open(path, "cursor secret")
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxCursorSecretFile+1))
	if err != nil || len(raw) > maxCursorSecretFile {
		return nil, "", fmt.Errorf("cursor secret %s is unreadable or too large", path)
	}
	return []byte(strings.TrimRight(string(raw), "\r\n")), regularfile.OthersMayRead(path, "cursor secret", st), nil
}
