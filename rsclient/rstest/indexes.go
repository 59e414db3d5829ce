package rstest

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest/internal/searchindex"
)

// indexes are the lookup structures New derives from a Dataset.
type indexes struct {
	connectors  map[string]*Connector
	streams     map[string]map[string]*streamInfo // connector key → stream name → info
	connections map[string]*Connection
	// connsOf lists a connector's connections in dataset order.
	connsOf map[string][]*Connection
	// recs holds per connection+stream record lists in three orders.
	recs    map[csKey]*recordSet
	grants  map[string]*Grant // by token
	owners  map[string]bool
	expired map[string]bool
	search  *searchindex.Index
	// lexicalGap holds Options.LexicalGaps.
	lexicalGap map[csKey]bool
	// declared maps each stream to its declared-posture view (posture.go).
	declared map[*streamInfo]*streamInfo
}

// csKey addresses one connection's stream.
type csKey struct{ conn, stream string }

// recordSet is one connection's records of one stream.
type recordSet struct {
	asc, desc []*rec // live records, ordered for each direction
	changes   []*rec // live and deleted, by latest change version
	byID      map[string]*rec
	// maxVersion is the change-log version counter; versionAt[v] is when
	// version v happened (see changelog.go).
	maxVersion int
	versionAt  []time.Time
}

// rec is a Record plus its precomputed sort key.
type rec struct {
	*Record
	key sortKey
	// createV and deleteV are the record's change-log versions (deleteV is
	// 0 unless it is a tombstone).
	createV, deleteV int
}

// streamInfo is a manifest stream plus its parsed schema properties.
type streamInfo struct {
	decl      *Stream
	connector *Connector
	props     []prop
	propIdx   map[string]*prop
}

// prop is one top-level schema property.
type prop struct {
	name   string
	schema json.RawMessage
	types  []string // JSON Schema types, "null" included
	xType  string
	role   string
	format string
}

// buildIndexes validates ds and derives the indexes.
func buildIndexes(ds *Dataset) (*indexes, error) {
	var probs []string
	bad := func(f string, a ...any) { probs = append(probs, fmt.Sprintf(f, a...)) }
	ix := &indexes{
		connectors: map[string]*Connector{}, streams: map[string]map[string]*streamInfo{},
		connections: map[string]*Connection{}, connsOf: map[string][]*Connection{},
		recs: map[csKey]*recordSet{}, grants: map[string]*Grant{}, owners: map[string]bool{},
		expired: map[string]bool{}, declared: map[*streamInfo]*streamInfo{},
	}
	for _, c := range ds.Connectors {
		if c == nil || c.Key == "" {
			bad("connector with empty key")
			continue
		}
		if ix.connectors[c.Key] != nil {
			bad("duplicate connector key %q", c.Key)
			continue
		}
		ix.connectors[c.Key] = c
		ix.streams[c.Key] = map[string]*streamInfo{}
		for i := range c.Streams {
			st := &c.Streams[i]
			if ix.streams[c.Key][st.Name] != nil || st.Name == "" {
				bad("connector %q: duplicate or empty stream name %q", c.Key, st.Name)
				continue
			}
			info, err := parseStream(c, st)
			if err != nil {
				bad("connector %q stream %q: %v", c.Key, st.Name, err)
				continue
			}
			ix.streams[c.Key][st.Name] = info
			ix.declared[info] = declaredInfo(info, nil)
		}
	}
	for i := range ds.Connections {
		cn := &ds.Connections[i]
		switch {
		case cn.ID == "" || ix.connections[cn.ID] != nil:
			bad("duplicate or empty connection id %q", cn.ID)
		case ix.connectors[cn.ConnectorKey] == nil:
			bad("connection %q: unknown connector key %q", cn.ID, cn.ConnectorKey)
		default:
			ix.connections[cn.ID] = cn
			ix.connsOf[cn.ConnectorKey] = append(ix.connsOf[cn.ConnectorKey], cn)
		}
	}
	ix.indexRecords(ds, bad)
	ix.indexTokens(ds, bad)
	if len(probs) > 0 {
		return nil, &ValidationError{Problems: probs}
	}
	ix.buildSearch()
	return ix, nil
}

// parseStream reads the schema properties of a stream declaration.
func parseStream(c *Connector, st *Stream) (*streamInfo, error) {
	info := &streamInfo{decl: st, connector: c, propIdx: map[string]*prop{}}
	var sch struct {
		Properties json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(st.Schema, &sch); err != nil {
		return nil, fmt.Errorf("schema: %v", err)
	}
	if len(sch.Properties) == 0 {
		return info, nil
	}
	names, vals, err := rawMembers(sch.Properties)
	if err != nil {
		return nil, fmt.Errorf("schema.properties: %v", err)
	}
	for i, n := range names {
		p := prop{name: n, schema: vals[i]}
		var ps struct {
			Type   json.RawMessage `json:"type"`
			XType  string          `json:"x_pdpp_type"`
			Role   string          `json:"x_pdpp_role"`
			Format string          `json:"format"`
		}
		if err := json.Unmarshal(vals[i], &ps); err != nil {
			return nil, fmt.Errorf("property %q: %v", n, err)
		}
		p.xType, p.role, p.format = ps.XType, ps.Role, ps.Format
		var one string
		if json.Unmarshal(ps.Type, &one) == nil && one != "" {
			p.types = []string{one}
		} else {
			_ = json.Unmarshal(ps.Type, &p.types)
		}
		info.props = append(info.props, p)
	}
	for i := range info.props {
		info.propIdx[info.props[i].name] = &info.props[i]
	}
	return info, nil
}

// indexRecords groups and orders the records.
func (ix *indexes) indexRecords(ds *Dataset, bad func(string, ...any)) {
	for i := range ds.Records {
		r := &ds.Records[i]
		cn := ix.connections[r.ConnectionID]
		if cn == nil {
			bad("record %q: unknown connection %q", r.ID, r.ConnectionID)
			continue
		}
		info := ix.streams[cn.ConnectorKey][r.Stream]
		if info == nil {
			bad("record %q: stream %q not declared by connector %q", r.ID, r.Stream, cn.ConnectorKey)
			continue
		}
		if r.ID == "" {
			bad("record with empty id in %s/%s", r.ConnectionID, r.Stream)
			continue
		}
		k := csKey{r.ConnectionID, r.Stream}
		set := ix.recs[k]
		if set == nil {
			set = &recordSet{byID: map[string]*rec{}}
			ix.recs[k] = set
		}
		if set.byID[r.ID] != nil {
			bad("duplicate record id %q in %s/%s", r.ID, r.ConnectionID, r.Stream)
			continue
		}
		if _, _, err := rawMembers(r.Data); err != nil && !r.Deleted {
			bad("record %q: data is not a JSON object", r.ID)
			continue
		}
		rc := &rec{Record: r, key: newSortKey(r, info.decl.CursorField)}
		set.byID[r.ID] = rc
		set.changes = append(set.changes, rc)
		if !r.Deleted {
			set.asc = append(set.asc, rc)
		}
	}
	for _, set := range ix.recs {
		set.desc = append([]*rec(nil), set.asc...)
		sort.SliceStable(set.asc, func(i, j int) bool { return lessFor("asc")(set.asc[i].key, set.asc[j].key) })
		sort.SliceStable(set.desc, func(i, j int) bool { return lessFor("desc")(set.desc[i].key, set.desc[j].key) })
		set.numberVersions()
	}
}

// indexTokens validates grants and token lists. Every problem is reported
// through bad, in dataset order, so the first message stays the same.
func (ix *indexes) indexTokens(ds *Dataset, bad func(string, ...any)) {
	seenTok := map[string]bool{}
	seenGrant := map[string]bool{}
	for _, t := range ds.OwnerTokens {
		if t == "" || seenTok[t] {
			bad("duplicate or empty owner token")
		}
		seenTok[t] = true
		ix.owners[t] = true
	}
	for _, t := range ds.ExpiredTokens {
		ix.expired[t] = true
	}
	for gi := range ds.Grants {
		ix.indexGrant(&ds.Grants[gi], seenTok, seenGrant, bad)
	}
}

// indexGrant registers one grant under its token after checking its id and
// token are unique, then checks its streams against its connector.
func (ix *indexes) indexGrant(g *Grant, seenTok, seenGrant map[string]bool, bad func(string, ...any)) {
	if g.ID == "" || seenGrant[g.ID] {
		bad("duplicate or empty grant id %q", g.ID)
	}
	seenGrant[g.ID] = true
	if g.Token == "" || seenTok[g.Token] {
		bad("grant %q: duplicate or empty token", g.ID)
	}
	seenTok[g.Token] = true
	ix.grants[g.Token] = g
	if ix.connectors[g.ConnectorKey] == nil {
		bad("grant %q: unknown connector key %q", g.ID, g.ConnectorKey)
		return
	}
	sts := ix.streams[g.ConnectorKey]
	seenStream := map[string]bool{}
	for _, gs := range g.Streams {
		info := sts[gs.Name]
		if info == nil || seenStream[gs.Name] {
			bad("grant %q: stream %q not in manifest of %q or duplicated", g.ID, gs.Name, g.ConnectorKey)
			continue
		}
		seenStream[gs.Name] = true
		ix.checkGrantStream(g, &gs, info, bad)
	}
}

// checkGrantStream checks one granted stream's connections, fields and time
// constraint exist (and the connections belong to the grant's connector).
func (ix *indexes) checkGrantStream(g *Grant, gs *GrantStream, info *streamInfo, bad func(string, ...any)) {
	if len(gs.ConnectionIDs) == 0 {
		bad("grant %q stream %q: no connection ids", g.ID, gs.Name)
	}
	for _, id := range gs.ConnectionIDs {
		if cn := ix.connections[id]; cn == nil || cn.ConnectorKey != g.ConnectorKey {
			bad("grant %q stream %q: connection %q unknown or of another connector", g.ID, gs.Name, id)
		}
	}
	for _, f := range gs.Fields {
		if info.propIdx[f] == nil {
			bad("grant %q stream %q: field %q not in schema", g.ID, gs.Name, f)
		}
	}
	if tc := gs.TimeConstraint; tc != nil && info.propIdx[tc.Field] == nil {
		bad("grant %q stream %q: time constraint field %q not in schema", g.ID, gs.Name, tc.Field)
	}
}
