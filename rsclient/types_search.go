package rsclient

import (
	"encoding/json"
	"fmt"
)

// SearchPage is the answer of the three search routes.
type SearchPage struct {
	Data       []SearchHit `json:"data"`
	HasMore    bool        `json:"has_more"`
	NextCursor string      `json:"next_cursor,omitempty"`
	Meta       Meta        `json:"meta"`
	Links      Links       `json:"links"`
}

// SearchHit is one search result. Score (lexical, semantic) and Scores
// (hybrid) are kept verbatim.
type SearchHit struct {
	ConnectorID      string   `json:"connector_id,omitempty"`
	ConnectionID     string   `json:"connection_id,omitempty"`
	Stream           string   `json:"stream"`
	RecordKey        string   `json:"record_key"`
	RecordURL        string   `json:"record_url,omitempty"`
	EmittedAt        string   `json:"emitted_at,omitempty"`
	AuthoredAt       string   `json:"authored_at,omitempty"`
	DisplayName      string   `json:"display_name,omitempty"`
	RetrievalMode    string   `json:"retrieval_mode,omitempty"`
	MatchedFields    []string `json:"matched_fields,omitempty"`
	RetrievalSources []string `json:"retrieval_sources,omitempty"`
	Snippet          *Snippet `json:"snippet,omitempty"`
	// EvidenceExcerpts is the evidence list verbatim (the body's own
	// bytes, validated JSON; Excerpts decodes it). The real RS repeats
	// each hit's snippet in its excerpt, and decoding those previews into
	// strings nobody reads was a third of a search page's decoding.
	EvidenceExcerpts json.RawMessage `json:"evidence_excerpts,omitempty"`
	Score            json.RawMessage `json:"score,omitempty"`
	Scores           json.RawMessage `json:"scores,omitempty"`
}

// Excerpts decodes the hit's evidence excerpts: nil when absent or null,
// an error when they are not a list of excerpt objects.
func (h SearchHit) Excerpts() ([]EvidenceExcerpt, error) {
	if len(h.EvidenceExcerpts) == 0 {
		return nil, nil
	}
	var out []EvidenceExcerpt
	if err := decodeValue(h.EvidenceExcerpts, &out); err != nil {
		return nil, fmt.Errorf("evidence_excerpts: %w", err)
	}
	return out, nil
}

// Snippet is a hit's highlighted excerpt (lexical snippets carry
// <mark>…</mark>).
type Snippet struct {
	Field string `json:"field"`
	Text  string `json:"text"`
}

// EvidenceExcerpt is one lexical evidence preview.
type EvidenceExcerpt struct {
	FieldPath   string `json:"field_path"`
	PreviewText string `json:"preview_text"`
	Provenance  string `json:"provenance,omitempty"`
	Truncated   bool   `json:"truncated"`
}

// ProtectedResourceMetadata is the RFC 9728 document at
// /.well-known/oauth-protected-resource. Lexical, Semantic and Hybrid are
// capabilities.{lexical,semantic,hybrid}_retrieval, nil when absent.
type ProtectedResourceMetadata struct {
	Resource             string
	AuthorizationServers []string
	TokenKindsSupported  []string
	Lexical              *RetrievalCapability
	Semantic             *RetrievalCapability
	Hybrid               *RetrievalCapability
}

// RetrievalCapability is one advertised retrieval mode.
type RetrievalCapability struct {
	Supported       bool   `json:"supported"`
	Endpoint        string `json:"endpoint,omitempty"`
	CursorSupported bool   `json:"cursor_supported"`
	DefaultLimit    int    `json:"default_limit,omitempty"`
	MaxLimit        int    `json:"max_limit,omitempty"`
}

// SupportsMode reports whether the RS advertises mode ("lexical" or "",
// "semantic", "hybrid") as supported. Semantic and hybrid routes are only
// mounted when advertised, so callers should check before searching.
func (m *ProtectedResourceMetadata) SupportsMode(mode string) bool {
	if m == nil {
		return false
	}
	var c *RetrievalCapability
	switch mode {
	case "", ModeLexical:
		c = m.Lexical
	case ModeSemantic:
		c = m.Semantic
	case ModeHybrid:
		c = m.Hybrid
	}
	return c != nil && c.Supported
}
