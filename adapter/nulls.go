package adapter

import (
	"bytes"
	"encoding/json"
)

// Models often write an optional argument they do not use as null
// ("cursor": null, "limit": null) — function-calling formats that list
// every property teach them to. No input schema admits null for any
// argument (TestNoInputSchemaAdmitsNull), so for an optional argument
// null can only mean "not given", and it is read that way instead of
// costing the model a failed call. A required argument sent as null, an
// unknown (perhaps misspelt) name sent as null, and a null nested inside
// an argument (a filter value) are left for validation to judge.

// withoutOptionalNulls returns raw without its top-level members that are
// null and whose names optional reports; ok is false when there are none,
// and when a name repeats (validation then sees what the caller sent:
// the decoders keep the last value, and dropping one copy would change
// which that is).
func withoutOptionalNulls(raw json.RawMessage, optional func(name string) bool) (json.RawMessage, bool) {
	if !bytes.Contains(raw, []byte("null")) {
		return nil, false // the common case: nothing to look at
	}
	members, err := orderedObject(raw)
	if err != nil {
		return nil, false
	}
	seen := make(map[string]bool, len(members))
	fields := make([]field, 0, len(members))
	for _, m := range members {
		if seen[m.key] {
			return nil, false
		}
		seen[m.key] = true
		if string(bytes.TrimSpace(m.value)) == "null" && optional(m.key) {
			continue
		}
		fields = append(fields, field{m.key, m.value})
	}
	if len(fields) == len(members) {
		return nil, false
	}
	return orderedJSON(fields), true
}
