package ritest

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"time"

	"github.com/google/go-cmp/cmp"
)

const (
	// ownerClient is the RI's built-in owner bootstrap client; in the
	// loopback development posture its device flow needs no password.
	ownerClient = "pdpp-polyfill-owner-bootstrap"
	connectorID = "gmail"
	// personalEmail is the Personal connection's identity field; the RI
	// derives the connection id from it.
	personalEmail = "me.personal@example.com"
)

// seeder fills a fresh RI with the data set through its public API.
type seeder struct {
	c      httpc
	as, rs string
	owner  string // owner bearer
	src    string // RI source tree, for the connector manifest
	logf   func(string, ...any)
}

// hiddenField matches the device approval form's hidden inputs.
var hiddenField = regexp.MustCompile(`name="([A-Za-z_]+)" value="([^"]*)"`)

// ownerToken runs the owner device flow: the approval form's hidden fields
// (user_code, subject_id, _csrf) go back as a browser would send them.
func (s *seeder) ownerToken(ctx context.Context) error {
	var da struct {
		DeviceCode string `json:"device_code"`
		UserCode   string `json:"user_code"`
	}
	if err := s.c.doJSON(ctx, request{method: "POST", url: s.as + "/oauth/device_authorization",
		form: url.Values{"client_id": {ownerClient}}}, &da, 200); err != nil {
		return err
	}
	page, err := s.c.do(ctx, request{method: "GET", url: s.as + "/device?user_code=" + url.QueryEscape(da.UserCode)}, 200)
	if err != nil {
		return err
	}
	form := url.Values{}
	for _, m := range hiddenField.FindAllStringSubmatch(string(page.body), -1) {
		form.Set(m[1], html.UnescapeString(m[2]))
	}
	if form.Get("user_code") == "" {
		form.Set("user_code", da.UserCode)
	}
	if _, err := s.c.do(ctx, request{method: "POST", url: s.as + "/device/approve", form: form}, 200); err != nil {
		return err
	}
	var tok tokenAnswer
	if err := s.c.doJSON(ctx, request{method: "POST", url: s.as + "/oauth/token", form: url.Values{
		"grant_type": {"urn:ietf:params:oauth:grant-type:device_code"}, "device_code": {da.DeviceCode}, "client_id": {ownerClient},
	}}, &tok, 200); err != nil {
		return err
	}
	s.owner = tok.AccessToken
	return nil
}

// registerConnector registers the RI's own gmail manifest.
func (s *seeder) registerConnector(ctx context.Context) error {
	rep, err := s.c.do(ctx, request{method: "GET", url: s.as + "/connectors/" + connectorID})
	if err != nil {
		return err
	}
	if rep.status == 200 {
		return nil
	}
	manifest, err := os.ReadFile(filepath.Join(s.src, "packages", "polyfill-connectors", "manifests", "gmail.json"))
	if err != nil {
		return err
	}
	_, err = s.c.do(ctx, request{method: "POST", url: s.as + "/connectors", raw: manifest, contentType: "application/json"}, 200, 201)
	return err
}

// ownerConnection is one entry of the owner's connection list.
type ownerConnection struct {
	ConnectionID  string `json:"connection_id"`
	ConnectorID   string `json:"connector_id"`
	DisplayName   string `json:"display_name"`
	SourceBinding struct {
		Kind string `json:"kind"`
	} `json:"source_binding"`
}

func (s *seeder) connections(ctx context.Context) ([]ownerConnection, error) {
	var list struct {
		Data []ownerConnection `json:"data"`
	}
	if err := s.c.doJSON(ctx, request{method: "GET", url: s.rs + "/v1/owner/connections", bearer: s.owner}, &list, 200); err != nil {
		return nil, err
	}
	return slices.DeleteFunc(list.Data, func(c ownerConnection) bool { return c.ConnectorID != connectorID }), nil
}

// ingest posts one stream of a connection as NDJSON; instance "" lets the
// RI create the connector's default connection.
func (s *seeder) ingest(ctx context.Context, c *Connection, stream, instance string) error {
	body, err := c.NDJSON(stream)
	if err != nil {
		return err
	}
	q := url.Values{"connector_id": {connectorID}}
	if instance != "" {
		q.Set("connector_instance_id", instance)
	}
	var out struct {
		Accepted int `json:"records_accepted"`
		Rejected int `json:"records_rejected"`
	}
	if err := s.c.doJSON(ctx, request{method: "POST", url: s.rs + "/v1/ingest/" + stream + "?" + q.Encode(), bearer: s.owner,
		raw: body, contentType: "application/x-ndjson"}, &out, 200); err != nil {
		return err
	}
	if out.Accepted != c.RecordCount(stream) || out.Rejected != 0 {
		return fmt.Errorf("ingest %s/%s: %d accepted, %d rejected, want %d accepted", c.Key, stream, out.Accepted, out.Rejected, c.RecordCount(stream))
	}
	s.logf("RI seed: %s/%s: %d records", c.Key, stream, out.Accepted)
	return nil
}

// seed fills the fresh RI: Work Gmail is the default connection the first
// ingest creates (then renamed); Personal Gmail is a draft connection,
// activated by its first ingest. It returns the connection ids by key.
func (s *seeder) seed(ctx context.Context, ds *Dataset) (map[string]string, error) {
	if err := s.ownerToken(ctx); err != nil {
		return nil, fmt.Errorf("owner device flow: %w", err)
	}
	if err := s.registerConnector(ctx); err != nil {
		return nil, fmt.Errorf("connector registration: %w", err)
	}
	if err := s.ingest(ctx, &ds.Work, "messages", ""); err != nil {
		return nil, err
	}
	conns, err := s.connections(ctx)
	if err != nil {
		return nil, err
	}
	if len(conns) != 1 {
		return nil, fmt.Errorf("after the first ingest the owner has %d gmail connections, want 1: %+v", len(conns), conns)
	}
	work := conns[0].ConnectionID
	if _, err := s.c.do(ctx, request{method: "PATCH", url: s.rs + "/v1/owner/connections/" + url.PathEscape(work), bearer: s.owner,
		json: map[string]string{"display_name": ds.Work.DisplayName}}, 200); err != nil {
		return nil, fmt.Errorf("rename the default connection: %w", err)
	}
	for _, st := range seedStreams[1:] {
		if err := s.ingest(ctx, &ds.Work, st, work); err != nil {
			return nil, err
		}
	}
	var draft struct {
		ConnectionID string `json:"connection_id"`
	}
	if err := s.c.doJSON(ctx, request{method: "POST", url: s.as + "/_ref/connectors/" + connectorID + "/draft-connection", bearer: s.owner,
		json: map[string]any{"display_name": ds.Personal.DisplayName, "setup_fields": map[string]string{"account_email": personalEmail}}},
		&draft, 200, 201); err != nil {
		return nil, fmt.Errorf("draft connection: %w", err)
	}
	for _, st := range seedStreams {
		if err := s.ingest(ctx, &ds.Personal, st, draft.ConnectionID); err != nil {
			return nil, err
		}
	}
	return map[string]string{"work": work, "personal": draft.ConnectionID}, nil
}

// verifyCounts checks, with owner reads, each connection's record counts
// and the size sum against the ground truth.
func (s *seeder) verifyCounts(ctx context.Context, conns map[string]string, tr Truth) error {
	agg := func(stream string, q url.Values) (any, error) {
		var out struct {
			Value any `json:"value"`
		}
		q.Set("connector_id", connectorID)
		err := s.c.doJSON(ctx, request{method: "GET", url: s.rs + "/v1/streams/" + stream + "/aggregate?" + q.Encode(), bearer: s.owner}, &out, 200)
		return out.Value, err
	}
	want, got := map[string]float64{}, map[string]float64{}
	for key, id := range conns {
		for _, st := range []string{"messages", "message_bodies", "threads"} {
			v, err := agg(st, url.Values{"metric": {"count"}, "connection_id": {id}})
			if err != nil {
				return err
			}
			want[key+" "+st], got[key+" "+st] = float64(tr.PerConnection[key].Counts[st]), number(v)
		}
	}
	v, err := agg("messages", url.Values{"metric": {"sum"}, "field": {"size_bytes"}})
	if err != nil {
		return err
	}
	want["size_bytes sum"], got["size_bytes sum"] = float64(tr.SizeBytesSum), number(v)
	if diff := cmp.Diff(want, got); diff != "" {
		return fmt.Errorf("seeded RI disagrees with the ground truth (-want +got):\n%s", diff)
	}
	return nil
}

func number(v any) float64 {
	f, _ := v.(float64)
	return f
}

// lexicalState is the RS's own word on its lexical index ("built",
// "building" or "stale": a dirty scope is waiting for repair), from its
// public resource metadata.
func lexicalState(ctx context.Context, c httpc, rs string) (string, error) {
	var meta struct {
		Capabilities struct {
			Lexical struct {
				IndexState string `json:"index_state"`
			} `json:"lexical_retrieval"`
		} `json:"capabilities"`
	}
	if err := c.doJSON(ctx, request{method: "GET", url: rs + "/.well-known/oauth-protected-resource"}, &meta, 200); err != nil {
		return "", err
	}
	return meta.Capabilities.Lexical.IndexState, nil
}

// awaitIndexBuilt polls the RS until its lexical index reports "built".
// poke, when set, runs before each poll: an owner search makes the RI
// start its read-time repair of dirty scopes instead of waiting for the
// 60 s maintenance sweep.
func awaitIndexBuilt(ctx context.Context, c httpc, rs string, poke func(), logf func(string, ...any)) error {
	deadline := time.Now().Add(4 * time.Minute)
	for last := ""; ; {
		if poke != nil {
			poke()
		}
		state, err := lexicalState(ctx, c, rs)
		if err != nil {
			return err
		}
		if state == "built" {
			return nil
		}
		if state != last {
			logf("RI seed: lexical index %s; waiting", state)
			last = state
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("lexical index still %q after 4 minutes", state)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
}

// searchIDs runs a lexical search with a client token and returns the
// record keys of the hits, sorted.
func searchIDs(ctx context.Context, c httpc, rs, bearer, q string) ([]string, error) {
	var out struct {
		Data []struct {
			RecordKey string `json:"record_key"`
			ID        string `json:"id"`
		} `json:"data"`
	}
	if err := c.doJSON(ctx, request{method: "GET", url: rs + "/v1/search?" + url.Values{"q": {q}, "limit": {"50"}}.Encode(), bearer: bearer}, &out, 200); err != nil {
		return nil, err
	}
	var ids []string
	for _, h := range out.Data {
		id := h.RecordKey
		if id == "" {
			id = h.ID
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids, nil
}

// connectionsFile is the seed's record of the connection ids, kept beside
// the cached database.
type connectionsFile struct {
	SeedVersion string            `json:"seed_version"`
	Connections map[string]string `json:"connections"`
}

func writeJSON(path string, v any) error {
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(raw, '\n'), 0o644)
}
