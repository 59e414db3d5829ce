package searchindex

import (
	"math"
	"slices"
)

// EmbeddingDims is the size of the hashed embedding space.
const EmbeddingDims = 64

// maxEmbedBytes bounds how much of a field is embedded; real embedding
// models truncate their input too, and it bounds Add's cost per field.
const maxEmbedBytes = 16 << 10

// Feature weights: whole words carry meaning, trigrams give the fuzzy
// "related words" behaviour (meeting ~ meetings) expected of semantic search.
const (
	wordWeight    = 1.0
	trigramWeight = 0.5
)

// vector is an L2-normalised embedding.
type vector [EmbeddingDims]float32

// semField is the embedding of one semantic field.
type semField struct {
	field uint16
	vec   vector
}

// embedField embeds one field's text.
func embedField(fi uint16, text string) semField {
	vec, _ := embed(text)
	return semField{field: fi, vec: vec}
}

// embed computes the deterministic embedding of text: a signed hashed bag of
// words plus boundary-padded character trigrams of each word, L2-normalised.
// Signed hashing keeps unrelated texts near cosine 0 despite collisions in
// only 64 dimensions.
func embed(text string) (vector, []uint32) {
	if len(text) > maxEmbedBytes {
		text = text[:maxEmbedBytes]
	}
	var acc [EmbeddingDims]float64
	var feats []uint32
	add := func(h uint32, w float64) {
		// Low bits choose the dimension, bit 31 the sign: independent
		// enough for a stand-in and free of any second hash.
		if h>>31 == 1 {
			w = -w
		}
		acc[h%EmbeddingDims] += w
	}
	var bounds []int // rune starts of the padded token, reused
	forEachToken(text, func(tok string, _, _ int) bool {
		add(hash('w', "", tok, ""), wordWeight)
		// Trigrams of " tok ": the padding marks word starts and ends,
		// and a one-rune word still yields a trigram.
		bounds = bounds[:0]
		for i := range tok {
			bounds = append(bounds, i)
		}
		bounds = append(bounds, len(tok))
		// Padded rune k spans: k=0 is the leading space, k=1..n the
		// token's runes, k=n+1 the trailing space.
		n := len(bounds) - 1
		for k := 0; k+3 <= n+2; k++ {
			lo, hi := k-1, k+2 // token rune range [lo, hi) clipped below
			pre, post := "", ""
			if lo < 0 {
				pre, lo = " ", 0
			}
			if hi > n {
				post, hi = " ", n
			}
			h := hash('t', pre, tok[bounds[lo]:bounds[hi]], post)
			add(h, trigramWeight)
			feats = append(feats, h)
		}
		return true
	})
	var norm float64
	for _, v := range acc {
		norm += v * v
	}
	var vec vector
	if norm > 0 {
		norm = math.Sqrt(norm)
		for i, v := range acc {
			vec[i] = float32(v / norm)
		}
	}
	slices.Sort(feats)
	return vec, slices.Clip(slices.Compact(feats))
}

// hash is 32-bit FNV-1a over a namespace byte and the concatenation
// pre+s+post, so a word and a trigram with the same spelling land in
// different buckets. It is inlined rather than hash/fnv to avoid allocating
// per feature.
func hash(ns byte, pre, s, post string) uint32 {
	const prime = 16777619
	h := uint32(2166136261)
	h = (h ^ uint32(ns)) * prime
	for _, part := range [3]string{pre, s, post} {
		for i := 0; i < len(part); i++ {
			h = (h ^ uint32(part[i])) * prime
		}
	}
	return h
}

// cosine returns the dot product of two normalised vectors.
func cosine(a, b *vector) float64 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return float64(s)
}
