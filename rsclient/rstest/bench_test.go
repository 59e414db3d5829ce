package rstest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// bigDataset is one Slack connection with n messages.
func bigDataset(n int) *Dataset {
	ds := &Dataset{Connectors: []*Connector{slackConnector()},
		Connections: []Connection{{ID: connSlack, ConnectorKey: "slack"}}, OwnerTokens: []string{ownerTok}}
	words := []string{"alpha", "beta", "gamma", "delta", "release", "budget", "travel", "meeting"}
	for i := 0; i < n; i++ {
		ds.Records = append(ds.Records, Record{ConnectionID: connSlack, Stream: "messages", ID: fmt.Sprintf("C:%d", i),
			EmittedAt: base.Add(time.Duration(i) * time.Second),
			Data: json.RawMessage(fmt.Sprintf(`{"id":"C:%d","channel_id":"C%d","sent_at":%q,"text":"%s %s note %d","reaction_count":%d}`,
				i, i%7, base.Add(time.Duration(i)*time.Minute).Format(time.RFC3339), words[i%8], words[(i/8)%8], i, i%5))})
	}
	return ds
}

// BenchmarkServe100k builds a 100k-record server and serves the hot reads.
func BenchmarkServe100k(b *testing.B) {
	ds := bigDataset(100_000)
	start := time.Now()
	s, err := New(ds, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(time.Since(start).Milliseconds()), "new-ms")
	ts := httptest.NewServer(s)
	defer ts.Close()
	paths := []string{"/v1/streams/messages/records?limit=100&count=exact", "/v1/search?q=release+budget",
		"/v1/streams/messages/aggregate?metric=count&group_by=channel_id", "/v1/schema?view=compact"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, p := range paths {
			if r := getB(b, ts.URL+p); r != 200 {
				b.Fatalf("%s: %d", p, r)
			}
		}
	}
}

// getB is a minimal owner GET for benchmarks.
func getB(b *testing.B, u string) int {
	req := httptest.NewRequest("GET", u, nil)
	req.Header.Set("Authorization", "Bearer "+ownerTok)
	req.RequestURI = ""
	res, err := httpClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

var httpClient = &http.Client{}
