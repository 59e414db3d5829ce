package rstest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// The real AS's selection rules (PDP-Connect/pdpp reference-implementation
// server/routes/as-authorize.ts; real-rs-differences D15), in the mock's
// real posture (Options.AuthRealPosture), on the query as qs parses it:
//
//   - no authorization_details and no string connector_id: the hosted-MCP
//     source picker, whose approval yields a grant-package token (no
//     grant_id) that /v1 refuses 404 "Unknown source: unknown";
//   - connector_id=<connector>: a single-connector consent, which works
//     only when the owner has exactly one connection of that connector and
//     otherwise fails with a raw JSON 400 and no code;
//   - authorization_details (a JSON string, or built from bracket keys):
//     each entry checked as the real AS checks it (oauth_details.go), its
//     source.id a registered source URI; one entry listing instance_ids
//     is a grant over exactly those connections, several entries a staged
//     batch whose approval is a grant package.
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

// selectionError is the real AS's refusal of a selection: a raw JSON 400
// (error code, description), no redirect, no code.
type selectionError struct{ code, msg string }

func (e *selectionError) Error() string { return e.msg }

func invalidRequest(msg string) *selectionError { return &selectionError{"invalid_request", msg} }

// resolveSelection applies the real AS's rules to an authorize request's
// parsed query (ParseQS): authorization_details wins over connector_id,
// and either one counts only in the shapes the real AS reads
// (reference-implementation/server/routes/as-authorize.ts,
// parseAuthorizeAuthorizationDetails): a JSON string, or an array or
// object built from bracket keys; connector_id only as a non-blank
// string (an array, from connector_id[]=…, is no selection at all).
func (s *Server) resolveSelection(q map[string]any) (selection, error) {
	details, err := authorizeDetails(q["authorization_details"])
	if err != nil {
		return selection{}, err
	}
	if details != nil {
		return s.selectByDetails(details)
	}
	if c, ok := q["connector_id"].(string); ok && strings.TrimSpace(c) != "" {
		return s.selectByConnector(strings.TrimSpace(c))
	}
	return selection{pkg: true}, nil
}

// authorizeDetails reads the authorization_details value: nil when absent
// or empty.
func authorizeDetails(raw any) (any, error) {
	switch v := raw.(type) {
	case nil:
		return nil, nil
	case []any, map[string]any:
		return v, nil
	case string:
		if v == "" {
			return nil, nil
		}
		if len(v) > maxAuthorizationDetails {
			return nil, invalidRequest("authorization_details is too large")
		}
		var parsed any
		if err := json.Unmarshal([]byte(v), &parsed); err != nil {
			return nil, invalidRequest(fmt.Sprintf("authorization_details is not valid JSON: %v", err))
		}
		if _, ok := parsed.([]any); !ok {
			return nil, invalidRequest("authorization_details must decode to an array")
		}
		return parsed, nil
	}
	return nil, invalidRequest("authorization_details must be JSON")
}

// selectByConnector is the connector_id shortcut (a connector key, or a
// connector's source URI): one connection of the connector, or the real
// AS's 400.
func (s *Server) selectByConnector(connector string) (selection, error) {
	if key := s.connectorBySource(connector); key != "" {
		connector = key
	}
	conns := s.connectionsOf(connector)
	if len(conns) != 1 {
		stream := "*"
		if g := s.grantOver(connector, nil); g != nil && len(g.Streams) > 0 {
			stream = g.Streams[0].Name
		}
		return selection{}, invalidRequest(fmt.Sprintf(
			"Omitted instance_ids requires exactly one eligible instance for stream '%s', found %d", stream, len(conns)))
	}
	return s.selectGrant(connector, conns)
}

// selectByDetails applies the real AS's checks to the entries: at least
// one; each entry's shape (validateSelectionRequest); its source a
// registered source URI. One entry selects a grant over the connections
// its streams name (instance_ids); several are the AS's staged batch,
// whose approval issues a grant package (routes/as-consent.ts).
func (s *Server) selectByDetails(details any) (selection, error) {
	entries, ok := details.([]any)
	if !ok {
		return selection{}, invalidRequest("Grant initiation requires authorization_details")
	}
	if len(entries) == 0 {
		return selection{}, invalidRequest("authorization_details must contain at least one entry")
	}
	connectors := make([]string, len(entries))
	for i, e := range entries {
		if msg := validateSelectionRequest(e); msg != "" {
			return selection{}, &selectionError{"invalid_authorization_details", msg}
		}
		src := e.(map[string]any)["source"].(map[string]any)
		id := src["id"].(string)
		if connectors[i] = s.connectorBySource(id); connectors[i] == "" {
			return selection{}, invalidRequest(fmt.Sprintf("Unknown source: { id: '%s' }", id))
		}
		if name := s.unknownStream(connectors[i], e.(map[string]any)); name != "" {
			return selection{}, &selectionError{"invalid_authorization_details", "Unknown stream: " + name}
		}
	}
	if len(entries) > 1 {
		return selection{pkg: true}, nil
	}
	var conns []string
	streams, _ := entries[0].(map[string]any)["streams"].([]any)
	for _, st := range streams {
		ids, _ := st.(map[string]any)["instance_ids"].([]any)
		for _, id := range ids {
			if id, ok := id.(string); ok && !slices.Contains(conns, id) {
				conns = append(conns, id)
			}
		}
	}
	if len(conns) == 0 {
		return s.selectByConnector(connectors[0])
	}
	return s.selectGrant(connectors[0], conns)
}

// unknownStream is the first stream an entry names that the connector
// does not declare ("*" is every stream), "" when none.
func (s *Server) unknownStream(connector string, entry map[string]any) string {
	var declared []string
	for _, c := range s.ds.Connectors {
		if c.Key == connector {
			for _, st := range c.Streams {
				declared = append(declared, st.Name)
			}
		}
	}
	streams, _ := entry["streams"].([]any)
	for _, st := range streams {
		if name, _ := st.(map[string]any)["name"].(string); name != "*" && !slices.Contains(declared, name) {
			return name
		}
	}
	return ""
}

// connectorBySource is the key of the connector whose source URI (or key)
// is id, "" when none.
func (s *Server) connectorBySource(id string) string {
	for _, c := range s.ds.Connectors {
		if c.SourceID == id || c.Key == id {
			return c.Key
		}
	}
	return ""
}

// selectGrant finds the dataset grant of connector over exactly conns.
func (s *Server) selectGrant(connector string, conns []string) (selection, error) {
	if g := s.grantOver(connector, conns); g != nil {
		return selection{grantID: g.ID}, nil
	}
	return selection{}, invalidRequest(fmt.Sprintf("no grant of connector %q covers connections %v", connector, conns))
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
