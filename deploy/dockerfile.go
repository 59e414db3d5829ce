package deploy

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
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
}

// ParseDockerfile reads FROM, ARG, USER, ENV, ENTRYPOINT and EXPOSE,
// following line continuations and skipping comments.
func ParseDockerfile(r io.Reader) (Dockerfile, error) {
	df := Dockerfile{Env: map[string]string{}}
	args := map[string]string{} // global ARG defaults (before the first FROM)
	inStage := false
	for ins, err := range instructions(r) {
		if err != nil {
			return df, err
		}
		keyword, rest, _ := strings.Cut(ins, " ")
		rest = strings.TrimSpace(rest)
		switch strings.ToUpper(keyword) {
		case "ARG":
			if !inStage {
				name, def, _ := strings.Cut(rest, "=")
				args[name] = strings.Trim(def, `"`)
			}
		case "FROM":
			inStage = true
			df.User, df.Env, df.Entrypoint, df.Expose = "", map[string]string{}, nil, nil
			fields := strings.Fields(rest)
			for len(fields) > 0 && strings.HasPrefix(fields[0], "--") {
				fields = fields[1:] // --platform=…
			}
			if len(fields) == 0 {
				return df, fmt.Errorf("FROM without an image")
			}
			df.Bases = append(df.Bases, expandArgs(fields[0], args))
		case "USER":
			df.User = rest
		case "ENV":
			for _, kv := range strings.Fields(rest) {
				k, v, ok := strings.Cut(kv, "=")
				if !ok {
					return df, fmt.Errorf("ENV %q: want KEY=VALUE pairs", rest)
				}
				df.Env[k] = strings.Trim(v, `"`)
			}
		case "ENTRYPOINT":
			if err := json.Unmarshal([]byte(rest), &df.Entrypoint); err != nil {
				return df, fmt.Errorf("ENTRYPOINT must be the exec (JSON) form: %v", err)
			}
		case "EXPOSE":
			df.Expose = append(df.Expose, strings.Fields(rest)...)
		}
	}
	if len(df.Bases) == 0 {
		return df, fmt.Errorf("no FROM")
	}
	return df, nil
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
func expandArgs(s string, args map[string]string) string {
	for name, v := range args {
		s = strings.ReplaceAll(s, "${"+name+"}", v)
		s = strings.ReplaceAll(s, "$"+name, v)
	}
	return s
}
