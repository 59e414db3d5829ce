package rstest

import (
	"encoding/json"
	"fmt"
	"sort"
)

// Capabilities is the capability posture a Server advertises in its schema
// documents to client tokens.
type Capabilities string

const (
	// CapabilitiesFull advertises each stream as its manifest declares it:
	// primary key, cursor field, query block, typed field capabilities.
	CapabilitiesFull Capabilities = "full"
	// CapabilitiesDeclared is the real reference RS's posture for
	// manifest-registered streams (real-rs-differences D1): primary_key [],
	// no cursor_field, every field capability "declared" (full view: query
	// {}, every capability declared:false usable:false), no views,
	// relationships or expand capabilities. The RS still sorts on the
	// cursor field, aggregates and searches as the manifest allows; only
	// the advertisement is missing. Owner schema reads stay full, as on the
	// reference (capture 0144).
	CapabilitiesDeclared Capabilities = "declared"
)

// ParseCapabilities reads a posture name; "" means CapabilitiesFull.
func ParseCapabilities(s string) (Capabilities, error) {
	switch Capabilities(s) {
	case "", CapabilitiesFull:
		return CapabilitiesFull, nil
	case CapabilitiesDeclared:
		return CapabilitiesDeclared, nil
	}
	return "", fmt.Errorf("rstest: unknown capability posture %q (want full or declared)", s)
}

// declaredInfo derives the declared-posture view of a stream: its property
// names with empty schemas in lexical order (as the reference lists them)
// and nothing else.
func declaredInfo(info *streamInfo) *streamInfo {
	names := make([]string, 0, len(info.props))
	for _, p := range info.props {
		names = append(names, p.name)
	}
	sort.Strings(names)
	props := obj{}
	for _, n := range names {
		props = append(props, kv{n, obj{}})
	}
	schema, _ := json.Marshal(obj{{"additionalProperties", false}, {"properties", props}, {"type", "object"}})
	st := &Stream{Name: info.decl.Name, Schema: schema}
	d, err := parseStream(info.connector, st)
	if err != nil {
		return info // cannot happen: the schema above is well formed
	}
	return d
}

// advertised is the stream view a principal's schema documents show.
func (s *Server) advertised(p *principal, info *streamInfo) *streamInfo {
	if p.owner || s.opts.Capabilities != CapabilitiesDeclared {
		return info
	}
	if d := s.ix.declared[info]; d != nil {
		return d
	}
	return info
}
