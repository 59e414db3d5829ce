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

func (k jwk) publicKey() (crypto.PublicKey, error) {
	switch k.Kty {
	case "RSA":
		n, err1 := b64Int(k.N)
		e, err2 := b64Int(k.E)
		if err := errors.Join(err1, err2); err != nil {
			return nil, err
		}
		if n.BitLen() < 2048 || !e.IsInt64() || e.Int64() < 3 || e.Int64() > 1<<31 {
			return nil, errors.New("RSA key too small or exponent out of range")
		}
		return &rsa.PublicKey{N: n, E: int(e.Int64())}, nil
	case "EC":
		var curve elliptic.Curve
		switch k.Crv {
		case "P-256":
			curve = elliptic.P256()
		case "P-384":
			curve = elliptic.P384()
		case "P-521":
			curve = elliptic.P521()
		default:
			return nil, fmt.Errorf("unsupported curve %q", k.Crv)
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
	case "OKP":
		if k.Crv != "Ed25519" {
			return nil, fmt.Errorf("unsupported OKP curve %q", k.Crv)
		}
		x, err := base64.RawURLEncoding.DecodeString(k.X)
		if err != nil || len(x) != ed25519.PublicKeySize {
			return nil, errors.New("invalid Ed25519 key")
		}
		return ed25519.PublicKey(x), nil
	case "oct":
		secret, err := base64.RawURLEncoding.DecodeString(k.K)
		if err != nil || len(secret) < 32 {
			return nil, errors.New("HMAC secret must be at least 32 bytes, base64url")
		}
		return secret, nil
	}
	return nil, fmt.Errorf("unsupported kty %q", k.Kty)
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
