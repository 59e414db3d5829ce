package demodata

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strconv"
)

// rng is a splitmix64 generator. It is hand-rolled rather than taken from
// math/rand so that the dataset — and its golden digest — can never change
// under us with a Go release.
type rng struct{ s uint64 }

// newRNG derives an independent stream for one (seed, purpose) pair, so
// adding records to one stream never shifts the values of another.
func newRNG(seed int64, purpose string) *rng {
	sum := sha256.Sum256([]byte("pdpp-mcp/demodata/rng\x00" + strconv.FormatInt(seed, 10) + "\x00" + purpose))
	return &rng{s: binary.LittleEndian.Uint64(sum[:8])}
}

// next returns the next 64 random bits.
func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	return mix64(r.s)
}

// intn returns a value in [0, n); n must be positive. The tiny modulo bias
// is irrelevant for demo data.
func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

// between returns a value in [lo, hi].
func (r *rng) between(lo, hi int) int { return lo + r.intn(hi-lo+1) }

// chance reports true with probability pct/100.
func (r *rng) chance(pct int) bool { return r.intn(100) < pct }

// pick returns a random element of a non-empty slice.
func pick[T any](r *rng, xs []T) T { return xs[r.intn(len(xs))] }

// mix64 is the splitmix64 finaliser. It is a bijection on uint64, which is
// what makes idFor collision-free within one salt.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// saltFor turns a label into a 64-bit salt.
func saltFor(seed int64, label string) uint64 {
	sum := sha256.Sum256([]byte("pdpp-mcp/demodata/salt\x00" + strconv.FormatInt(seed, 10) + "\x00" + label))
	return binary.LittleEndian.Uint64(sum[:8])
}

// idFor returns 16 lowercase hex digits that are unique for distinct n under
// one salt (mix64 is a bijection), so ids never collide within a stream.
func idFor(salt uint64, n int) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], mix64(salt+uint64(n)))
	return hex.EncodeToString(b[:])
}

// hexDigest returns 2*n lowercase hex digits derived from a label; used for
// sha256-like fields and blob ids.
func hexDigest(label string, n int) string {
	sum := sha256.Sum256([]byte(label))
	return hex.EncodeToString(sum[:n])
}

// TokenFor returns the 64-hex bearer token that Build issues for a role
// ("gmail", "gmail-restricted", "slack", "chatgpt", "github", "revoked",
// "owner", "expired") under a seed (0 = DefaultSeed). Tokens are a hash of
// the seed so they are stable per seed yet differ between seeds.
func TokenFor(seed int64, role string) string {
	if seed == 0 {
		seed = DefaultSeed
	}
	sum := sha256.Sum256([]byte("pdpp-mcp/demodata/token\x00" + strconv.FormatInt(seed, 10) + "\x00" + role))
	return hex.EncodeToString(sum[:])
}

// float returns a value in [0, 1).
func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }
