package main

import (
	"fmt"
	"strings"

	"github.com/pdpp/pdpp-mcp/contentladder"
)

// maxSecretFileBytes bounds a secret file: secrets are short, and a
// mistaken path (a log, a device) must not be read whole.
const maxSecretFileBytes = 64 << 10

// secretFromEnv reads the secret NAME from the environment, or from the
// file that NAME_FILE names (a mounted Kubernetes or Docker secret). A
// trailing newline in the file is dropped, as editors and `echo` add one.
// Setting both is an error: silently picking one would hide a mistake.
// source names where the value came from, for messages; it is "" when
// neither is set.
func secretFromEnv(env func(string) string, name string) (value, source string, err error) {
	direct := env(name)
	path := strings.TrimSpace(env(name + "_FILE"))
	switch {
	case direct != "" && path != "":
		return "", "", fmt.Errorf("both %s and %s_FILE are set; set one", name, name)
	case path != "":
		b, err := readBounded(path, maxSecretFileBytes)
		if err != nil {
			return "", "", fmt.Errorf("%s_FILE: %v", name, err)
		}
		return strings.TrimRight(string(b), "\r\n"), name + "_FILE", nil
	}
	if direct == "" {
		return "", "", nil
	}
	return direct, name, nil
}

// placeholderCursorSecrets are example values this project has published
// (an earlier deploy/kubernetes/config.yaml committed the first). A
// deployment running with one of them has, in effect, a public key.
var placeholderCursorSecrets = []string{
	"change-me-to-32-or-more-random-bytes-0000",
}

// placeholderMarkers are words only an unedited example secret contains.
var placeholderMarkers = []string{"change-me", "changeme", "replace-me", "placeholder"}

// cursorKeyFromSecret checks a configured cursor secret and derives the
// signing key. Too short or a known placeholder is a configuration error:
// anyone could forge continuation cursors for every replica.
func cursorKeyFromSecret(secret, source string) (*contentladder.CursorKey, error) {
	if n := len(secret); n < contentladder.MinCursorSecretBytes {
		return nil, fmt.Errorf("%s is %d bytes; it must be at least %d random bytes shared by every replica (generate one with: openssl rand -base64 48)",
			source, n, contentladder.MinCursorSecretBytes)
	}
	lower := strings.ToLower(secret)
	for _, p := range placeholderCursorSecrets {
		if secret == p {
			return nil, fmt.Errorf("%s is the example placeholder from the documentation; generate a random one with: openssl rand -base64 48", source)
		}
	}
	for _, m := range placeholderMarkers {
		if strings.Contains(lower, m) {
			return nil, fmt.Errorf("%s looks like an unedited placeholder (it contains %q); generate a random one with: openssl rand -base64 48", source, m)
		}
	}
	return contentladder.NewCursorKey([]byte(secret))
}
