package rstest

import (
	"encoding/json"
	"fmt"
	"slices"
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
// and nothing else. With fields (a grant's projection) the view holds
// those fields alone, in the grant's order: the reference builds a
// client's stream schema from the grant's field list
// (reference-implementation/server/index.ts,
// projectManifestStreamForGrant), so a withheld field is not listed at
// all.
func declaredInfo(info *streamInfo, fields []string) *streamInfo {
	var names []string
	if fields == nil {
		names = make([]string, 0, len(info.props))
		for _, p := range info.props {
			names = append(names, p.name)
		}
		sort.Strings(names)
	} else {
		for _, f := range fields {
			if !slices.Contains(names, f) {
				names = append(names, f)
			}
		}
	}
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

// advertised is the stream view a principal's schema documents show; gs
// is the principal's grant of the stream (nil for an owner).
func (s *Server) advertised(p *principal, info *streamInfo, gs *GrantStream) *streamInfo {
	if p.owner || s.opts.Capabilities != CapabilitiesDeclared {
		return info
	}
	if gs != nil && gs.Fields != nil {
		return declaredInfo(info, gs.Fields)
	}
	if d := s.ix.declared[info]; d != nil {
		return d
	}
	return info
}
