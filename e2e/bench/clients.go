package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
)

// toolCall is one call of the fixed mix.
type toolCall struct {
	label string
	name  string
	args  map[string]any
	// body is the JSON-RPC tools/call request, built once.
	body []byte
}

func (c *toolCall) build() {
	c.body, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": c.name, "arguments": c.args}})
}

// rpcResult is the part of a tools/call answer the benchmark checks.
type rpcResult struct {
	Result *struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// check turns a JSON-RPC answer into an error unless it is a successful
// tool result.
func check(label string, b []byte) error {
	var r rpcResult
	if err := json.Unmarshal(b, &r); err != nil {
		return fmt.Errorf("%s: undecodable answer: %.200s", label, b)
	}
	if r.Error != nil {
		return fmt.Errorf("%s: JSON-RPC error %s", label, r.Error.Message)
	}
	if r.Result == nil || r.Result.IsError {
		text := ""
		if r.Result != nil && len(r.Result.Content) > 0 {
			text = r.Result.Content[0].Text
		}
		return fmt.Errorf("%s: tool error: %.300s", label, text)
	}
	return nil
}

// newHTTPClient pools enough keep-alive connections for every client.
func newHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 256
	t.MaxIdleConnsPerHost = 128
	return &http.Client{Transport: t}
}

// hostedClient calls the hosted adapter's /mcp over stateless HTTP.
type hostedClient struct {
	http   *http.Client
	url    string
	bearer string
}

func (h *hostedClient) call(ctx context.Context, c *toolCall) error {
	_, err := h.callText(ctx, c)
	return err
}

// callText is call, returning the answer's first text content.
func (h *hostedClient) callText(ctx context.Context, c *toolCall) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(c.body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+h.bearer)
	resp, err := h.http.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return "", err
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		return "", errRateLimited
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: HTTP %d: %.200s", c.label, resp.StatusCode, b)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b = sseData(b)
	}
	return firstText(b), check(c.label, b)
}

// firstText is the first text content of a tools/call answer ("" when
// there is none).
func firstText(b []byte) string {
	var r rpcResult
	if json.Unmarshal(b, &r) != nil || r.Result == nil || len(r.Result.Content) == 0 {
		return ""
	}
	return r.Result.Content[0].Text
}

// errRateLimited is a 429 from the hosted adapter: counted and reported,
// not fatal (the adapter refuses bursts of a token whose verdict expired).
var errRateLimited = errors.New("HTTP 429")

// sseData is the data of the last event of an SSE body.
func sseData(b []byte) []byte {
	var last []byte
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			last = bytes.TrimSpace(d)
		}
	}
	return last
}

// restCall is one RS request the adapter made for a tool call.
type restCall struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Query  string `json:"query"`
}

// directClient replays a tool call's REST requests against the RS.
type directClient struct {
	http   *http.Client
	rsURL  string
	bearer string
}

func (d *directClient) call(ctx context.Context, label string, reqs []restCall) error {
	for _, rc := range reqs {
		u := d.rsURL + rc.Path
		if rc.Query != "" {
			u += "?" + rc.Query
		}
		req, err := http.NewRequestWithContext(ctx, rc.Method, u, nil)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+d.bearer)
		req.Header.Set("Accept", "application/json")
		resp, err := d.http.Do(req)
		if err != nil {
			return err
		}
		// Decoding the JSON is the least a direct caller does with it.
		var v any
		err = json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&v)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: direct %s %s: HTTP %d", label, rc.Method, rc.Path, resp.StatusCode)
		}
		if err != nil {
			return fmt.Errorf("%s: direct %s: %v", label, rc.Path, err)
		}
	}
	return nil
}

// wave sends reqs[0], then every other request at once: a client that
// knows all its requests' order needs no more time than this.
func (d *directClient) wave(ctx context.Context, label string, reqs []restCall) error {
	if err := d.call(ctx, label, reqs[:1]); err != nil {
		return err
	}
	errs := make(chan error, len(reqs)-1)
	for _, rc := range reqs[1:] {
		go func() { errs <- d.call(ctx, label, []restCall{rc}) }()
	}
	var first error
	for range reqs[1:] {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// stdioClient speaks newline-delimited JSON-RPC to a spawned stdio adapter;
// calls are serialised (one client, as a desktop host is).
type stdioClient struct {
	mu  sync.Mutex
	in  io.Writer
	out *bufio.Reader
	id  atomic.Int64
}

func newStdioClient(in io.Writer, out io.Reader) *stdioClient {
	return &stdioClient{in: in, out: bufio.NewReaderSize(out, 1<<20)}
}

// roundTrip sends one request (with a fresh id) and reads lines until the
// answer with that id.
func (s *stdioClient) roundTrip(method string, params any) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.id.Add(1)
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if _, err := s.in.Write(append(msg, '\n')); err != nil {
		return nil, err
	}
	for {
		line, err := s.out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		var head struct {
			ID *int64 `json:"id"`
		}
		if json.Unmarshal(line, &head) == nil && head.ID != nil && *head.ID == id {
			return line, nil
		}
	}
}

func (s *stdioClient) notify(method string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := fmt.Fprintf(s.in, `{"jsonrpc":"2.0","method":%q}`+"\n", method)
	return err
}

// handshake is initialize + initialized + tools/list.
func (s *stdioClient) handshake() error {
	if _, err := s.roundTrip("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "bench-e2e", "version": "1"}}); err != nil {
		return err
	}
	if err := s.notify("notifications/initialized"); err != nil {
		return err
	}
	b, err := s.roundTrip("tools/list", map[string]any{})
	if err != nil {
		return err
	}
	if !bytes.Contains(b, []byte(`"read_record_field"`)) {
		return fmt.Errorf("tools/list without read_record_field: %.200s", b)
	}
	return nil
}

func (s *stdioClient) call(_ context.Context, c *toolCall) error {
	b, err := s.roundTrip("tools/call", map[string]any{"name": c.name, "arguments": c.args})
	if err != nil {
		return err
	}
	return check(c.label, b)
}
