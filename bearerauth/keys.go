package bearerauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// maxKeySetBytes bounds a JWKS document or key file.
const maxKeySetBytes = 256 << 10

// VerificationKey is one key that may sign access tokens: an RSA, ECDSA or
// Ed25519 public key, or an HMAC secret ([]byte).
type VerificationKey struct {
	// ID is the JWK `kid`; empty when the source did not name it.
	ID string
	// Key is *rsa.PublicKey, *ecdsa.PublicKey, ed25519.PublicKey or []byte.
	Key crypto.PublicKey
}

// algFamily names which JWS algorithms a key can verify: a key is never
// tried with an algorithm of another family (no alg confusion).
func (k VerificationKey) algFamily() string {
	switch k.Key.(type) {
	case *rsa.PublicKey:
		return "RS"
	case *ecdsa.PublicKey:
		return "ES"
	case ed25519.PublicKey:
		return "Ed"
	case []byte:
		return "HS"
	}
	return ""
}

// ParseKeySet reads verification keys from a JWKS document
// (`{"keys":[…]}`, kty RSA, EC, OKP/Ed25519 or oct) or from PEM blocks
// (PUBLIC KEY, RSA PUBLIC KEY, CERTIFICATE). `serve --jwt-keys FILE` uses it.
func ParseKeySet(data []byte) ([]VerificationKey, error) {
	if len(data) > maxKeySetBytes {
		return nil, fmt.Errorf("key set is larger than %d bytes", maxKeySetBytes)
	}
	trimmed := strings.TrimSpace(string(data))
	if strings.HasPrefix(trimmed, "{") {
		return parseJWKS(data)
	}
	if strings.HasPrefix(trimmed, "-----BEGIN") {
		return parsePEMKeys(data)
	}
	return nil, errors.New("key set is neither a JWKS document nor PEM")
}

type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	N   string `json:"n"`
	E   string `json:"e"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
	K   string `json:"k"`
}

func parseJWKS(data []byte) ([]VerificationKey, error) {
	var doc struct {
		Keys []jwk `json:"keys"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("JWKS is not valid JSON: %w", err)
	}
	var out []VerificationKey
	for i, k := range doc.Keys {
		if k.Use != "" && k.Use != "sig" {
			continue // encryption keys never verify signatures
		}
		key, err := k.publicKey()
		if err != nil {
			return nil, fmt.Errorf("JWKS key %d (kid %q): %w", i, k.Kid, err)
		}
		out = append(out, VerificationKey{ID: k.Kid, Key: key})
	}
	if len(out) == 0 {
		return nil, errors.New("JWKS has no signature keys")
	}
	return out, nil
}

// publicKey turns one JWK into the key it describes, checked for its key
// type (kty) by the matching step below; any other kty is refused.
func (k jwk) publicKey() (crypto.PublicKey, error) {
	switch k.Kty {
	case "RSA":
		return k.rsaKey()
	case "EC":
		return k.ecKey()
	case "OKP":
		return k.ed25519Key()
	case "oct":
		return k.hmacSecret()
	}
	return nil, fmt.Errorf("unsupported kty %q", k.Kty)
}

// rsaKey reads an RSA key (n, e), refusing moduli under 2048 bits and
// exponents outside [3, 2^31].
func (k jwk) rsaKey() (crypto.PublicKey, error) {
	n, err1 := b64Int(k.N)
	e, err2 := b64Int(k.E)
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	if n.BitLen() < 2048 || !e.IsInt64() || e.Int64() < 3 || e.Int64() > 1<<31 {
		return nil, errors.New("RSA key too small or exponent out of range")
	}
	return &rsa.PublicKey{N: n, E: int(e.Int64())}, nil
}

// ecKey reads an ECDSA key (crv, x, y) on P-256, P-384 or P-521; the
// point must fit the curve's size and lie on the curve.
func (k jwk) ecKey() (crypto.PublicKey, error) {
	curve, err := jwkCurve(k.Crv)
	if err != nil {
		return nil, err
	}
	x, err1 := b64Int(k.X)
	y, err2 := b64Int(k.Y)
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	size := (curve.Params().BitSize + 7) / 8
	raw := make([]byte, 1+2*size)
	raw[0] = 4 // uncompressed point
	if x.BitLen() > size*8 || y.BitLen() > size*8 {
		return nil, errors.New("EC coordinates too large")
	}
	x.FillBytes(raw[1 : 1+size])
	y.FillBytes(raw[1+size:])
	// ParseUncompressedPublicKey rejects points not on the curve.
	return ecdsa.ParseUncompressedPublicKey(curve, raw)
}

// jwkCurve is the NIST curve a JWK crv names; no other curve is accepted.
func jwkCurve(crv string) (elliptic.Curve, error) {
	switch crv {
	case "P-256":
		return elliptic.P256(), nil
	case "P-384":
		return elliptic.P384(), nil
	case "P-521":
		return elliptic.P521(), nil
	}
	return nil, fmt.Errorf("unsupported curve %q", crv)
}

// ed25519Key reads an OKP key, which must be on Ed25519 and exactly
// ed25519.PublicKeySize bytes.
func (k jwk) ed25519Key() (crypto.PublicKey, error) {
	if k.Crv != "Ed25519" {
		return nil, fmt.Errorf("unsupported OKP curve %q", k.Crv)
	}
	x, err := base64.RawURLEncoding.DecodeString(k.X)
	if err != nil || len(x) != ed25519.PublicKeySize {
		return nil, errors.New("invalid Ed25519 key")
	}
	return ed25519.PublicKey(x), nil
}

// hmacSecret reads an oct key: an HMAC secret of at least 32 bytes.
func (k jwk) hmacSecret() (crypto.PublicKey, error) {
	secret, err := base64.RawURLEncoding.DecodeString(k.K)
	if err != nil || len(secret) < 32 {
		return nil, errors.New("HMAC secret must be at least 32 bytes, base64url")
	}
	return secret, nil
}

func b64Int(s string) (*big.Int, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) == 0 {
		return nil, errors.New("invalid base64url integer")
	}
	return new(big.Int).SetBytes(b), nil
}

func parsePEMKeys(data []byte) ([]VerificationKey, error) {
	var out []VerificationKey
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		var key any
		var err error
		switch block.Type {
		case "PUBLIC KEY":
			key, err = x509.ParsePKIXPublicKey(block.Bytes)
		case "RSA PUBLIC KEY":
			key, err = x509.ParsePKCS1PublicKey(block.Bytes)
		case "CERTIFICATE":
			var cert *x509.Certificate
			if cert, err = x509.ParseCertificate(block.Bytes); err == nil {
				key = cert.PublicKey
			}
		default:
			return nil, fmt.Errorf("PEM block %q is not a public key", block.Type)
		}
		if err != nil {
			return nil, fmt.Errorf("PEM block %q: %w", block.Type, err)
		}
		vk := VerificationKey{Key: key}
		if vk.algFamily() == "" {
			return nil, fmt.Errorf("PEM block %q: unsupported key type %T", block.Type, key)
		}
		out = append(out, vk)
	}
	if len(out) == 0 {
		return nil, errors.New("no PEM public keys found")
	}
	return out, nil
}
