package rstest

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"
)

// The reference AS's check of one authorization_details entry: the JSON
// Schema SelectionRequestSchema (packages/reference-contract
// src/public/source.ts) through Ajv with allErrors, then the sibling-stream
// semantics (validateSelectionRequestSemantics), as
// reference-implementation/server/core-source-authorization.ts
// (validateCoreSelectionRequest) runs them. A refusal is a raw JSON 400,
// error invalid_authorization_details, with Ajv's messages joined by "; "
// in Ajv's order (untyped keywords, then required, additionalProperties,
// properties in schema order), e.g.
//
//	Selection request is invalid: / must have required property 'purpose_code'; /type must be equal to constant
//
// which is what the real AS answered for the same inputs on this machine.

// dataAccessType is the only authorization_details type the AS accepts.
const dataAccessType = "https://pdpp.dev/data-access"

// selectionRequestMembers are SelectionRequestSchema's properties, in the
// schema's order (Ajv reports property errors in it).
var selectionRequestMembers = []string{"access_mode", "client_claims", "purpose_code", "purpose_description",
	"retention", "selection_preset", "source", "streams", "type"}

// selectionStreamMembers are SelectionRequestStreamSchema's properties.
var selectionStreamMembers = []string{"fields", "instance_ids", "name", "necessity", "resources", "time_range", "view"}

// ajvURI is ajv-formats' "uri" format (full mode): an RFC 3986 URI with a
// scheme.
var ajvURI = regexp.MustCompile(`(?i)^(?:[a-z][a-z0-9+\-.]*:)(?:\/?\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:]|%[0-9a-f]{2})*@)?(?:\[(?:(?:(?:(?:[0-9a-f]{1,4}:){6}|::(?:[0-9a-f]{1,4}:){5}|(?:[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){4}|(?:(?:[0-9a-f]{1,4}:){0,1}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){3}|(?:(?:[0-9a-f]{1,4}:){0,2}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){2}|(?:(?:[0-9a-f]{1,4}:){0,3}[0-9a-f]{1,4})?::[0-9a-f]{1,4}:|(?:(?:[0-9a-f]{1,4}:){0,4}[0-9a-f]{1,4})?::)(?:[0-9a-f]{1,4}:[0-9a-f]{1,4}|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?))|(?:(?:[0-9a-f]{1,4}:){0,5}[0-9a-f]{1,4})?::[0-9a-f]{1,4}|(?:(?:[0-9a-f]{1,4}:){0,6}[0-9a-f]{1,4})?::)|[Vv][0-9a-f]+\.[a-z0-9\-._~!$&'()*+,;=:]+)\]|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?)|(?:[a-z0-9\-._~!$&'()*+,;=]|%[0-9a-f]{2})*)(?::\d*)?(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*|\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)?|(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)(?:\?(?:[a-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?(?:#(?:[a-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?$`)

// isAjvURI is ajv-formats' uri check: a "/" or ":" and the RFC 3986 form.
func isAjvURI(s string) bool { return strings.ContainsAny(s, "/:") && ajvURI.MatchString(s) }

// ajvErrors collects Ajv-style error lines.
type ajvErrors []string

func (e *ajvErrors) add(path, msg string) {
	if path == "" {
		path = "/"
	}
	*e = append(*e, path+" "+msg)
}

// validateSelectionRequest returns the real AS's refusal of one entry, or
// "" when it accepts the entry's shape.
func validateSelectionRequest(entry any) string {
	var errs ajvErrors
	obj, isObj := entry.(map[string]any)
	_, hasStreams := obj["streams"]
	_, hasPreset := obj["selection_preset"]
	// oneOf: streams xor selection_preset (untyped, so first).
	if !isObj || hasStreams == hasPreset {
		oneOfBranch(&errs, isObj, hasPreset, "streams")
		oneOfBranch(&errs, isObj, hasStreams, "selection_preset")
		errs.add("", "must match exactly one schema in oneOf")
	}
	if !isObj {
		errs.add("", "must be object")
		return "Selection request is invalid: " + strings.Join(errs, "; ")
	}
	for _, k := range []string{"type", "source", "purpose_code", "access_mode"} {
		if _, ok := obj[k]; !ok {
			errs.add("", fmt.Sprintf("must have required property '%s'", k))
		}
	}
	for _, k := range sortedKeys(obj) {
		if !slices.Contains(selectionRequestMembers, k) {
			errs.add("", "must NOT have additional properties")
		}
	}
	for _, k := range selectionRequestMembers {
		if v, ok := obj[k]; ok {
			checkSelectionMember(&errs, k, v)
		}
	}
	if len(errs) > 0 {
		return "Selection request is invalid: " + strings.Join(errs, "; ")
	}
	if codes := selectionSemantics(obj); len(codes) > 0 {
		return "Selection request semantics are invalid: " + strings.Join(codes, ", ")
	}
	return ""
}

// oneOfBranch reports one oneOf branch's failure: {not: {required: [other]},
// required: [want]}.
func oneOfBranch(errs *ajvErrors, isObj, hasOther bool, want string) {
	if !isObj {
		errs.add("", "must NOT be valid")
		return
	}
	if hasOther {
		errs.add("", "must NOT be valid")
		return
	}
	errs.add("", fmt.Sprintf("must have required property '%s'", want))
}

// checkSelectionMember checks one member against its property schema.
func checkSelectionMember(errs *ajvErrors, k string, v any) {
	path := "/" + k
	switch k {
	case "access_mode":
		checkEnum(errs, path, v, "single_use", "continuous")
	case "purpose_code":
		checkString(errs, path, v, true)
	case "purpose_description", "selection_preset":
		checkString(errs, path, v, false)
	case "client_claims", "retention":
		if _, ok := v.(map[string]any); !ok {
			errs.add(path, "must be object")
		}
	case "source":
		checkSource(errs, v)
	case "streams":
		checkStreams(errs, v)
	case "type":
		if v != dataAccessType {
			errs.add(path, "must be equal to constant")
		}
	}
}

// checkString is {type: string, minLength: 1} and, with uri, format uri.
func checkString(errs *ajvErrors, path string, v any, uri bool) {
	s, ok := v.(string)
	if !ok {
		errs.add(path, "must be string")
		return
	}
	if s == "" {
		errs.add(path, "must NOT have fewer than 1 characters")
	}
	if uri && !isAjvURI(s) {
		errs.add(path, `must match format "uri"`)
	}
}

// checkEnum is {enum: allowed, type: string}.
func checkEnum(errs *ajvErrors, path string, v any, allowed ...string) {
	s, ok := v.(string)
	if !ok || !slices.Contains(allowed, s) {
		errs.add(path, "must be equal to one of the allowed values")
	}
	if !ok {
		errs.add(path, "must be string")
	}
}

// checkSource is SourceRequestObjectSchema: {id: uri, kind?: enum}, no
// other member.
func checkSource(errs *ajvErrors, v any) {
	src, ok := v.(map[string]any)
	if !ok {
		errs.add("/source", "must be object")
		return
	}
	if _, ok := src["id"]; !ok {
		errs.add("/source", "must have required property 'id'")
	}
	for _, k := range sortedKeys(src) {
		if k != "id" && k != "kind" {
			errs.add("/source", "must NOT have additional properties")
		}
	}
	if id, ok := src["id"]; ok {
		checkString(errs, "/source/id", id, true)
	}
	if kind, ok := src["kind"]; ok {
		checkEnum(errs, "/source/kind", kind, "connector", "provider_native")
	}
}

// checkStreams is {type: array, minItems: 1, uniqueItems, items:
// SelectionRequestStreamSchema}.
func checkStreams(errs *ajvErrors, v any) {
	streams, ok := v.([]any)
	if !ok {
		errs.add("/streams", "must be array")
		return
	}
	if len(streams) == 0 {
		errs.add("/streams", "must NOT have fewer than 1 items")
	}
	checkUnique(errs, "/streams", streams)
	for i, st := range streams {
		checkStream(errs, fmt.Sprintf("/streams/%d", i), st)
	}
}

// checkUnique is uniqueItems over objects: Ajv compares each item with
// every earlier one, last first, and names the pair (earlier, later).
func checkUnique(errs *ajvErrors, path string, items []any) {
	for j := len(items) - 1; j > 0; j-- {
		for i := j - 1; i >= 0; i-- {
			if reflect.DeepEqual(items[i], items[j]) {
				errs.add(path, fmt.Sprintf("must NOT have duplicate items (items ## %d and %d are identical)", i, j))
				return
			}
		}
	}
}

// checkUniqueStrings is uniqueItems over strings: Ajv indexes the items
// last first and names the pair (later, earlier) at the first repeat.
func checkUniqueStrings(errs *ajvErrors, path string, items []any) {
	seen := map[string]int{}
	for i := len(items) - 1; i >= 0; i-- {
		s, ok := items[i].(string)
		if !ok {
			continue
		}
		if j, dup := seen[s]; dup {
			errs.add(path, fmt.Sprintf("must NOT have duplicate items (items ## %d and %d are identical)", j, i))
			return
		}
		seen[s] = i
	}
}

// checkStream is SelectionRequestStreamSchema.
func checkStream(errs *ajvErrors, path string, v any) {
	st, ok := v.(map[string]any)
	if !ok {
		errs.add(path, "must be object")
		return
	}
	_, hasFields := st["fields"]
	_, hasView := st["view"]
	if hasFields && hasView {
		errs.add(path, "must NOT be valid")
	}
	if _, ok := st["name"]; !ok {
		errs.add(path, "must have required property 'name'")
	}
	for _, k := range sortedKeys(st) {
		if !slices.Contains(selectionStreamMembers, k) {
			errs.add(path, "must NOT have additional properties")
		}
	}
	for _, k := range selectionStreamMembers {
		val, ok := st[k]
		if !ok {
			continue
		}
		p := path + "/" + k
		switch k {
		case "fields", "instance_ids", "resources":
			checkStringSet(errs, p, val)
		case "name", "view":
			checkString(errs, p, val, false)
		case "necessity":
			checkEnum(errs, p, val, "required", "optional")
		case "time_range":
			checkTimeRange(errs, p, val)
		}
	}
}

// checkStringSet is NonEmptyUniqueStringsSchema.
func checkStringSet(errs *ajvErrors, path string, v any) {
	items, ok := v.([]any)
	if !ok {
		errs.add(path, "must be array")
		return
	}
	if len(items) == 0 {
		errs.add(path, "must NOT have fewer than 1 items")
	}
	checkUniqueStrings(errs, path, items)
	for i, it := range items {
		checkString(errs, fmt.Sprintf("%s/%d", path, i), it, false)
	}
}

// checkTimeRange is TimeRangeSchema: since and/or until, date-times.
func checkTimeRange(errs *ajvErrors, path string, v any) {
	tr, ok := v.(map[string]any)
	if !ok {
		errs.add(path, "must be object")
		return
	}
	_, since := tr["since"]
	_, until := tr["until"]
	if !since && !until {
		errs.add(path, "must have required property 'since'")
		errs.add(path, "must have required property 'until'")
		errs.add(path, "must match a schema in anyOf")
	}
	for _, k := range sortedKeys(tr) {
		if k != "since" && k != "until" {
			errs.add(path, "must NOT have additional properties")
		}
	}
	for _, k := range []string{"since", "until"} {
		if val, ok := tr[k]; ok {
			s, isStr := val.(string)
			switch {
			case !isStr:
				errs.add(path+"/"+k, "must be string")
			case !isDateTime(s):
				errs.add(path+"/"+k, `must match format "date-time"`)
			}
		}
	}
}

// isDateTime approximates ajv-formats' date-time: RFC 3339 with a zone.
func isDateTime(s string) bool {
	_, err := time.Parse(time.RFC3339Nano, strings.Replace(strings.ToUpper(s), " ", "T", 1))
	return err == nil
}

// selectionSemantics is validateSelectionRequestSemantics's failure codes.
func selectionSemantics(obj map[string]any) []string {
	streams, _ := obj["streams"].([]any)
	var codes []string
	seen := map[string]bool{}
	for _, v := range streams {
		st, _ := v.(map[string]any)
		name, _ := st["name"].(string)
		if seen[name] {
			codes = append(codes, "source.selection.duplicate_stream_name")
		}
		seen[name] = true
		if tr, ok := st["time_range"].(map[string]any); ok {
			since, _ := tr["since"].(string)
			until, _ := tr["until"].(string)
			s, errS := time.Parse(time.RFC3339Nano, since)
			u, errU := time.Parse(time.RFC3339Nano, until)
			if errS == nil && errU == nil && s.After(u) {
				codes = append(codes, "source.selection.invalid_time_range")
			}
		}
	}
	if seen["*"] && len(streams) != 1 {
		codes = append(codes, "source.selection.wildcard_must_be_only_stream")
	}
	return codes
}

// sortedKeys lists an object's members in JS insertion order's stand-in:
// sorted (Go maps keep no order; Ajv's duplicate messages are identical).
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
