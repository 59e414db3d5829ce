package schemaindex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// Input bounds of Parse. A real grant schema is tens of KB; the caps stop a
// faulty or hostile RS from making the adapter allocate without limit.
const (
	MaxBodyBytes = 16 << 20
	MaxStreams   = 10_000
)

// Parse decodes one RS schema body (full view with capability objects, or
// view=compact with flag strings) fetched through the grant src. It rejects
// bodies that are not schema documents (*ParseError matching ErrNotSchema)
// or exceed the bounds (ErrTooLarge), and ignores unknown keys. When
// src.GrantID is empty the bearer's grant_id fills it.
func Parse(body []byte, src Source) (*Doc, error) {
	if len(body) > MaxBodyBytes {
		return nil, &ParseError{ErrTooLarge, fmt.Sprintf("%d bytes > %d", len(body), MaxBodyBytes)}
	}
	w, err := decodeDoc(body, true)
	if err != nil {
		return nil, err
	}
	d := &Doc{}
	if w.Bearer != nil {
		d.Bearer = Bearer(*w.Bearer)
	}
	if src.GrantID == "" {
		src.GrantID = d.Bearer.GrantID
	}
	total := 0
	for _, wc := range *w.Connectors {
		total += len(wc.Streams)
	}
	if total > MaxStreams {
		return nil, &ParseError{ErrTooLarge, fmt.Sprintf("%d streams > %d", total, MaxStreams)}
	}
	d.Connectors = make([]Connector, 0, len(*w.Connectors))
	for i, wc := range *w.Connectors {
		c, err := parseConnector(wc, src, d.Bearer.TokenKind)
		if err != nil {
			return nil, &ParseError{ErrNotSchema, fmt.Sprintf("connectors[%d]%s", i, err)}
		}
		d.Connectors = append(d.Connectors, c)
	}
	return d, nil
}

// decodeDoc checks the top-level shape and unwraps a `data` envelope once
// (the reference package client nests the document there).
func decodeDoc(body []byte, unwrap bool) (*wireDoc, error) {
	var w wireDoc
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, &ParseError{ErrNotSchema, "invalid JSON or wrong types: " + clip(err.Error(), 200)}
	}
	switch {
	case w.Error != nil && w.Connectors == nil:
		return nil, &ParseError{ErrNotSchema, fmt.Sprintf("RS error envelope (code %q)", clip(w.Error.Code, 80))}
	case w.Object != nil && *w.Object != "schema":
		return nil, &ParseError{ErrNotSchema, fmt.Sprintf("object is %q, want \"schema\"", clip(*w.Object, 80))}
	case w.Connectors == nil && unwrap && len(w.Data) > 0 && w.Data[0] == '{':
		return decodeDoc(w.Data, false)
	case w.Connectors == nil:
		return nil, &ParseError{ErrNotSchema, "connectors array missing"}
	}
	return &w, nil
}

func parseConnector(wc wireConnector, src Source, tokenKind string) (Connector, error) {
	c := Connector{
		Key:         firstNonEmpty(wc.ConnectorKey, wc.ConnectorID, wc.Source.ID),
		SourceID:    wc.Source.ID,
		DisplayName: firstNonEmpty(wc.DisplayName, wc.ConnectorDisplayName),
		Connections: conns(wc.GrantedConnections),
		Source:      src,
		TokenKind:   tokenKind,
		Streams:     make([]Stream, 0, len(wc.Streams)),
	}
	if c.Key == "" {
		return c, fmt.Errorf(": connector_key, connector_id and source.id all missing")
	}
	lifted := len(c.Connections) > 0
	for j, ws := range wc.Streams {
		s, err := parseStream(ws)
		if err != nil {
			return c, fmt.Errorf(".streams[%d]: %w", j, err)
		}
		if !lifted {
			// Full view: the connector set is the union of stream sets.
			for _, cn := range s.Connections {
				if !slices.ContainsFunc(c.Connections, func(x Connection) bool { return x.ID == cn.ID }) {
					c.Connections = append(c.Connections, cn)
				}
			}
		}
		c.Streams = append(c.Streams, s)
	}
	for j := range c.Streams {
		if len(c.Streams[j].Connections) == 0 {
			c.Streams[j].Connections = slices.Clone(c.Connections)
		}
	}
	return c, nil
}

func parseStream(ws wireStream) (Stream, error) {
	s := Stream{
		Name:        firstNonEmpty(ws.Name, ws.Stream),
		PrimaryKey:  ws.PrimaryKey,
		CursorField: ws.CursorField,
		Connections: conns(ws.GrantedConnections),
		RecordCount: ws.RecordCount,
		Expand:      parseExpand(ws.ExpandCapabilities),
	}
	if s.Name == "" {
		return s, fmt.Errorf("name missing")
	}
	if len(s.Connections) == 0 {
		for _, id := range ws.InstanceIDs {
			s.Connections = append(s.Connections, Connection{ID: id})
		}
	}
	if len(s.Connections) == 0 && ws.ConnectionID != "" {
		s.Connections = []Connection{{ID: ws.ConnectionID, DisplayName: ws.ConnectionDisplayName}}
	}
	for _, v := range ws.Views {
		if id := viewID(v); id != "" {
			s.Views = append(s.Views, id)
		}
	}
	if ws.Query != nil {
		var count bool
		if raw, ok := ws.Query.Aggregations["count"]; ok {
			_ = json.Unmarshal(raw, &count) // non-bool means not declared
		}
		s.CountMetric = &count
	}
	fields, err := parseFields(ws.FieldCapabilities)
	if err != nil {
		return s, fmt.Errorf("field_capabilities: %w", err)
	}
	s.Fields = fields
	return s, nil
}

func conns(ws []wireConn) []Connection {
	var out []Connection
	for _, w := range ws {
		id := firstNonEmpty(w.ConnectionID, w.ConnectorInstanceID)
		if id == "" || slices.ContainsFunc(out, func(c Connection) bool { return c.ID == id }) {
			continue
		}
		out = append(out, Connection{ID: id, DisplayName: w.DisplayName})
	}
	return out
}

func parseExpand(ws []wireExpand) []Expand {
	out := make([]Expand, 0, len(ws))
	for _, w := range ws {
		e := Expand{
			Name:         firstNonEmpty(w.Name, w.Relation),
			TargetStream: firstNonEmpty(w.TargetStream, w.Stream),
			Cardinality:  w.Cardinality,
			ForeignKey:   w.ForeignKey,
			Granted:      w.Usable,
			Usable:       w.Usable,
			Reason:       w.Reason,
			DefaultLimit: w.DefaultLimit,
			MaxLimit:     w.MaxLimit,
		}
		if w.Granted != nil {
			e.Granted = *w.Granted
		}
		if e.Name != "" {
			out = append(out, e)
		}
	}
	return out
}

// viewID accepts a view object {id,…} or a bare view id string.
func viewID(raw json.RawMessage) string {
	var id string
	if json.Unmarshal(raw, &id) == nil {
		return id
	}
	var v struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(raw, &v)
	return v.ID
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// isNull reports whether raw is absent or JSON null.
func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}
