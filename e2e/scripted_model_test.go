package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// A scripted model endpoint: what Claude Code and Codex talk to instead of
// Anthropic's and OpenAI's APIs, on loopback, with no key. It speaks the
// two streaming wire formats the hosts use — the Anthropic Messages API
// (Claude Code, ANTHROPIC_BASE_URL) and the OpenAI Responses API (Codex, a
// custom model provider) — just far enough for a tool-calling turn: each
// answer is either one tool call or a short closing text, streamed as SSE.
//
// The script is read off the conversation the host sends, not kept in the
// server: step k is due when the transcript holds k results of our tool
// calls, so a host's retries and side requests (titles, quota probes)
// change nothing. Every tool result the host hands back is recorded
// verbatim: that is exactly what the model would read.

// scriptStep is one planned tool call; args may depend on what the host
// handed the model for the earlier steps.
type scriptStep struct {
	tool string
	args func(prev []hostCapture) map[string]any
}

// hostCapture is one tool result exactly as a host put it into the model's
// context.
type hostCapture struct {
	tool string
	args map[string]any
	// model is the text the model reads: the text parts of the tool
	// result, joined by newlines (Claude Code's tool_result content,
	// Codex's function_call_output output).
	model string
	// raw is the tool-result item as the host sent it.
	raw json.RawMessage
	// isError is the host's error flag for the result; flagged says the
	// host's wire format has one (Anthropic's is_error; Codex sends none).
	isError, flagged bool
}

// scriptedModel is the endpoint: an httptest server with the script and
// what it recorded.
type scriptedModel struct {
	t     *testing.T
	url   string
	steps []scriptStep
	// toolName maps a tool of ours to the name the host gave the model for
	// it, found in the request's tools list (Claude Code: mcp__pdpp__x).
	server string

	// codeMode plays Codex's code mode (a bundled model whose tool_mode is
	// code_mode_only): the host offers the model one custom tool, exec,
	// that runs JavaScript calling our tools as tools.mcp__<server>__<x>,
	// and each step is the script a model writes for one call.
	codeMode bool
	// script is the JavaScript of a code-mode step: what it does with the
	// CallToolResult r of the call (codeModeScript when nil).
	script func(call string) string

	mu        sync.Mutex
	requests  []string // "METHOD path" of every request, in order
	toolNames []string // the tool names the last request offered
	captures  []hostCapture
	finished  bool // the closing text was sent
}

// newScriptedModel starts the endpoint for MCP server name server (the
// name the host registered the adapter under).
func newScriptedModel(t *testing.T, server string, steps []scriptStep) *scriptedModel {
	m := &scriptedModel{t: t, steps: steps, server: server}
	srv := httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(srv.Close)
	m.url = srv.URL
	return m
}

// scriptedClosing is the text the model ends its turn with.
const scriptedClosing = "Done: every pdpp tool answered."

func (m *scriptedModel) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	m.mu.Lock()
	m.requests = append(m.requests, r.Method+" "+r.URL.Path)
	m.mu.Unlock()
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/v1/messages"):
		m.serveMessages(w, body)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/responses"):
		m.serveResponses(w, body)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/count_tokens"):
		// About four bytes a token, as the hosts' own estimates go: Claude
		// Code counts a large tool result here before it decides whether
		// the result fits MAX_MCP_OUTPUT_TOKENS.
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"input_tokens":%d}`, max(1, len(body)/4))
	default:
		http.NotFound(w, r)
	}
}

// hostTool is a tool name the host offered the model and which of ours it
// is ("" when it is not ours).
func (m *scriptedModel) ours(name string) string {
	// Hosts may respell a server name into their tool-name alphabet.
	server := strings.ReplaceAll(m.server, "-", "_")
	name = strings.ReplaceAll(name, "-", "_")
	for _, sep := range []string{"mcp__" + server + "__", server + "__"} {
		if tool, ok := strings.CutPrefix(name, sep); ok {
			return tool
		}
	}
	return ""
}

// next records the results in the transcript and returns the step due
// (nil when the script is done). offered are the tool names of the request;
// a request that offers none of ours is a side request and gets text.
func (m *scriptedModel) next(offered []string, results []hostCapture) (*scriptStep, string, []hostCapture) {
	m.mu.Lock()
	defer m.mu.Unlock()
	name := map[string]string{}
	for _, o := range offered {
		if tool := m.ours(o); tool != "" {
			name[tool] = o
		}
	}
	m.toolNames = offered
	if len(name) == 0 {
		return nil, "", m.captures
	}
	if len(results) > len(m.captures) {
		m.captures = append([]hostCapture(nil), results...)
	}
	k := len(results)
	if k >= len(m.steps) {
		m.finished = true
		return nil, "", m.captures
	}
	s := m.steps[k]
	if name[s.tool] == "" {
		m.t.Errorf("the host offers the model no %s tool of server %s: %q", s.tool, m.server, offered)
		return nil, "", m.captures
	}
	return &s, name[s.tool], m.captures
}

// recorded is what the endpoint saw: every capture, the host's tool
// names, the requests, and whether the script ran to its end.
func (m *scriptedModel) recorded() ([]hostCapture, []string, []string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]hostCapture(nil), m.captures...), m.toolNames, append([]string(nil), m.requests...), m.finished
}

// sse writes one server-sent event.
func sse(w http.ResponseWriter, event string, data any) {
	raw, _ := json.Marshal(data)
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, raw)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// --- Anthropic Messages API (Claude Code) ---

// messagesRequest is the part of a Messages API request the script reads.
type messagesRequest struct {
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"` // a string or blocks
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

// messagesBlock is one content block of a message.
type messagesBlock struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     map[string]any  `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// messagesToolResults are the results of our tool calls in the transcript,
// in order, each matched to the tool_use that asked for it.
func (m *scriptedModel) messagesToolResults(req messagesRequest) []hostCapture {
	uses := map[string]messagesBlock{}
	var out []hostCapture
	for _, msg := range req.Messages {
		var blocks []json.RawMessage
		if json.Unmarshal(msg.Content, &blocks) != nil {
			continue
		}
		for _, raw := range blocks {
			var b messagesBlock
			_ = json.Unmarshal(raw, &b)
			switch b.Type {
			case "tool_use":
				uses[b.ID] = b
			case "tool_result":
				use, ok := uses[b.ToolUseID]
				if !ok || m.ours(use.Name) == "" {
					continue
				}
				out = append(out, hostCapture{tool: m.ours(use.Name), args: use.Input,
					model: joinedText(b.Content, "text"), raw: raw, isError: b.IsError, flagged: true})
			}
		}
	}
	return out
}

// joinedText is the text a model reads from a tool-result content: the
// string itself, or the text of each part of type textType, one per line.
func joinedText(content json.RawMessage, textType string) string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(content, &parts)
	var texts []string
	for _, p := range parts {
		if p.Type == textType {
			texts = append(texts, p.Text)
		} else {
			texts = append(texts, "<"+p.Type+" part>")
		}
	}
	return strings.Join(texts, "\n")
}

func (m *scriptedModel) serveMessages(w http.ResponseWriter, body []byte) {
	var req messagesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var offered []string
	for _, tl := range req.Tools {
		offered = append(offered, tl.Name)
	}
	step, name, prev := m.next(offered, m.messagesToolResults(req))
	w.Header().Set("Content-Type", "text/event-stream")
	n := len(prev)
	sse(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": fmt.Sprintf("msg_scripted_%d", n), "type": "message", "role": "assistant", "model": "scripted",
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 1, "output_tokens": 1}}})
	stop := "end_turn"
	if step != nil {
		stop = "tool_use"
		input, _ := json.Marshal(step.args(prev))
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_scripted_%02d", n), "name": name, "input": map[string]any{}}})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
	} else {
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": scriptedClosing}})
	}
	sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	sse(w, "message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 1}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}

// --- OpenAI Responses API (Codex) ---

// responsesRequest is the part of a Responses API request the script reads.
type responsesRequest struct {
	Input []json.RawMessage `json:"input"`
	Tools []json.RawMessage `json:"tools"`
}

// responsesItem is one input item.
type responsesItem struct {
	Type      string          `json:"type"`
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	Arguments string          `json:"arguments"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
	Input     string          `json:"input"` // a custom tool call's input: code mode's JavaScript
}

// responsesTool is a function a Responses request offers: Codex groups an
// MCP server's tools in a namespace tool (mcp__<server>) and the model
// calls one as namespace + name.
type responsesTool struct{ namespace, name string }

// full is the name the script matches on: mcp__<server>__<tool>.
func (r responsesTool) full() string {
	if r.namespace == "" {
		return r.name
	}
	return strings.TrimSuffix(r.namespace, "__") + "__" + r.name
}

// responsesTools are the functions a Responses request offers.
func responsesTools(tools []json.RawMessage) []responsesTool {
	var out []responsesTool
	for _, raw := range tools {
		var tl struct {
			Type  string `json:"type"`
			Name  string `json:"name"`
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		_ = json.Unmarshal(raw, &tl)
		if tl.Type != "namespace" {
			out = append(out, responsesTool{name: tl.Name})
			continue
		}
		for _, sub := range tl.Tools {
			out = append(out, responsesTool{namespace: tl.Name, name: sub.Name})
		}
	}
	return out
}

func (m *scriptedModel) responsesToolResults(req responsesRequest) []hostCapture {
	calls := map[string]responsesItem{}
	var out []hostCapture
	for _, raw := range req.Input {
		var it responsesItem
		_ = json.Unmarshal(raw, &it)
		switch it.Type {
		case "custom_tool_call":
			calls[it.CallID] = it
		case "custom_tool_call_output":
			call, ok := calls[it.CallID]
			tool, args, ours := codeModeStep(call.Input)
			if !ok || !ours {
				continue
			}
			out = append(out, hostCapture{tool: tool, args: args, model: joinedText(it.Output, "input_text"), raw: raw})
		case "function_call":
			calls[it.CallID] = it
		case "function_call_output":
			call, ok := calls[it.CallID]
			tool := m.ours(responsesTool{call.Namespace, call.Name}.full())
			if !ok || tool == "" {
				continue
			}
			var args map[string]any
			_ = json.Unmarshal([]byte(call.Arguments), &args)
			out = append(out, hostCapture{tool: tool, args: args, model: joinedText(it.Output, "input_text"), raw: raw})
		}
	}
	return out
}

func (m *scriptedModel) serveResponses(w http.ResponseWriter, body []byte) {
	var req responsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	offered := responsesTools(req.Tools)
	var names []string
	for _, o := range offered {
		names = append(names, o.full())
	}
	if m.codeMode {
		// Code mode offers exec (in an additional_tools input item) and
		// lists our server as a deferred namespace: every tool of ours is
		// reachable from the script.
		names = nil
		if codeModeOffered(req.Input) {
			for _, st := range m.steps {
				names = append(names, "mcp__"+m.server+"__"+st.tool)
			}
		}
	}
	step, name, prev := m.next(names, m.responsesToolResults(req))
	n := len(prev)
	id := fmt.Sprintf("resp_scripted_%d", n)
	w.Header().Set("Content-Type", "text/event-stream")
	sse(w, "response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": id}})
	var item map[string]any
	if step != nil && m.codeMode {
		args := step.args(prev)
		item = map[string]any{"type": "custom_tool_call", "id": fmt.Sprintf("ctc_scripted_%d", n),
			"call_id": fmt.Sprintf("call_scripted_%02d", n), "name": "exec", "input": m.codeModeSource(step.tool, args), "status": "completed"}
	} else if step != nil {
		args, _ := json.Marshal(step.args(prev))
		item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_scripted_%d", n),
			"call_id": fmt.Sprintf("call_scripted_%02d", n), "name": name, "arguments": string(args), "status": "completed"}
		for _, o := range offered {
			if o.full() == name && o.namespace != "" {
				item["namespace"], item["name"] = o.namespace, o.name
			}
		}
	} else {
		item = map[string]any{"type": "message", "id": fmt.Sprintf("msg_scripted_%d", n), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": scriptedClosing, "annotations": []any{}}}}
	}
	sse(w, "response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	sse(w, "response.completed", map[string]any{"type": "response.completed", "response": map[string]any{"id": id,
		"usage": map[string]any{"input_tokens": 1, "input_tokens_details": nil, "output_tokens": 1, "output_tokens_details": nil, "total_tokens": 2}}})
}

// --- Codex code mode ---

// codeModeOffered reports whether a Responses request offers exec, code
// mode's one tool (in an additional_tools input item).
func codeModeOffered(input []json.RawMessage) bool {
	for _, raw := range input {
		var it struct {
			Type  string            `json:"type"`
			Tools []json.RawMessage `json:"tools"`
		}
		if json.Unmarshal(raw, &it) != nil || it.Type != "additional_tools" {
			continue
		}
		for _, tl := range responsesTools(it.Tools) {
			if tl.name == "exec" {
				return true
			}
		}
	}
	return false
}

// codeModeStepLine starts a code-mode script: the step it plays, so the
// recorded results can be matched to their calls.
const codeModeStepLine = "// pdpp-step "

// codeModeSource is the JavaScript a model writes for one call: the call,
// then what the script prints of its result.
func (m *scriptedModel) codeModeSource(tool string, args map[string]any) string {
	step, _ := json.Marshal(map[string]any{"tool": tool, "args": args})
	call := fmt.Sprintf("await tools.mcp__%s__%s(%s)", strings.ReplaceAll(m.server, "-", "_"), tool, mustJSON(args))
	script := codeModeScript
	if m.script != nil {
		script = m.script
	}
	return codeModeStepLine + string(step) + "\n" + script(call)
}

// codeModeScript prints what the tool descriptions say a script prints:
// structuredContent alone, the whole page (the text when a result has
// none).
func codeModeScript(call string) string {
	return "const r = " + call + ";\n" +
		"text(r.structuredContent !== undefined ? JSON.stringify(r.structuredContent) : r.content.map(c => c.text ?? '').join('\\n'));\n"
}

// codeModeStep reads the step back from a code-mode script.
func codeModeStep(src string) (string, map[string]any, bool) {
	line, _, _ := strings.Cut(src, "\n")
	rest, ok := strings.CutPrefix(line, codeModeStepLine)
	var st struct {
		Tool string         `json:"tool"`
		Args map[string]any `json:"args"`
	}
	if !ok || json.Unmarshal([]byte(rest), &st) != nil {
		return "", nil, false
	}
	return st.Tool, st.Args, true
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
