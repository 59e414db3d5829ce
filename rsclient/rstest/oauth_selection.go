package rstest

import (
	"encoding/json"
	"fmt"
	"slices"
)

// The real AS's selection rules (PDP-Connect/pdpp reference-implementation
// server/routes/as-authorize.ts; real-rs-differences D15), in the mock's
// real posture (Options.AuthRealPosture):
//
//   - no authorization_details and no connector_id: the hosted-MCP source
//     picker, whose approval yields a grant-package token (no grant_id)
//     that /v1 refuses 404 "Unknown source: unknown";
//   - connector_id=<connector>: a single-connector consent, which works
//     only when the owner has exactly one connection of that connector and
//     otherwise fails with a raw JSON 400 and no code;
//   - authorization_details listing instance_ids: a grant over exactly
//     those connections.
//
// The mock has no person to pick or consent: it approves at once, and a
// selection resolves to the dataset grant of that connector over exactly
// the selected connections.

// maxAuthorizationDetails bounds the authorization_details parameter.
const maxAuthorizationDetails = 16 << 10

// selection is what one authorize request asks for: a grant id, or a
// package token when package is true.
type selection struct {
	grantID string
	pkg     bool
}

// authorizationDetail is the part of a PDPP authorization_details entry
// the mock reads.
type authorizationDetail struct {
	Type        string `json:"type"`
	ConnectorID string `json:"connector_id"`
	// Source is the reference's shape ({"kind":"connector","id":…},
	// server/routes/as-consent-ui-helpers.ts); connector_id in either
	// place is read too.
	Source *struct {
		ID          string `json:"id"`
		ConnectorID string `json:"connector_id"`
	} `json:"source"`
	Streams []struct {
		Name        string   `json:"name"`
		InstanceIDs []string `json:"instance_ids"`
	} `json:"streams"`
}

// selectionError is the real AS's refusal of a selection: a raw JSON 400,
// no redirect, no code.
type selectionError struct{ msg string }

func (e *selectionError) Error() string { return e.msg }

// resolveSelection applies the real AS's rules to an authorize request's
// authorization_details and connector_id.
func (s *Server) resolveSelection(details, connectorID string) (selection, error) {
	switch {
	case details != "":
		return s.selectByDetails(details)
	case connectorID != "":
		return s.selectByConnector(connectorID)
	}
	return selection{pkg: true}, nil
}

// selectByConnector is the connector_id shortcut: one connection of the
// connector, or the real AS's 400.
func (s *Server) selectByConnector(connector string) (selection, error) {
	conns := s.connectionsOf(connector)
	if len(conns) != 1 {
		stream := "*"
		if g := s.grantOver(connector, nil); g != nil && len(g.Streams) > 0 {
			stream = g.Streams[0].Name
		}
		return selection{}, &selectionError{fmt.Sprintf(
			"Omitted instance_ids requires exactly one eligible instance for stream '%s', found %d", stream, len(conns))}
	}
	return s.selectGrant(connector, conns)
}

// selectByDetails reads authorization_details: one entry, naming its
// connector and the connections (instance_ids) its streams cover.
func (s *Server) selectByDetails(raw string) (selection, error) {
	if len(raw) > maxAuthorizationDetails {
		return selection{}, &selectionError{"authorization_details is too large"}
	}
	var details []authorizationDetail
	if err := json.Unmarshal([]byte(raw), &details); err != nil || len(details) != 1 {
		return selection{}, &selectionError{"authorization_details must be a JSON array of one entry"}
	}
	d := details[0]
	connector := d.ConnectorID
	if d.Source != nil && d.Source.ConnectorID != "" {
		connector = d.Source.ConnectorID
	}
	if d.Source != nil && d.Source.ID != "" {
		connector = d.Source.ID
	}
	var conns []string
	for _, st := range d.Streams {
		for _, id := range st.InstanceIDs {
			if !slices.Contains(conns, id) {
				conns = append(conns, id)
			}
		}
	}
	if len(conns) == 0 {
		return s.selectByConnector(connector)
	}
	return s.selectGrant(connector, conns)
}

// selectGrant finds the dataset grant of connector over exactly conns.
func (s *Server) selectGrant(connector string, conns []string) (selection, error) {
	if g := s.grantOver(connector, conns); g != nil {
		return selection{grantID: g.ID}, nil
	}
	return selection{}, &selectionError{fmt.Sprintf("no grant of connector %q covers connections %v", connector, conns)}
}

// connectionsOf lists the dataset's connections of connector.
func (s *Server) connectionsOf(connector string) []string {
	var out []string
	for _, c := range s.ds.Connections {
		if c.ConnectorKey == connector {
			out = append(out, c.ID)
		}
	}
	return out
}

// grantOver returns an active dataset grant of connector whose
// connections are exactly conns (any set when conns is nil).
func (s *Server) grantOver(connector string, conns []string) *Grant {
	for i := range s.ds.Grants {
		g := &s.ds.Grants[i]
		if g.ConnectorKey != connector || (g.Status != "" && g.Status != "active") {
			continue
		}
		have := grantConnectionIDs(g)
		if conns == nil || (len(have) == len(conns) && !slices.ContainsFunc(conns, func(c string) bool { return !slices.Contains(have, c) })) {
			return g
		}
	}
	return nil
}
