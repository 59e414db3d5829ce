package schemaindex

import "encoding/json"

// Wire shapes of GET /v1/schema (rs-contract §3). Only what the model needs
// is declared; unknown keys are ignored so RS additions never break parsing.

type wireDoc struct {
	Object     *string          `json:"object"`
	Bearer     *wireBearer      `json:"bearer"`
	Connectors *[]wireConnector `json:"connectors"`
	Data       json.RawMessage  `json:"data"`
	Error      *struct {
		Code string `json:"code"`
	} `json:"error"`
}

type wireBearer struct {
	TokenKind string `json:"token_kind"`
	Scope     string `json:"scope"`
	GrantID   string `json:"grant_id"`
	ClientID  string `json:"client_id"`
}

type wireConnector struct {
	Source struct {
		ID   string `json:"id"`
		Kind string `json:"kind"`
	} `json:"source"`
	ConnectorKey         string       `json:"connector_key"`
	ConnectorID          string       `json:"connector_id"`
	DisplayName          string       `json:"display_name"`
	ConnectorDisplayName string       `json:"connector_display_name"`
	GrantedConnections   []wireConn   `json:"granted_connections"`
	Streams              []wireStream `json:"streams"`
}

type wireConn struct {
	ConnectionID        string `json:"connection_id"`
	ConnectorInstanceID string `json:"connector_instance_id"`
	DisplayName         string `json:"display_name"`
}

type wireStream struct {
	Name                  string            `json:"name"`
	Stream                string            `json:"stream"`
	PrimaryKey            []string          `json:"primary_key"`
	CursorField           string            `json:"cursor_field"`
	GrantedConnections    []wireConn        `json:"granted_connections"`
	InstanceIDs           []string          `json:"instance_ids"`
	ConnectionID          string            `json:"connection_id"`
	ConnectionDisplayName string            `json:"connection_display_name"`
	RecordCount           *int64            `json:"record_count"`
	FieldCapabilities     json.RawMessage   `json:"field_capabilities"`
	ExpandCapabilities    []wireExpand      `json:"expand_capabilities"`
	Views                 []json.RawMessage `json:"views"`
	Query                 *struct {
		Aggregations map[string]json.RawMessage `json:"aggregations"`
	} `json:"query"`
}

type wireExpand struct {
	Name         string `json:"name"`
	Relation     string `json:"relation"`
	Stream       string `json:"stream"`
	TargetStream string `json:"target_stream"`
	Cardinality  string `json:"cardinality"`
	ForeignKey   string `json:"foreign_key"`
	Granted      *bool  `json:"granted"`
	Usable       bool   `json:"usable"`
	Reason       string `json:"reason"`
	DefaultLimit int    `json:"default_limit"`
	MaxLimit     int    `json:"max_limit"`
}

// wireFieldCap is the full-view FieldCapability object (rs-contract §3.2).
type wireFieldCap struct {
	Type           string              `json:"type"`
	Role           string              `json:"role"`
	Granted        *bool               `json:"granted"`
	Schema         json.RawMessage     `json:"schema"`
	Flags          *string             `json:"flags"`
	ExactFilter    *wireCap            `json:"exact_filter"`
	RangeFilter    *wireCap            `json:"range_filter"`
	LexicalSearch  *wireCap            `json:"lexical_search"`
	SemanticSearch *wireCap            `json:"semantic_search"`
	Aggregation    map[string]*wireCap `json:"aggregation"`
}

type wireCap struct {
	Declared  bool     `json:"declared"`
	Usable    bool     `json:"usable"`
	Reason    string   `json:"reason"`
	Operators []string `json:"operators"`
}
