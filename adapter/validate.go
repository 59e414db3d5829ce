package adapter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// maxArgumentBytes bounds a tool call's arguments; nothing legitimate comes
// close (the largest input is a 2 KiB id or a 1,000-char query).
const maxArgumentBytes = 64 << 10

// argValidator checks tool arguments against each tool's input schema
// before any handler runs, and reports violations as one typed adapter
// error (`invalid_arguments`) whose message names each offending argument
// in plain words — the same error shape as every other failure.
type argValidator struct {
	schemas map[string]*jsonschema.Schema
	printer *message.Printer
}

func newArgValidator(specs []toolSpec) (*argValidator, error) {
	v := &argValidator{schemas: map[string]*jsonschema.Schema{}, printer: message.NewPrinter(language.English)}
	for _, spec := range specs {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(spec.Input()))
		if err != nil {
			return nil, fmt.Errorf("tool %s: input schema: %w", spec.Name, err)
		}
		c := jsonschema.NewCompiler()
		url := "mem:///" + spec.Name + ".json"
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("tool %s: %w", spec.Name, err)
		}
		s, err := c.Compile(url)
		if err != nil {
			return nil, fmt.Errorf("tool %s: compile input schema: %w", spec.Name, err)
		}
		v.schemas[spec.Name] = s
	}
	return v, nil
}

// check validates raw arguments; nil means valid.
func (v *argValidator) check(tool string, raw json.RawMessage) *toolError {
	if len(raw) > maxArgumentBytes {
		return newAdapterError("invalid_arguments", fmt.Sprintf("arguments are %d bytes; at most %d are accepted", len(raw), maxArgumentBytes))
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return newAdapterError("invalid_arguments", "arguments must be a JSON object")
	}
	err = v.schemas[tool].Validate(inst)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return newAdapterError("invalid_arguments", "arguments do not match the input schema")
	}
	var msgs []string
	var params []string
	v.leaves(ve, &msgs, &params)
	extras := []field{}
	if len(params) > 0 {
		extras = append(extras, field{"param", params[0]})
	}
	if len(msgs) > 5 {
		msgs = append(msgs[:5], fmt.Sprintf("and %d more", len(msgs)-5))
	}
	return newAdapterError("invalid_arguments", "input validation failed: "+strings.Join(msgs, "; "), extras...)
}

// leaves collects one message per failing leaf: "<path>: <reason>".
func (v *argValidator) leaves(e *jsonschema.ValidationError, msgs, params *[]string) {
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			v.leaves(c, msgs, params)
		}
		return
	}
	path := strings.Join(e.InstanceLocation, ".")
	if path == "" {
		path = "arguments"
	} else {
		*params = append(*params, e.InstanceLocation[0])
	}
	*msgs = append(*msgs, path+": "+ungroup(e.ErrorKind.LocalizedString(v.printer)))
}

// digitGroup matches a thousands separator between digits.
var digitGroup = regexp.MustCompile(`(\d),(\d{3})\b`)

// ungroup removes digit grouping ("16,384" → "16384") so limits read as
// the schema and the caller write them.
func ungroup(s string) string {
	for {
		out := digitGroup.ReplaceAllString(s, "$1$2")
		if out == s {
			return s
		}
		s = out
	}
}
