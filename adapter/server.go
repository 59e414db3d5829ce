package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

// DefaultServerName is the serverInfo.name advertised when none is configured.
const DefaultServerName = "pdpp-mcp"

// Config configures one adapter. The same Server serves stdio and hosted
// transports; only where grants come from differs.
type Config struct {
	// RS is the client for the configured resource server.
	RS *rsclient.Client
	// ServerName and Version are advertised in serverInfo.
	ServerName, Version string
	// Grants is the fixed source set (stdio), at most MaxGrants. When
	// empty, each call uses the grant of its request, attached with
	// WithRequest (hosted: Request.Grant).
	Grants []Grant
	// Reload, when set (stdio), re-reads the credential cache. It runs
	// when a grant is past its Expires or the RS refuses a bearer (401,
	// not a context.* code); a call refused that way is retried once when
	// the cache then holds other grants. At most once per second for one
	// state of the file (CacheStamp); a changed file is read at once.
	Reload func() ([]Grant, error)
	// CacheStamp, when set with Reload (stdio), names the credential
	// cache file's current state (inode, size, modification time): a call
	// that finds another stamp than the grants were read at re-reads the
	// cache first, so a credential `pdpp connect` just wrote serves the
	// very next call. Concurrent calls share the one re-read.
	CacheStamp func() string
	// Reconnect is the command that issues fresh credentials (stdio:
	// `pdpp-mcp connect <provider-url> --cache-root <dir>`, or what the
	// cache says renews it), named in credential_expired errors.
	Reconnect string
	// SchemaTTL bounds how long a grant's schema stays cached (soft
	// state, keyed by a hash of the token). Default 30s.
	SchemaTTL time.Duration
	// CursorKey signs read_record_field continuation cursors; replicas
	// sharing a key accept each other's cursors. Default: random per process.
	CursorKey *contentladder.CursorKey
	// Logger receives structured diagnostics (never bearers). Default: discard.
	Logger *slog.Logger
	// Now is the clock (tests). Default time.Now.
	Now func() time.Time
	// Waits bounds the reads that refine an answer (hit titles, probes,
	// search metadata, each fan-in source). Zero fields take defaults.
	Waits Waits
	// FanOutConcurrency bounds parallel RS calls of one fan-in over
	// several grants (a search's sources, their schema reads). Default 8.
	// Reads that only refine a page are bounded by MaxRefiningReads.
	FanOutConcurrency int
	// MaxRefiningReads bounds the reads that refine pages (hit titles,
	// lexical-miss checks) in flight at once across every call of this
	// Server. Default DefaultMaxRefiningReads.
	MaxRefiningReads int
	// Observer, when set, is told about every tool call (metrics).
	Observer Observer
	// MaxResultBytes is the most bytes one tool result takes in its text
	// and, separately, in its structuredContent: a page that would take
	// more shows fewer records or hits and says how to continue, a window
	// or document fewer characters. Default DefaultMaxResultBytes; raise
	// it only for hosts known to keep larger results whole.
	MaxResultBytes int
}

// DefaultMaxResultBytes is the default result ceiling: under the 12,024
// bytes Codex keeps of a tool result when it does not know the model
// (it cuts the middle out of anything longer, leaving invalid JSON and
// lost records), with room for the host's own framing.
const DefaultMaxResultBytes = 11000

// MinMaxResultBytes is the smallest ceiling accepted: below it a page
// cannot carry its handles, cursor and one record.
const MinMaxResultBytes = 4000

// Server is one configured MCP adapter.
type Server struct {
	cfg Config
	// rs reads from the RS, reporting refusals to the call's Request.
	rs      rsReads
	mcp     *server.MCPServer
	schemas *schemaCache
	creds   *credentialSet
	args    *argValidator
	prm     *prmCache
	probes  *probeCache
	// hitDetails keeps the projected reads search hits are titled from.
	hitDetails *hitDetailCache
	// refining bounds the refining reads of every call at once.
	refining *readLimit
	// titleReadDone, when set (tests), is told each time a title read's
	// fetch ends, whether or not a page still waits for it.
	titleReadDone func()
	log           *slog.Logger
	now           func() time.Time
}

// New builds the adapter: the six tools in catalog order, resource
// templates, and strict input validation before any handler runs.
func New(cfg Config) (*Server, error) {
	if cfg.RS == nil {
		return nil, errors.New("adapter: Config.RS is required")
	}
	if err := checkGrantCount(len(cfg.Grants)); err != nil {
		return nil, err
	}
	if cfg.ServerName == "" {
		cfg.ServerName = DefaultServerName
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	if cfg.SchemaTTL <= 0 {
		cfg.SchemaTTL = 30 * time.Second
	}
	if cfg.CursorKey == nil {
		cfg.CursorKey = contentladder.RandomCursorKey()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.Waits = cfg.Waits.withDefaults()
	if cfg.MaxResultBytes <= 0 {
		cfg.MaxResultBytes = DefaultMaxResultBytes
	}
	if cfg.MaxResultBytes < MinMaxResultBytes {
		return nil, fmt.Errorf("adapter: Config.MaxResultBytes %d is below %d, too little for a page's handles", cfg.MaxResultBytes, MinMaxResultBytes)
	}
	if cfg.FanOutConcurrency <= 0 {
		cfg.FanOutConcurrency = 8
	}
	if cfg.MaxRefiningReads <= 0 {
		cfg.MaxRefiningReads = DefaultMaxRefiningReads
	}
	s := &Server{
		cfg:        cfg,
		rs:         rsReads{cfg.RS},
		creds:      newCredentialSet(cfg.Grants, cfg.Reload, cfg.CacheStamp, cfg.Reconnect, cfg.Now),
		schemas:    newSchemaCache(cfg.SchemaTTL, schemaCacheEntries, cfg.Now),
		prm:        newPRMCache(prmTTL, cfg.Now),
		probes:     newProbeCache(cfg.Now),
		hitDetails: newHitDetailCache(cfg.Now),
		refining:   newReadLimit(cfg.MaxRefiningReads),
		log:        cfg.Logger,
		now:        cfg.Now,
	}
	s.args = newArgValidator(catalog())
	order := ToolNames()
	s.mcp = server.NewMCPServer(cfg.ServerName, cfg.Version,
		server.WithInstructions(Instructions),
		server.WithToolCapabilities(false),
		server.WithResourceCapabilities(false, false),
		server.WithRecovery(),
		// mcp-go lists tools sorted by name; R-1 wants catalog order.
		server.WithToolFilter(func(_ context.Context, tools []mcp.Tool) []mcp.Tool {
			return sortByCatalog(tools, order)
		}),
	)
	for _, spec := range catalog() {
		s.mcp.AddTool(spec.mcpTool(), s.toolHandler(spec))
	}
	s.addResources()
	return s, nil
}

// MCP returns the underlying mcp-go server (for transports and tests).
func (s *Server) MCP() *server.MCPServer { return s.mcp }

// toolHandler adapts a spec's handler to mcp-go: it extracts the raw
// arguments, reads the transport's Request, bounds the call, turns panics
// into typed adapter errors (never JSON-RPC failures), retries a call
// whose credential the RS refused, observes it, and hands the result to
// the transport's splicer.
func (s *Server) toolHandler(spec toolSpec) server.ToolHandlerFunc {
	return func(ctx context.Context, mreq mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := mreq.Params.RawArguments
		if len(args) == 0 {
			raw, err := json.Marshal(mreq.Params.Arguments)
			if err != nil {
				return errorResult(newAdapterError("invalid_arguments", "arguments must be a JSON object")), nil
			}
			args = raw
		}
		if string(args) == "null" {
			args = json.RawMessage(`{}`)
		}
		start := time.Now()
		req := requestOf(ctx)
		ctx, release, shutDown := underShutdown(ctx, req.Shutdown)
		defer release()
		ctx, endCall := within(ctx, s.cfg.Waits.Call)
		defer endCall()
		var res *mcp.CallToolResult
		if shutDown {
			res = errorResult(cancelledError()) // the transport is closing: answer at once
		} else if given, te := s.args.check(spec.Name, args); te != nil {
			res = errorResult(te) // rejected before any RS call
		} else {
			args = given
			res = spec.Handle(ctx, s, req, args)
			res = s.afterRefusal(ctx, req, res, func() *mcp.CallToolResult { return spec.Handle(ctx, s, req, args) })
			res = withConnectionSteps(spec.Name, args, res)
		}
		elapsed := time.Since(start)
		sum := summarize(res)
		if s.cfg.Observer != nil {
			s.cfg.Observer.ObserveTool(ToolCall{Tool: spec.Name, IsError: sum.isError, ErrorCode: sum.code, Duration: elapsed})
		}
		if sum.isError {
			s.log.Info("tool call", "tool", spec.Name, "error_code", sum.code, "duration_ms", elapsed.Milliseconds())
		} else if s.log.Enabled(ctx, slog.LevelDebug) {
			// Every successful call passes here: nothing is built while
			// DEBUG is off.
			s.log.LogAttrs(ctx, slog.LevelDebug, "tool call", slog.String("tool", spec.Name), slog.Int64("duration_ms", elapsed.Milliseconds()))
		}
		if req.Results != nil {
			return req.Results.stash(res), nil // the transport splices the encoded result in
		}
		return res, nil
	}
}

// sortByCatalog orders tools as the catalog does; unknown tools keep their
// relative order after the catalog ones.
func sortByCatalog(tools []mcp.Tool, order []string) []mcp.Tool {
	rank := make(map[string]int, len(order))
	for i, n := range order {
		rank[n] = i
	}
	out := make([]mcp.Tool, 0, len(tools))
	for _, n := range order {
		for _, t := range tools {
			if t.Name == n {
				out = append(out, t)
			}
		}
	}
	for _, t := range tools {
		if _, ok := rank[t.Name]; !ok {
			out = append(out, t)
		}
	}
	return out
}

// summarize keeps what logs and metrics may know of a result: whether it
// is an error and its typed code, never content.
func summarize(res *mcp.CallToolResult) resultSummary {
	if !res.IsError {
		return resultSummary{}
	}
	sum := resultSummary{isError: true}
	if te := resultError(res); te != nil {
		sum.code = te.Code
	}
	return sum
}
