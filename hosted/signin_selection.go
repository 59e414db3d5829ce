package hosted

import (
	"errors"
	"net/url"
	"strings"
)

// Bounds of an operator's sign-in selection. The selection travels in the
// authorize URL a browser follows, so it stays well under common URL
// limits (8 KiB at many proxies).
const (
	// MaxAuthorizationDetailsBytes bounds the compacted authorization_details.
	MaxAuthorizationDetailsBytes = 6 << 10
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
	d, err := decodeDetail([]byte(s.AuthorizationDetails))
	if err != nil {
		return "authorization_details (invalid)"
	}
	p := stringMember(d, "source", "id")
	if ids := instanceIDs(d); len(ids) > 0 {
		p += " connections " + strings.Join(ids, ", ")
	}
	return "authorization_details: " + p
}
