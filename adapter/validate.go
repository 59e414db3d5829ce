package adapter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/pdpp/pdpp-mcp/schemaindex"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
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
//
// Each tool's schema is compiled on its first call, not in New: compiling
// checks the schema against the JSON Schema metaschema, ~0.5 ms a tool,
// and a stdio adapter starts per session and must answer tools/list at
// once (a process that only lists tools compiles nothing). The schema files
// are embedded, so a compile failure is a build mistake, pinned by
// TestToolInputSchemasCompile.
type argValidator struct {
	schemas map[string]func() (*jsonschema.Schema, error)
	printer *message.Printer
}

func newArgValidator(specs []toolSpec) *argValidator {
	v := &argValidator{schemas: make(map[string]func() (*jsonschema.Schema, error), len(specs)),
		printer: message.NewPrinter(language.English)}
	for _, spec := range specs {
		v.schemas[spec.Name] = sync.OnceValues(func() (*jsonschema.Schema, error) { return compileInput(spec) })
	}
	return v
}

// compileInput compiles one tool's input schema.
func compileInput(spec toolSpec) (*jsonschema.Schema, error) {
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
	return s, nil
}

// check validates raw arguments and returns the arguments the handler
// gets: raw as the call means it (givenArguments). A non-nil error means
// invalid.
func (v *argValidator) check(tool string, raw json.RawMessage) (json.RawMessage, *toolError) {
	if len(raw) > maxArgumentBytes {
		return nil, newAdapterError("invalid_arguments", fmt.Sprintf("arguments are %d bytes; at most %d are accepted", len(raw), maxArgumentBytes))
	}
	schema, err := v.schemas[tool]()
	if err != nil {
		return nil, newAdapterError("internal_error", "the adapter could not complete this call")
	}
	optional := func(name string) bool {
		_, known := schema.Properties[name]
		return known && !slices.Contains(schema.Required, name)
	}
	raw = givenArguments(raw, optional)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, newAdapterError("invalid_arguments", "arguments must be a JSON object")
	}
	err = schema.Validate(inst)
	if err == nil {
		if te := byteBounds(schema, inst); te != nil {
			return nil, te
		}
		return raw, nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return nil, newAdapterError("invalid_arguments", "arguments do not match the input schema")
	}
	var l leafErrors
	v.leaves(ve, &l, false)
	msgs, params := l.msgs, l.params
	extras := []field{}
	if len(params) > 0 {
		extras = append(extras, field{"param", params[0]})
	}
	if len(msgs) > 5 {
		msgs = append(msgs[:5], fmt.Sprintf("and %d more", len(msgs)-5))
	}
	te := newAdapterError("invalid_arguments", "input validation failed: "+strings.Join(msgs, "; "), extras...)
	te.Next = unknownArgumentSteps(tool, raw, schema)
	return nil, te
}

// unknownArgumentSteps say, for each argument the tool does not take,
// which of its arguments was likely meant.
func unknownArgumentSteps(tool string, raw json.RawMessage, schema *jsonschema.Schema) []string {
	var given map[string]json.RawMessage
	if json.Unmarshal(raw, &given) != nil {
		return nil
	}
	known := make([]string, 0, len(schema.Properties))
	for name := range schema.Properties {
		known = append(known, name)
	}
	slices.Sort(known)
	unknown := make([]string, 0, len(given))
	for name := range given {
		if _, ok := schema.Properties[name]; !ok {
			unknown = append(unknown, name)
		}
	}
	slices.Sort(unknown) // which five are named does not depend on map order
	var steps []string
	for _, name := range unknown[:min(len(unknown), 5)] {
		step := fmt.Sprintf("%s takes no argument %q; ", tool, name)
		if near := schemaindex.NearNames(name, known, 1); len(near) > 0 {
			step += fmt.Sprintf("did you mean %q? ", near[0])
		}
		steps = append(steps, step+"its arguments: "+strings.Join(known, ", "))
	}
	slices.Sort(steps)
	return steps
}

// leafErrors are the messages of the failing leaves, in order, and the
// top-level arguments they concern.
type leafErrors struct {
	msgs, params []string
	// types indexes "got X" type failures by path and got, so that the
	// single-type branches of one anyOf read as one union.
	types map[string]*typeLeaf
}

// typeLeaf is one merged type failure: where its message sits and the
// types wanted so far.
type typeLeaf struct {
	index int
	got   string
	want  []string
}

// leaves collects one message per failing leaf: "<path>: <reason>". Type
// failures of alternatives (anyOf, oneOf branches: alt) at one path merge
// into one message ("got null, want boolean or number or string"), the
// wording a type union gets: portable schemas spell a union as
// single-type anyOf branches.
func (v *argValidator) leaves(e *jsonschema.ValidationError, l *leafErrors, alt bool) {
	v.leavesAt(e, l, alt, nil, "")
}

// leavesAt is leaves with the failures of a property name (propertyNames)
// moved to the top-level argument whose schema holds that propertyNames
// (loc) and prefixed with the name (note). The validator's own location
// for them is unreliable: it shares a buffer that validating later
// properties overwrites (jsonschema v6.0.3), so it is not used.
func (v *argValidator) leavesAt(e *jsonschema.ValidationError, l *leafErrors, alt bool, loc []string, note string) {
	if loc == nil {
		loc = e.InstanceLocation
	}
	if len(e.Causes) > 0 {
		v.causesAt(e, l, alt, loc, note)
		return
	}
	v.leafAt(e, l, alt, loc, note)
}

// causesAt descends into the causes of an inner failure: below anyOf and
// oneOf the causes are alternatives, below allOf they are not, and
// propertyNames failures are relocated (see leavesAt). A note, once set,
// stays with its relocated location all the way down.
func (v *argValidator) causesAt(e *jsonschema.ValidationError, l *leafErrors, alt bool, loc []string, note string) {
	switch k := e.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
		alt = true
	case *kind.AllOf:
		alt = false
	case *kind.PropertyNames:
		at := []string{} // "arguments" unless the schema location names an argument
		if arg := argumentOfSchema(e.SchemaURL); arg != "" {
			at = []string{arg}
		}
		for _, c := range e.Causes {
			v.leavesAt(c, l, alt, at, fmt.Sprintf("property name %q: ", k.Property))
		}
		return
	}
	if note == "" {
		loc = nil // each cause has its own location
	}
	for _, c := range e.Causes {
		v.leavesAt(c, l, alt, loc, note)
	}
}

// leafAt records one failing leaf at loc: its message, and its top-level
// argument unless the failure is about the arguments object itself. A
// type failure of an alternative merges into an earlier one at the same
// path (see leaves).
func (v *argValidator) leafAt(e *jsonschema.ValidationError, l *leafErrors, alt bool, loc []string, note string) {
	path := strings.Join(loc, ".")
	if path == "" {
		path = "arguments"
	} else {
		l.params = append(l.params, loc[0])
	}
	if k, ok := e.ErrorKind.(*kind.Type); ok && alt && note == "" {
		if merged := v.mergeType(l, path, k); merged {
			return
		}
	}
	l.msgs = append(l.msgs, path+": "+note+ungroup(e.ErrorKind.LocalizedString(v.printer)))
}

// mergeType folds a type failure into the earlier one at the same path
// with the same got type, rewriting that message to want the union, and
// reports true. For the first such failure it remembers where its message
// is about to be appended and reports false.
func (v *argValidator) mergeType(l *leafErrors, path string, k *kind.Type) bool {
	key := path + "\x00" + k.Got
	if t, seen := l.types[key]; seen {
		t.want = append(t.want, k.Want...)
		slices.Sort(t.want)
		t.want = slices.Compact(t.want)
		l.msgs[t.index] = path + ": " + (&kind.Type{Got: t.got, Want: t.want}).LocalizedString(v.printer)
		return true
	}
	if l.types == nil {
		l.types = map[string]*typeLeaf{}
	}
	l.types[key] = &typeLeaf{index: len(l.msgs), got: k.Got, want: slices.Clone(k.Want)}
	return false
}

// argumentOfSchema is the top-level argument a schema location is under
// ("mem:///t.json#/properties/filter/…" → "filter"), or "".
func argumentOfSchema(schemaURL string) string {
	_, frag, _ := strings.Cut(schemaURL, "#")
	parts := strings.Split(strings.TrimPrefix(frag, "/"), "/")
	if len(parts) < 2 || parts[0] != "properties" {
		return ""
	}
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(parts[1])
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

// byteBounds holds every string argument (and string list item) to its
// schema's maxLength in UTF-8 bytes too: JSON Schema counts characters,
// but the RS URL, and every proxy before it, counts bytes — 1,000 emoji
// are 4,000 bytes and a 12 KB percent-encoded query.
//
// inst is the arguments as the schema check decoded them (a JSON object
// is a map[string]any, a list []any, a string a string): not decoded again.
func byteBounds(schema *jsonschema.Schema, inst any) *toolError {
	args, ok := inst.(map[string]any)
	if !ok {
		return nil
	}
	for name, v := range args {
		prop := schema.Properties[name]
		if prop == nil {
			continue
		}
		var strs []string
		switch x := v.(type) {
		case string:
			strs = []string{x}
		case []any:
			items := itemSchema(prop)
			if items == nil {
				continue
			}
			for _, e := range x {
				if s, ok := e.(string); ok {
					strs = append(strs, s)
				}
			}
			prop = items
		}
		if prop.MaxLength == nil {
			continue
		}
		for _, str := range strs {
			if len(str) > *prop.MaxLength {
				return newAdapterError("invalid_arguments", fmt.Sprintf(
					"%s is %d bytes as UTF-8; at most %d are sent to the resource server (a non-ASCII character takes 2 to 4 bytes): shorten it",
					name, len(str), *prop.MaxLength), field{"param", name})
			}
		}
	}
	return nil
}

// itemSchema is a list schema's item schema, whichever draft spelt it.
func itemSchema(s *jsonschema.Schema) *jsonschema.Schema {
	if s.Items2020 != nil {
		return s.Items2020
	}
	if one, ok := s.Items.(*jsonschema.Schema); ok {
		return one
	}
	return nil
}
