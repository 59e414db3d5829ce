package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"

	"github.com/pdpp/pdpp-mcp/adapter"
)

// parseFlags parses args into fs. An explicit --help is a request, not a
// mistake: usage goes to stdout and the exit code is 0. A bad flag prints
// the error and usage to stderr (exit 64).
func parseFlags(fs *flag.FlagSet, usage string, args []string, stdout, stderr io.Writer) (int, bool) {
	fs.SetOutput(stderr)
	fs.Usage = func() {} // printed below, to the stream that fits
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		printUsage(fs, usage, stdout)
		return exitOK, false
	case err != nil:
		printUsage(fs, usage, stderr)
		return exitUsage, false
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return exitUsage, false
	}
	return exitOK, true
}

func printUsage(fs *flag.FlagSet, usage string, w io.Writer) {
	fmt.Fprint(w, usage)
	out := fs.Output()
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(out)
}

// envOr is the environment value of key, or def when it is unset or blank.
// Flags take their defaults from it, which gives the one precedence every
// mode documents: command-line flag, then environment, then default.
func envOr(env func(string) string, key, def string) string {
	if v := strings.TrimSpace(env(key)); v != "" {
		return v
	}
	return def
}

// logFlags are --log-level and --log-format, shared by serve, stdio and demo.
type logFlags struct {
	level, format *string
}

// addLogFlags registers the logging flags with the given defaults.
func addLogFlags(fs *flag.FlagSet, env func(string) string, defLevel, defFormat string) logFlags {
	return logFlags{
		level: fs.String("log-level", envOr(env, "PDPP_MCP_LOG_LEVEL", defLevel),
			"log level: debug, info, warn or error (PDPP_MCP_LOG_LEVEL)"),
		format: fs.String("log-format", envOr(env, "PDPP_MCP_LOG_FORMAT", defFormat),
			"log format: json or text (PDPP_MCP_LOG_FORMAT)"),
	}
}

// logger builds the structured logger the flags ask for, writing to w
// (always stderr: stdout is for MCP messages and ready lines).
func (l logFlags) logger(w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(*l.level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", *l.level)
	}
	opts := &slog.HandlerOptions{Level: level}
	switch strings.ToLower(*l.format) {
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format %q: want json or text", *l.format)
}

// maxResultFlag is --max-result-bytes, shared by serve, stdio and demo: the
// most bytes one tool result takes in each channel (adapter.Config's
// MaxResultBytes). The default stays under what the strictest host keeps
// whole; raise it only for hosts known to keep more.
func addMaxResultFlag(fs *flag.FlagSet, env func(string) string, dst *string) {
	fs.StringVar(dst, "max-result-bytes", envOr(env, "PDPP_MCP_MAX_RESULT_BYTES", ""),
		fmt.Sprintf("most bytes one tool result takes in its text and in its structuredContent; default %d, under the 12,024 bytes Codex keeps of a result for a model it does not know (PDPP_MCP_MAX_RESULT_BYTES)",
			adapter.DefaultMaxResultBytes))
}

// maxMaxResultBytes bounds --max-result-bytes: a result is one model
// turn's reading, never megabytes.
const maxMaxResultBytes = 1 << 20

// parseMaxResultBytes reads --max-result-bytes: "" is the default (0).
func parseMaxResultBytes(v string) (int, error) {
	if strings.TrimSpace(v) == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < adapter.MinMaxResultBytes || n > maxMaxResultBytes {
		return 0, fmt.Errorf("--max-result-bytes %q: want a number of bytes from %d to %d", v, adapter.MinMaxResultBytes, maxMaxResultBytes)
	}
	return n, nil
}
