package hosted

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode"
)

// Bounds of an operator's sign-in selection. The selection travels in the
// authorize URL a browser follows, so it stays well under common URL
// limits (8 KiB at many proxies), and the real AS reads at most one entry
// per connector.
const (
	// MaxAuthorizationDetailsBytes bounds the compacted authorization_details.
	MaxAuthorizationDetailsBytes = 6 << 10
	maxDetailEntries             = 8
	maxDetailStreams             = 32
	maxInstanceIDs               = 16
	maxSelectionIDLen            = 256
)

// SignInSelection is what the operator configured a header-free sign-in to
// ask the RS's authorization server for: exactly one of an RFC 9396
// authorization_details array (connector, streams and, with several
// connections of a connector, their instance_ids) or the AS's connector_id
// shortcut (which works only when the owner has one connection of that
// connector; PDP-Connect/pdpp server/routes/as-authorize.ts).
type SignInSelection struct {
	// AuthorizationDetails is the compact JSON array sent as the
	// authorization_details parameter (ParseAuthorizationDetails).
	AuthorizationDetails string
	// ConnectorID is sent as the connector_id parameter.
	ConnectorID string
}

// Configured reports whether a selection was given at all.
func (s SignInSelection) Configured() bool {
	return s.AuthorizationDetails != "" || s.ConnectorID != ""
}

// Validate checks the selection as start-up does: exactly one form, each
// well formed.
func (s SignInSelection) Validate() error {
	switch {
	case s.AuthorizationDetails != "" && s.ConnectorID != "":
		return errors.New("sign-in: give authorization_details or connector_id, not both (the AS ignores connector_id when details are present)")
	case s.AuthorizationDetails != "":
		_, err := ParseAuthorizationDetails([]byte(s.AuthorizationDetails))
		return err
	case s.ConnectorID != "":
		return checkSelectionID("connector_id", s.ConnectorID)
	}
	return errors.New("sign-in: no selection configured")
}

// params are the authorize parameters the selection adds.
func (s SignInSelection) params() url.Values {
	if s.AuthorizationDetails != "" {
		return url.Values{"authorization_details": {s.AuthorizationDetails}}
	}
	return url.Values{"connector_id": {s.ConnectorID}}
}

// Describe is a one-line summary for logs and the demo's printed setup.
func (s SignInSelection) Describe() string {
	if s.ConnectorID != "" {
		return "connector_id=" + s.ConnectorID
	}
	details, err := decodeDetails([]byte(s.AuthorizationDetails))
	if err != nil {
		return "authorization_details (invalid)"
	}
	var parts []string
	for _, d := range details {
		p := d.connector()
		if ids := d.instanceIDs(); len(ids) > 0 {
			p += " connections " + strings.Join(ids, ", ")
		}
		parts = append(parts, p)
	}
	return "authorization_details: " + strings.Join(parts, "; ")
}

// authorizationDetail is the part of one PDPP authorization_details entry
// the adapter checks; every other member passes through untouched.
type authorizationDetail struct {
	Type        *string `json:"type"`
	ConnectorID string  `json:"connector_id"`
	Source      *struct {
		ID          string `json:"id"`
		ConnectorID string `json:"connector_id"`
	} `json:"source"`
	Streams []struct {
		Name        *string  `json:"name"`
		InstanceIDs []string `json:"instance_ids"`
	} `json:"streams"`
}

// connector is the connector an entry names: source.id (the reference's
// shape), source.connector_id or connector_id.
func (d authorizationDetail) connector() string {
	if d.Source != nil {
		if d.Source.ID != "" {
			return d.Source.ID
		}
		if d.Source.ConnectorID != "" {
			return d.Source.ConnectorID
		}
	}
	return d.ConnectorID
}

// instanceIDs lists the entry's connections, first mention first.
func (d authorizationDetail) instanceIDs() []string {
	seen := map[string]bool{}
	var out []string
	for _, st := range d.Streams {
		for _, id := range st.InstanceIDs {
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}

func decodeDetails(raw []byte) ([]authorizationDetail, error) {
	var details []authorizationDetail
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&details); err != nil {
		return nil, fmt.Errorf("authorization_details: want a JSON array of objects: %v", err)
	}
	if dec.More() {
		return nil, errors.New("authorization_details: trailing data after the JSON array")
	}
	return details, nil
}

// ParseAuthorizationDetails checks an operator's authorization_details
// document and returns it compacted, exactly as it will be sent: a JSON
// array of 1 to 8 entries, each with a type, a connector (source.id,
// source.connector_id or connector_id) and 1 to 32 streams, each stream
// with a name and at most 16 non-empty instance_ids. Members the adapter
// does not read (purpose, access_mode, fields, …) pass through for the AS
// to judge.
func ParseAuthorizationDetails(raw []byte) (string, error) {
	if len(raw) > 4*MaxAuthorizationDetailsBytes {
		return "", fmt.Errorf("authorization_details: larger than %d bytes", 4*MaxAuthorizationDetailsBytes)
	}
	details, err := decodeDetails(raw)
	if err != nil {
		return "", err
	}
	if len(details) == 0 || len(details) > maxDetailEntries {
		return "", fmt.Errorf("authorization_details: want 1 to %d entries, got %d", maxDetailEntries, len(details))
	}
	for i, d := range details {
		if err := checkDetail(d); err != nil {
			return "", fmt.Errorf("authorization_details[%d]: %v", i, err)
		}
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return "", fmt.Errorf("authorization_details: %v", err)
	}
	if buf.Len() > MaxAuthorizationDetailsBytes {
		return "", fmt.Errorf("authorization_details: %d bytes compacted, more than the %d an authorize URL can carry", buf.Len(), MaxAuthorizationDetailsBytes)
	}
	return buf.String(), nil
}

// checkDetail checks one entry.
func checkDetail(d authorizationDetail) error {
	if d.Type == nil || strings.TrimSpace(*d.Type) == "" {
		return errors.New("type is required")
	}
	if err := checkSelectionID("connector (source.id or connector_id)", d.connector()); err != nil {
		return err
	}
	if len(d.Streams) == 0 || len(d.Streams) > maxDetailStreams {
		return fmt.Errorf("want 1 to %d streams, got %d", maxDetailStreams, len(d.Streams))
	}
	for j, st := range d.Streams {
		if st.Name == nil {
			return fmt.Errorf("streams[%d].name is required (\"*\" for every stream)", j)
		}
		if err := checkSelectionID(fmt.Sprintf("streams[%d].name", j), *st.Name); err != nil {
			return err
		}
		if len(st.InstanceIDs) > maxInstanceIDs {
			return fmt.Errorf("streams[%d].instance_ids: at most %d", j, maxInstanceIDs)
		}
		for _, id := range st.InstanceIDs {
			if err := checkSelectionID(fmt.Sprintf("streams[%d].instance_ids", j), id); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkSelectionID requires a non-empty identifier of printable
// characters without spaces: connector keys (short or URL-shaped),
// connection ids and stream names.
func checkSelectionID(what, id string) error {
	if id == "" {
		return fmt.Errorf("%s is required", what)
	}
	if len(id) > maxSelectionIDLen {
		return fmt.Errorf("%s is longer than %d bytes", what, maxSelectionIDLen)
	}
	for _, r := range id {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return fmt.Errorf("%s %q holds a space or control character", what, id)
		}
	}
	return nil
}
