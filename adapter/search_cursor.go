package adapter

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/pdpp/pdpp-mcp/rsclient"
)

// sourceState is one source's position in the merged result. The whole
// merged paging state lives in the cursor, none on the server. The JSON
// names stay short: the sealed cursor is printed on every page a model
// reads.
type sourceState struct {
	GrantTag string `json:"k"`           // grantTag of the source's grant: guards slot order
	RSCursor string `json:"c,omitempty"` // RS cursor of the page to continue from ("" = first page)
	Offset   int    `json:"o,omitempty"` // hits of that page already returned
	Returned int    `json:"r,omitempty"` // hits of this source returned so far
	Done     bool   `json:"d,omitempty"` // exhausted
	// FirstLimit is the limit of the source's first RS read, which shaped
	// the RS's result set (the reference keeps a semantic snapshot of the
	// nearest max(25, 1.5×limit, limit+10) records per connection:
	// resolveSemanticPerConnectorLimit in reference-implementation/server/
	// search-semantic.ts): a re-issued search asks for the same, so it
	// ranks the same records.
	FirstLimit int `json:"n,omitempty"`
	// LastHit fingerprints the last hit this source returned (hitPrint):
	// when the RS no longer honours RSCursor and the search is re-issued,
	// it tells whether the re-issued ranking still ends the delivered part
	// where the first one did.
	LastHit string `json:"l,omitempty"`
}

type searchCursor struct {
	Version   int           `json:"v"`
	QueryHash string        `json:"h"` // binds the cursor to the query arguments
	Sources   []sourceState `json:"s"`
	Args      searchShape   `json:"a"` // the arguments, so the next page needs only cursor
}

// searchShape are the search arguments a cursor continues; limit may
// change between pages (the per-source positions do not depend on it).
type searchShape struct {
	Q       string          `json:"q"`
	Mode    string          `json:"m"`
	Streams []string        `json:"st,omitempty"`
	Filter  json.RawMessage `json:"f,omitempty"`
	Conn    string          `json:"c,omitempty"`
	Grant   string          `json:"g,omitempty"`
	Limit   int             `json:"l,omitempty"`
}

func (a searchArgs) shape() searchShape {
	return searchShape{Q: a.Q, Mode: a.Mode, Streams: a.Streams, Filter: canonicalJSON(a.Filter), Conn: a.ConnectionID, Grant: a.GrantID, Limit: a.Limit}
}

// searchCursorPurpose separates search cursors from other sealed values.
const searchCursorPurpose = "search page v1"

// queryHash binds a composite cursor to the search arguments it pages.
// limit is left out: the saved positions are per-source offsets, so a
// later page may ask for more or fewer hits.
func queryHash(a searchArgs, filter rsclient.Filter) string {
	f, _ := json.Marshal(filter)
	parts := []string{a.Q, a.Mode, strings.Join(a.Streams, "\x1f"), a.ConnectionID, string(f)}
	if a.GrantID != "" { // only when given, so cursors without one keep their hash
		parts = append(parts, a.GrantID)
	}
	h := sha256.Sum256([]byte(strings.Join(parts, "\x1e")))
	return base64.RawURLEncoding.EncodeToString(h[:9])
}

// sealSearchCursor is the printed next_cursor of a search page.
func (s *Server) sealSearchCursor(c searchCursor) string {
	return s.cfg.CursorKey.SealPayload(searchCursorPurpose, encodeSearchCursor(c))
}

// openSearchCursor verifies a printed search cursor and folds its
// arguments into the call: a repeated argument must equal the cursor's,
// an omitted one is taken from it.
func (s *Server) openSearchCursor(a *searchArgs) (*searchCursor, *toolError) {
	raw, err := s.cfg.CursorKey.OpenPayload(searchCursorPurpose, "cursor", a.Cursor)
	if err != nil {
		return nil, cursorError("cursor", err.Error())
	}
	c, err := decodeSearchCursor(raw)
	if err != nil {
		return nil, cursorError("cursor", "cursor has an unsupported format; repeat the first search without it")
	}
	want := c.Args
	differs := func(param string, given, equal bool) *toolError {
		if given && !equal {
			return cursorError(param, param+" differs from the search this cursor continues; omit it (the cursor keeps q, mode, streams, filter, connection_id and grant_id; limit may change) or repeat the search without cursor")
		}
		return nil
	}
	for _, te := range []*toolError{
		differs("q", a.Q != "", a.Q == want.Q),
		differs("mode", a.Mode != "", a.Mode == want.Mode),
		differs("streams", a.Streams != nil, slices.Equal(a.Streams, want.Streams)),
		differs("filter", a.Filter != nil, bytes.Equal(canonicalJSON(a.Filter), want.Filter)),
		differs("connection_id", a.ConnectionID != "", a.ConnectionID == want.Conn),
		differs("grant_id", a.GrantID != "", a.GrantID == want.Grant),
	} {
		if te != nil {
			return nil, te
		}
	}
	a.Q, a.Mode, a.Streams, a.Filter, a.ConnectionID, a.GrantID = want.Q, want.Mode, want.Streams, want.Filter, want.Conn, want.Grant
	if a.Limit == 0 {
		a.Limit = want.Limit
	}
	return &c, nil
}

func encodeSearchCursor(c searchCursor) []byte {
	b, _ := json.Marshal(c)
	return b
}

// decodeSearchCursor is the strict inverse of encodeSearchCursor: unknown
// members, out-of-range positions or any other spelling of the same state
// are refused.
func decodeSearchCursor(b []byte) (searchCursor, error) {
	var c searchCursor
	if len(b) > 8192 {
		return c, fmt.Errorf("cursor too long")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, err
	}
	if c.Version != 1 {
		return c, fmt.Errorf("unknown cursor version")
	}
	for _, st := range c.Sources {
		if st.Offset < 0 || st.Returned < 0 || st.Offset > 10000 || st.Returned > maxSourceHits || len(st.LastHit) > hitPrintLen ||
			st.FirstLimit < 0 || st.FirstLimit > maxRSPage {
			return c, fmt.Errorf("cursor out of range")
		}
	}
	if !bytes.Equal(encodeSearchCursor(c), b) {
		return c, fmt.Errorf("cursor not canonical")
	}
	return c, nil
}

// maxSourceHits bounds the hit count a cursor may claim for one source: a
// sanity bound on the decoded state, far beyond what a model pages.
const maxSourceHits = 1_000_000

// hitPrintLen is the length of a hit fingerprint.
const hitPrintLen = 8

// hitPrint fingerprints a hit by its identity (connection, stream,
// record): 48 bits of SHA-256, enough to tell the hits of one search
// apart, and nothing of the record readable from the cursor.
func hitPrint(h rsclient.SearchHit) string {
	sum := sha256.Sum256([]byte(h.ConnectionID + "\x1f" + h.Stream + "\x1f" + h.RecordKey))
	return base64.RawURLEncoding.EncodeToString(sum[:6])
}
