package hosted

import (
	"bytes"
	"embed"
	htmltemplate "html/template"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	texttemplate "text/template"

	"github.com/pdpp/pdpp-mcp/adapter"
)

// Setup pages: /connect ("Connect an AI app", for people) and /llms.txt
// (for agents). Both are public, so they carry the MCP URL and exact
// commands but never a token; a client token is always a placeholder or
// the BearerEnvVar reference.
const (
	connectPath = "/connect"
	llmsPath    = "/llms.txt"
	// tokenPlaceholder stands where a person pastes their client token.
	tokenPlaceholder = "<your client token>"
)

//go:embed pages/connect.html pages/llms.txt
var pageFiles embed.FS

var (
	connectTmpl = htmltemplate.Must(htmltemplate.ParseFS(pageFiles, "pages/connect.html"))
	llmsTmpl    = texttemplate.Must(texttemplate.ParseFS(pageFiles, "pages/llms.txt"))
	// connectCSP allows exactly the page's own inline style and script
	// (by hash) and nothing else: no remote loads, no framing, no forms.
	connectCSP = buildConnectCSP(mustReadPage("pages/connect.html"))
)

// safeURL accepts the URLs the pages print inside shell commands and JSON:
// scheme, host, port and plain path characters only. The origin can come
// from a trusted proxy's X-Forwarded-Host, so anything a shell would interpret is
// refused rather than escaped.
var safeURL = regexp.MustCompile(`^https?://[A-Za-z0-9.\-\[\]:]+(/[A-Za-z0-9._~\-/]*)?$`)

// registerPages adds the human and agent setup pages to the hosted mux.
// Method patterns make every other method a 405 with an Allow header;
// GET patterns also answer HEAD.
func registerPages(mux *http.ServeMux, h *hosted) {
	mux.HandleFunc("GET "+connectPath, h.serveConnect)
	mux.HandleFunc("GET "+llmsPath, h.serveLLMs)
	// The bare origin is what people type; send them to the setup page.
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, connectPath, http.StatusSeeOther)
	})
}

// pageData is everything the two page templates print.
type pageData struct {
	Origin, MCPURL, ProviderURL, MetadataURL, ConnectURL, LLMSURL string
	ServerKey, BearerEnvVar, ExportLine                           string
	ClaudeCode, Codex                                             string // sign-in (OAuth) setup, no token
	ClaudeCodeBearer, CodexBearer                                 string // the pasted-token fallback
	PDPPConnect, StdioConnect, StdioConfig                        string
	StdioServerKey, StdioClaudeCode, StdioCodex                   string
	StdioExePlaceholder, StdioCachePlaceholder                    string
	CodexBearerNote                                               string
	// Local: the stdio lines are a LocalStdio's (the demo's), which need
	// no sign-in; StdioCacheRoot is its cache root.
	Local          bool
	StdioCacheRoot string
	Tools          []toolLine
}

// toolLine is one tool in /llms.txt.
type toolLine struct{ Name, Summary string }

// pageDataFor resolves the public URLs for r; ok is false when the origin
// or provider URL is not safe to print in a command.
func (h *hosted) pageDataFor(r *http.Request) (pageData, bool) {
	origin := h.origin(r)
	provider := h.a.RS().BaseURL()
	if !safeURL.MatchString(origin) || !safeURL.MatchString(provider) {
		return pageData{}, false
	}
	mcpURL := origin + mcpPath
	d := pageData{
		Origin:           origin,
		MCPURL:           mcpURL,
		ProviderURL:      provider,
		MetadataURL:      origin + prmPath + mcpPath,
		ConnectURL:       origin + connectPath,
		LLMSURL:          origin + llmsPath,
		ServerKey:        ServerKey,
		BearerEnvVar:     BearerEnvVar,
		ExportLine:       BearerExportLine(tokenPlaceholder),
		ClaudeCode:       ClaudeCodeSignInCommand(mcpURL),
		Codex:            CodexSignInCommand(mcpURL),
		ClaudeCodeBearer: ClaudeCodeCommand(mcpURL, "$"+BearerEnvVar),
		CodexBearer:      CodexCommand(mcpURL),
		PDPPConnect:      ConnectCommand(provider),
		StdioConnect:     ConnectCommand(provider),
		StdioServerKey:   StdioServerKey,
		StdioClaudeCode:  ClaudeCodeStdioCommand(StdioServerKey, stdioExeWord, stdioPageWords(provider)),
		StdioCodex:       CodexStdioCommand(StdioServerKey, stdioExeWord, stdioPageWords(provider)),
		StdioConfig: MCPServersJSON(StdioServerKey, StdioExePlaceholder,
			StdioArgs(provider, StdioCachePlaceholder)),
		StdioExePlaceholder:   StdioExePlaceholder,
		StdioCachePlaceholder: StdioCachePlaceholder,
		CodexBearerNote:       CodexBearerNote,
	}
	if h.opts.LocalStdio != nil {
		localStdioData(&d, h.opts.LocalStdio, provider)
	}
	for _, t := range adapter.Tools() {
		d.Tools = append(d.Tools, toolLine{Name: t.Name, Summary: firstSentence(t.Description)})
	}
	return d, true
}

func (h *hosted) serveConnect(w http.ResponseWriter, r *http.Request) {
	h.servePage(w, r, "text/html; charset=utf-8", func(b *bytes.Buffer, d pageData) error {
		return connectTmpl.Execute(b, d)
	})
}

func (h *hosted) serveLLMs(w http.ResponseWriter, r *http.Request) {
	h.servePage(w, r, "text/plain; charset=utf-8", func(b *bytes.Buffer, d pageData) error {
		return llmsTmpl.Execute(b, d)
	})
}

// servePage renders into a buffer first so a template error never sends a
// half page, then writes it with the security headers both pages share.
func (h *hosted) servePage(w http.ResponseWriter, r *http.Request, contentType string, render func(*bytes.Buffer, pageData) error) {
	d, ok := h.pageDataFor(r)
	if !ok {
		http.Error(w, "this server's public URL cannot be shown safely; set --public-url", http.StatusBadRequest)
		return
	}
	var b bytes.Buffer
	if err := render(&b, d); err != nil {
		h.log.Error("render setup page", "path", r.URL.Path, "error", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", contentType)
	hd.Set("Content-Length", strconv.Itoa(b.Len()))
	hd.Set("Content-Security-Policy", connectCSP)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(b.Bytes())
	}
}

// firstSentence is a tool description's opening sentence: the one-line
// summary /llms.txt lists, derived so it never drifts from tools/list.
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

func mustReadPage(name string) string {
	b, err := pageFiles.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}
