package adapter

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pdpp/pdpp-mcp/rsclient"
)

// sourceState is one source's position in the merged result. The whole
// merged paging state lives in the cursor, none on the server.
type sourceState struct {
	K string `json:"k"`           // first 8 chars of the grant key: guards slot order
	C string `json:"c,omitempty"` // RS cursor of the page to continue from ("" = first page)
	O int    `json:"o,omitempty"` // hits of that page already returned
	R int    `json:"r,omitempty"` // hits of this source returned so far
	D bool   `json:"d,omitempty"` // exhausted
}

type searchCursor struct {
	V int           `json:"v"`
	H string        `json:"h"` // binds the cursor to the query arguments
	S []sourceState `json:"s"`
}

// queryHash binds a composite cursor to the search arguments it pages.
// limit is left out: the saved positions are per-source offsets, so a
// later page may ask for more or fewer hits (issue 11).
func queryHash(a searchArgs, filter rsclient.Filter) string {
	f, _ := json.Marshal(filter)
	h := sha256.Sum256([]byte(strings.Join([]string{a.Q, a.Mode, strings.Join(a.Streams, "\x1f"), a.ConnectionID, string(f)}, "\x1e")))
	return base64.RawURLEncoding.EncodeToString(h[:9])
}

func encodeSearchCursor(c searchCursor) string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeSearchCursor(s string) (searchCursor, error) {
	var c searchCursor
	if len(s) > 8192 {
		return c, fmt.Errorf("cursor too long")
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return c, err
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, err
	}
	if c.V != 1 {
		return c, fmt.Errorf("unknown cursor version")
	}
	for _, st := range c.S {
		if st.O < 0 || st.R < 0 || st.O > 10000 {
			return c, fmt.Errorf("cursor out of range")
		}
	}
	return c, nil
}
