package adapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

// A Server built from an RS client answers MCP JSON-RPC; tools/list needs
// no RS call and lists the six tools in catalog order.
func ExampleNew() {
	rs, err := rsclient.New(rsclient.Config{BaseURL: "https://rs.example"})
	if err != nil {
		log.Fatal(err)
	}
	srv, err := adapter.New(adapter.Config{RS: rs, Grants: []adapter.Grant{adapter.NewGrant("a-client-token")}})
	if err != nil {
		log.Fatal(err)
	}
	resp := srv.MCP().HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	raw, _ := json.Marshal(resp)
	var list struct {
		Result struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		log.Fatal(err)
	}
	for _, t := range list.Result.Tools {
		fmt.Println(t.Name)
	}
	// Output:
	// schema
	// query_records
	// aggregate
	// search
	// fetch
	// read_record_field
}
