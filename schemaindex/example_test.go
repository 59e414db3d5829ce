package schemaindex_test

import (
	"errors"
	"fmt"

	"github.com/pdpp/pdpp-mcp/schemaindex"
)

func ExampleFormatFlags() {
	caps, err := schemaindex.ParseFlags("t=string|null,a=group_by_time|max|min")
	if err != nil {
		panic(err)
	}
	fmt.Println(caps.Type, caps.Aggs)
	caps.Granted = false
	fmt.Println(schemaindex.FormatFlags(caps))
	// Output:
	// string|null [group_by_time max min]
	// t=string|null,g=false,a=group_by_time|max|min
}

func ExampleIndex_Global() {
	body := schemaindex.SyntheticSchemaBody("gmail", 3, 5, []schemaindex.Connection{{ID: "cin_1", DisplayName: "Personal"}}, true)
	doc, err := schemaindex.Parse(body, schemaindex.Source{GrantKey: "hash-of-bearer"})
	if err != nil {
		panic(err)
	}
	for _, c := range schemaindex.Merge(doc).Global().Connectors {
		fmt.Println(c.ConnectorKey, c.GrantID, c.Connections, c.Streams)
	}
	// Output:
	// gmail grt_gmail [{cin_1 Personal}] [messages message_bodies threads]
}

func ExampleIndex_Candidates() {
	conns := []schemaindex.Connection{{ID: "cin_1", DisplayName: "Personal"}, {ID: "cin_2", DisplayName: "Work"}}
	doc, err := schemaindex.Parse(schemaindex.SyntheticSchemaBody("gmail", 1, 3, conns, true), schemaindex.Source{GrantKey: "k"})
	if err != nil {
		panic(err)
	}
	ix := schemaindex.Merge(doc)
	fmt.Println(ix.NeedsConnection("messages"))
	c := ix.Candidates("messages", 1)
	fmt.Printf("%+v total=%d truncated=%v omitted=%d\n", c.Items, c.Total, c.Truncated, c.Omitted)
	_, err = ix.Stream("mesages", "", nil)
	fmt.Println(errors.Is(err, schemaindex.ErrUnknownStream), err)
	// Output:
	// true
	// [{GrantID:grt_gmail ConnectorKey:gmail ConnectionID:cin_1 DisplayName:Personal}] total=2 truncated=true omitted=1
	// true unknown stream "mesages" in this grant set; known streams (1): messages
}
