package hosted

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"unicode"
)

// The authorization server's rules for an operator's authorization_details,
// checked at start-up so that a selection the AS would refuse stops serve
// (exit 64, naming the member) instead of failing every sign-in with the
// AS's raw 400 after the browser is already there. They are the reference
// AS's (reference-implementation/server/core-source-authorization.ts,
// validateCoreSelectionRequest: SelectionRequestSchema of
// packages/reference-contract src/public/source.ts, then
// validateSelectionRequestSemantics; server/auth.ts for the source URI):
// exactly these members, type https://pdpp.dev/data-access, source.id an
// absolute URI (the connector's registry URI, not its short key),
// purpose_code an absolute URI, access_mode single_use or continuous,
// streams or selection_preset. One entry only: the reference AS turns
// several into a staged batch whose approval is a grant package, whose
// token the RS's /v1 refuses (server/routes/as-consent.ts).

// DataAccessType is the authorization_details type the AS accepts.
const DataAccessType = "https://pdpp.dev/data-access"

// detailMembers are the members an entry may carry.
var detailMembers = []string{"type", "source", "purpose_code", "access_mode", "streams", "selection_preset",
	"purpose_description", "client_claims", "retention"}

// streamMembers are the members a stream selection may carry.
var streamMembers = []string{"name", "instance_ids", "fields", "view", "resources", "necessity", "time_range"}

// ParseAuthorizationDetails checks an operator's authorization_details
// document against the AS's rules and returns it compacted, exactly as it
// will be sent. Each refusal names the member and what the AS wants.
func ParseAuthorizationDetails(raw []byte) (string, error) {
	if len(raw) > 4*MaxAuthorizationDetailsBytes {
		return "", fmt.Errorf("authorization_details: larger than %d bytes", 4*MaxAuthorizationDetailsBytes)
	}
	d, err := decodeDetail(raw)
	if err != nil {
		return "", err
	}
	if err := checkDetail(d); err != nil {
		return "", fmt.Errorf("authorization_details[0]: %v", err)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return "", fmt.Errorf("authorization_details: %v", err)
	}
	if buf.Len() > MaxAuthorizationDetailsBytes {
		return "", fmt.Errorf("authorization_details: %d bytes compacted, more than the %d an authorize URL can carry", buf.Len(), MaxAuthorizationDetailsBytes)
	}
	return buf.String(), nil
}

// decodeDetail reads a JSON array of exactly one object.
func decodeDetail(raw []byte) (map[string]any, error) {
	var details []any
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&details); err != nil {
		return nil, fmt.Errorf("authorization_details: want a JSON array of one object: %v", err)
	}
	if dec.More() {
		return nil, errors.New("authorization_details: trailing data after the JSON array")
	}
	if len(details) != 1 {
		return nil, fmt.Errorf("authorization_details: want exactly 1 entry, got %d (the AS turns several into a grant package, whose token the RS's /v1 refuses; select one source)", len(details))
	}
	d, ok := details[0].(map[string]any)
	if !ok {
		return nil, errors.New("authorization_details[0]: want a JSON object")
	}
	return d, nil
}

// checkDetail checks one entry's members.
func checkDetail(d map[string]any) error {
	for _, k := range slices.Sorted(maps.Keys(d)) {
		if !slices.Contains(detailMembers, k) {
			return fmt.Errorf("member %q is not one the authorization server accepts (%s)", k, strings.Join(detailMembers, ", "))
		}
	}
	if t, ok := d["type"]; !ok || t != DataAccessType {
		return fmt.Errorf("type is required and must be %q (got %s)", DataAccessType, describeJSON(t, ok))
	}
	if err := checkSource(d["source"]); err != nil {
		return err
	}
	if err := checkPurposeAndMode(d); err != nil {
		return err
	}
	if err := checkOptionalMembers(d); err != nil {
		return err
	}
	return checkSelection(d)
}

// checkPurposeAndMode requires a purpose_code URI and an access_mode.
func checkPurposeAndMode(d map[string]any) error {
	if p, ok := d["purpose_code"].(string); !ok || !absoluteURI(p) {
		return fmt.Errorf("purpose_code is required: an absolute URI, e.g. https://pdpp.dev/purpose/personal_ai_assistant (got %s)", describeMember(d, "purpose_code"))
	}
	if m, ok := d["access_mode"].(string); !ok || (m != "continuous" && m != "single_use") {
		return fmt.Errorf(`access_mode is required: "continuous" or "single_use" (got %s)`, describeMember(d, "access_mode"))
	}
	return nil
}

// checkOptionalMembers checks the types of the optional members.
func checkOptionalMembers(d map[string]any) error {
	for _, k := range []string{"purpose_description", "selection_preset"} {
		if v, ok := d[k]; ok {
			if s, isStr := v.(string); !isStr || s == "" {
				return fmt.Errorf("%s must be a non-empty string", k)
			}
		}
	}
	for _, k := range []string{"client_claims", "retention"} {
		if v, ok := d[k]; ok {
			if _, isObj := v.(map[string]any); !isObj {
				return fmt.Errorf("%s must be an object", k)
			}
		}
	}
	return nil
}

// checkSelection requires streams or a selection_preset, not both.
func checkSelection(d map[string]any) error {
	_, hasStreams := d["streams"]
	_, hasPreset := d["selection_preset"]
	switch {
	case hasStreams && hasPreset:
		return errors.New("give streams or selection_preset, not both")
	case hasPreset:
		return nil
	case !hasStreams:
		return errors.New(`streams is required (e.g. [{"name": "*"}]), or a selection_preset`)
	}
	return checkStreams(d["streams"])
}

// checkSource requires {"id": <absolute URI>} with an optional kind.
func checkSource(v any) error {
	src, ok := v.(map[string]any)
	if !ok {
		return errors.New(`source is required: {"kind": "connector", "id": "<the connector's source URI, e.g. https://registry.pdpp.dev/connectors/gmail>"}`)
	}
	for _, k := range slices.Sorted(maps.Keys(src)) {
		if k != "id" && k != "kind" {
			return fmt.Errorf("source.%s: source takes only id and kind", k)
		}
	}
	if k, ok := src["kind"]; ok && k != "connector" && k != "provider_native" {
		return fmt.Errorf(`source.kind must be "connector" or "provider_native" (got %s)`, describeJSON(k, true))
	}
	id, _ := src["id"].(string)
	if err := checkSelectionID("source.id", id); err != nil {
		return err
	}
	if !absoluteURI(id) {
		return fmt.Errorf("source.id must be the connector's source URI, e.g. https://registry.pdpp.dev/connectors/gmail, not %q", id)
	}
	return nil
}

// checkStreams checks the stream selections: 1 to 32, each named once,
// "*" (every stream) alone.
func checkStreams(v any) error {
	streams, ok := v.([]any)
	if !ok || len(streams) == 0 || len(streams) > maxDetailStreams {
		return fmt.Errorf("streams: want an array of 1 to %d stream selections", maxDetailStreams)
	}
	seen := map[string]bool{}
	for j, raw := range streams {
		st, ok := raw.(map[string]any)
		if !ok {
			return fmt.Errorf("streams[%d]: want an object", j)
		}
		name, err := checkStream(j, st)
		if err != nil {
			return err
		}
		if seen[name] {
			return fmt.Errorf("streams[%d].name %q is selected twice", j, name)
		}
		seen[name] = true
	}
	if seen["*"] && len(streams) > 1 {
		return errors.New(`streams: "*" (every stream) must be the only stream selection`)
	}
	return nil
}

// checkStream checks one stream selection and returns its name.
func checkStream(j int, st map[string]any) (string, error) {
	for _, k := range slices.Sorted(maps.Keys(st)) {
		if !slices.Contains(streamMembers, k) {
			return "", fmt.Errorf("streams[%d]: member %q is not one the authorization server accepts (%s)", j, k, strings.Join(streamMembers, ", "))
		}
	}
	name, _ := st["name"].(string)
	if _, ok := st["name"]; !ok {
		return "", fmt.Errorf("streams[%d].name is required (\"*\" for every stream)", j)
	}
	if err := checkSelectionID(fmt.Sprintf("streams[%d].name", j), name); err != nil {
		return "", err
	}
	if _, f := st["fields"]; f {
		if _, v := st["view"]; v {
			return "", fmt.Errorf("streams[%d]: give fields or view, not both", j)
		}
	}
	for _, k := range []string{"instance_ids", "fields", "resources"} {
		if v, ok := st[k]; ok {
			if err := checkIDSet(fmt.Sprintf("streams[%d].%s", j, k), v); err != nil {
				return "", err
			}
		}
	}
	return name, nil
}

// checkIDSet requires a non-empty array of distinct identifiers.
func checkIDSet(what string, v any) error {
	items, ok := v.([]any)
	if !ok || len(items) == 0 || len(items) > maxInstanceIDs {
		return fmt.Errorf("%s: want an array of 1 to %d identifiers", what, maxInstanceIDs)
	}
	seen := map[string]bool{}
	for _, it := range items {
		id, _ := it.(string)
		if err := checkSelectionID(what, id); err != nil {
			return err
		}
		if seen[id] {
			return fmt.Errorf("%s: %q is listed twice", what, id)
		}
		seen[id] = true
	}
	return nil
}

// absoluteURI reports whether s is an absolute URI the AS accepts: a
// scheme, and nothing outside RFC 3986's characters.
func absoluteURI(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || (u.Opaque == "" && u.Host == "" && u.Path == "") {
		return false
	}
	for _, r := range s {
		if r > unicode.MaxASCII || !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-._~:/?#[]@!$&'()*+,;=%", r)) {
			return false
		}
	}
	return true
}

// describeMember is how a refusal shows the member's value.
func describeMember(d map[string]any, k string) string {
	v, ok := d[k]
	return describeJSON(v, ok)
}

// describeJSON shows a JSON value briefly, or "nothing" when absent.
func describeJSON(v any, present bool) string {
	if !present {
		return "nothing"
	}
	b, _ := json.Marshal(v)
	if len(b) > 80 {
		b = append(b[:77], "..."...)
	}
	return string(b)
}

// stringMember is d[outer][inner] when it is a string.
func stringMember(d map[string]any, outer, inner string) string {
	m, _ := d[outer].(map[string]any)
	s, _ := m[inner].(string)
	return s
}

// instanceIDs lists the entry's connections, first mention first.
func instanceIDs(d map[string]any) []string {
	var out []string
	streams, _ := d["streams"].([]any)
	for _, st := range streams {
		m, _ := st.(map[string]any)
		ids, _ := m["instance_ids"].([]any)
		for _, id := range ids {
			if s, ok := id.(string); ok && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// checkSelectionID requires a non-empty identifier of printable
// characters without spaces: connector URIs and keys, connection ids and
// stream names.
func checkSelectionID(what, id string) error {
	if id == "" {
		return fmt.Errorf("%s is required", what)
	}
	if len(id) > maxSelectionIDLen {
		return fmt.Errorf("%s is longer than %d bytes", what, maxSelectionIDLen)
	}
	for _, r := range id {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return fmt.Errorf("%s %q holds a space or control character", what, id)
		}
	}
	return nil
}
