package adapter_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// detail:"full" carries every field's JSON Schema type and format in the
// text, read against the mock RS's own full schema document.
func TestSchemaFullTextCarriesTypesAndFormats(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken)
	r := e.c.call("schema", map[string]any{"stream": "messages", "detail": "full", "connection_id": demodata.GmailWorkConnectionID})
	if r.IsError {
		t.Fatal(r.text())
	}
	if strings.Contains(r.text(), "structuredContent") {
		t.Errorf("text points at structuredContent:\n%s", r.text())
	}
	// Ground truth: the RS's full schema over REST.
	req, _ := http.NewRequest(http.MethodGet, e.rs.URL+"/v1/schema?view=full&stream=messages&connection_id="+demodata.GmailWorkConnectionID, nil)
	req.Header.Set("Authorization", "Bearer "+demodata.GmailToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		Connectors []struct {
			Streams []struct {
				Name   string `json:"name"`
				Schema struct {
					Properties map[string]struct {
						Type   any    `json:"type"`
						Format string `json:"format"`
					} `json:"properties"`
				} `json:"schema"`
			} `json:"streams"`
		} `json:"connectors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	checked, formats := 0, 0
	for _, c := range doc.Connectors {
		for _, s := range c.Streams {
			for name, p := range s.Schema.Properties {
				typ, ok := p.Type.(string)
				if !ok {
					continue
				}
				want := name + " " + typ
				if p.Format != "" {
					want += "/" + p.Format
					formats++
				}
				if !strings.Contains(r.text(), want) {
					t.Errorf("text lacks %q", want)
				}
				checked++
			}
		}
	}
	if checked < 5 || formats == 0 {
		t.Fatalf("ground truth too thin (%d typed fields, %d formats); the check is vacuous", checked, formats)
	}
	t.Logf("%d typed fields, %d with formats; text %d B", checked, formats, len(r.text()))
}

// At 60 fields the full text of one stream stays within 8 KB, and an
// RS that declares no types (as the real RS does today) says so.
func TestSchemaFullTextBoundedAt60Fields(t *testing.T) {
	t.Parallel()
	var caps, props []string
	for i := range 60 {
		caps = append(caps, fmt.Sprintf(`"field_number_%02d":"t=string,lex"`, i))
		props = append(props, fmt.Sprintf(`"field_number_%02d":{"type":["string","null"],"format":"date-time"}`, i))
	}
	props[0] = `"field_number_00":{}`
	compact := `{"object":"schema","bearer":{"token_kind":"client","scope":"grant","grant_id":"grt_1"},"connectors":[{"connector_key":"wide","source":{"id":"wide","kind":"connector"},` +
		`"granted_connections":[{"connection_id":"cin_1","display_name":"Wide"}],"streams":[{"name":"rows","primary_key":["field_number_01"],"field_capabilities":{` + strings.Join(caps, ",") + `}}]}],"links":{"self":"/v1/schema"},"meta":{"count":{"kind":"none"},"warnings":[]}}`
	full := `{"object":"schema","connectors":[{"connector_key":"wide","streams":[{"name":"rows","schema":{"type":"object","properties":{` + strings.Join(props, ",") + `}}}]}],"links":{"self":"/v1/schema"}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("view") == "full" || r.URL.Query().Get("detail") == "full" {
			_, _ = w.Write([]byte(full))
			return
		}
		_, _ = w.Write([]byte(compact))
	}))
	t.Cleanup(srv.Close)
	c := newClient(t, newAdapterFor(t, srv.URL, "tok"))
	r := c.call("schema", map[string]any{"stream": "rows", "detail": "full", "connection_id": "cin_1"})
	if r.IsError {
		t.Fatal(r.text())
	}
	containsAll(t, r.text(), "field_number_59 string/date-time|null", "field_number_00 -", `"-" = type not advertised`)
	if len(r.text()) > 8*1024 {
		t.Errorf("full text %d B > 8 KB at 60 fields", len(r.text()))
	}
	// The same budget binds the page a host hands the model.
	host := hostJSON(t, r.StructuredContent)
	if len(host) > 8*1024 || !strings.Contains(string(host), "field_number_59 string/date-time|null") {
		t.Errorf("full structuredContent %d B (> 8 KB, or without the types line)", len(host))
	}
	t.Logf("60 fields: full text %d B, structuredContent %d B", len(r.text()), len(host))
}
