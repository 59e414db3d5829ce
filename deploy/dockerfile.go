package deploy

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// Dockerfile is what the policy needs from the image definition. It is
// read with a small parser of its own on purpose: the canonical one
// (moby/buildkit) would pull a container runtime's dependency tree into
// this module for five instructions.
type Dockerfile struct {
	// Bases are the FROM images of every stage, ARG defaults substituted.
	Bases []string
	// User is the last USER of the final stage.
	User string
	// Env is the ENV of the final stage.
	Env map[string]string
	// Entrypoint is the exec-form ENTRYPOINT of the final stage.
	Entrypoint []string
	// Expose lists the EXPOSE ports of the final stage.
	Expose []string
	// Labels are the LABELs of the final stage (the image's metadata,
	// e.g. org.opencontainers.image.licenses).
	Labels map[string]string
}

// ParseDockerfile reads FROM, ARG, USER, ENV, LABEL, ENTRYPOINT and EXPOSE,
// following line continuations and skipping comments.
func ParseDockerfile(r io.Reader) (Dockerfile, error) {
	p := dockerfileParser{df: Dockerfile{Env: map[string]string{}, Labels: map[string]string{}}, args: map[string]string{}}
	for ins, err := range instructions(r) {
		if err != nil {
			return p.df, err
		}
		if err := p.instruction(ins); err != nil {
			return p.df, err
		}
	}
	if len(p.df.Bases) == 0 {
		return p.df, fmt.Errorf("no FROM")
	}
	return p.df, nil
}

// dockerfileParser is ParseDockerfile's state between instructions.
type dockerfileParser struct {
	df      Dockerfile
	args    map[string]string // global ARG defaults (before the first FROM)
	inStage bool              // a FROM has been seen
}

// instruction applies one logical instruction; keywords the policy does
// not need are skipped.
func (p *dockerfileParser) instruction(ins string) error {
	keyword, rest, _ := strings.Cut(ins, " ")
	rest = strings.TrimSpace(rest)
	switch strings.ToUpper(keyword) {
	case "ARG":
		p.arg(rest)
	case "FROM":
		return p.from(rest)
	case "USER":
		p.df.User = rest
	case "ENV":
		return p.pairs("ENV", rest, p.df.Env)
	case "LABEL":
		return p.pairs("LABEL", rest, p.df.Labels)
	case "ENTRYPOINT":
		return p.entrypoint(rest)
	case "EXPOSE":
		p.df.Expose = append(p.df.Expose, strings.Fields(rest)...)
	}
	return nil
}

// arg records a global ARG default for FROM lines to substitute; an ARG
// inside a stage cannot reach a FROM and is ignored.
func (p *dockerfileParser) arg(rest string) {
	if !p.inStage {
		name, def, _ := strings.Cut(rest, "=")
		p.args[name] = strings.Trim(def, `"`)
	}
}

// from starts a stage: the final stage's fields start empty again, and the
// image, flags such as --platform skipped, joins the bases.
func (p *dockerfileParser) from(rest string) error {
	p.inStage = true
	p.df.User, p.df.Env, p.df.Entrypoint, p.df.Expose = "", map[string]string{}, nil, nil
	p.df.Labels = map[string]string{}
	fields := strings.Fields(rest)
	for len(fields) > 0 && strings.HasPrefix(fields[0], "--") {
		fields = fields[1:] // --platform=…
	}
	if len(fields) == 0 {
		return fmt.Errorf("FROM without an image")
	}
	p.df.Bases = append(p.df.Bases, expandArgs(fields[0], p.args))
	return nil
}

// pairs records the KEY=VALUE pairs of an ENV or LABEL into m; a value
// may be double-quoted to hold spaces. Pairs before a malformed one stay
// recorded, as they always did in the Dockerfile returned with the error.
func (p *dockerfileParser) pairs(keyword, rest string, m map[string]string) error {
	for _, kv := range splitQuoted(rest) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return fmt.Errorf("%s %q: want KEY=VALUE pairs", keyword, rest)
		}
		m[k] = v
	}
	return nil
}

// splitQuoted splits s at blanks outside double quotes, as a shell
// would: the quotes go, and a backslash inside quotes keeps the next
// character (an escaped quote).
func splitQuoted(s string) []string {
	var words []string
	var cur strings.Builder
	quoted, escaped := false, false
	for _, r := range s {
		switch {
		case escaped:
			escaped = false
		case r == '\\' && quoted:
			escaped = true
			continue
		case r == '"':
			quoted = !quoted
			continue
		case (r == ' ' || r == '\t') && !quoted:
			if cur.Len() > 0 {
				words = append(words, cur.String())
				cur.Reset()
			}
			continue
		}
		cur.WriteRune(r)
	}
	if cur.Len() > 0 {
		words = append(words, cur.String())
	}
	return words
}

// entrypoint reads the exec (JSON) form; the shell form would hide the
// arguments from the policy.
func (p *dockerfileParser) entrypoint(rest string) error {
	if err := json.Unmarshal([]byte(rest), &p.df.Entrypoint); err != nil {
		return fmt.Errorf("ENTRYPOINT must be the exec (JSON) form: %v", err)
	}
	return nil
}

// instructions yields each logical instruction: comments dropped, lines
// ending in a backslash joined with the next.
func instructions(r io.Reader) func(yield func(string, error) bool) {
	return func(yield func(string, error) bool) {
		sc := bufio.NewScanner(r)
		var cur strings.Builder
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if strings.HasPrefix(line, "#") || (line == "" && cur.Len() == 0) {
				continue
			}
			if body, ok := strings.CutSuffix(line, `\`); ok {
				cur.WriteString(strings.TrimSpace(body) + " ")
				continue
			}
			cur.WriteString(line)
			if !yield(strings.TrimSpace(cur.String()), nil) {
				return
			}
			cur.Reset()
		}
		if err := sc.Err(); err != nil {
			yield("", err)
		} else if cur.Len() > 0 {
			yield(strings.TrimSpace(cur.String()), nil)
		}
	}
}

// expandArgs substitutes ${NAME} and $NAME with ARG defaults.
//
// Longer names are substituted first, so $GO_VERSION is never read as $GO
// followed by "_VERSION" (a map's order would decide it otherwise).
func expandArgs(s string, args map[string]string) string {
	names := slices.SortedFunc(maps.Keys(args), func(a, b string) int {
		return cmp.Or(len(b)-len(a), strings.Compare(a, b))
	})
	for _, name := range names {
		s = strings.ReplaceAll(s, "${"+name+"}", args[name])
		s = strings.ReplaceAll(s, "$"+name, args[name])
	}
	return s
}
