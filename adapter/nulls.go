package adapter

import (
	"bytes"
	"encoding/json"
	"slices"
)

// Models often write an optional argument they do not use as null
// ("cursor": null, "limit": null) — function-calling formats that list
// every property teach them to. For an optional argument null can only
// mean "not given", so it is read that way instead of costing the model a
// failed call; a required argument sent as null is still reported, and a
// null nested inside an argument (a filter value) is the caller's value.

// withoutOptionalNulls returns raw without its top-level members that are
// null and not in required; ok is false when there are none.
func withoutOptionalNulls(raw json.RawMessage, required []string) (json.RawMessage, bool) {
	if !bytes.Contains(raw, []byte("null")) {
		return nil, false // the common case: nothing to look at
	}
	members, err := orderedObject(raw)
	if err != nil {
		return nil, false
	}
	fields := make([]field, 0, len(members))
	for _, m := range members {
		if string(bytes.TrimSpace(m.value)) == "null" && !slices.Contains(required, m.key) {
			continue
		}
		fields = append(fields, field{m.key, m.value})
	}
	if len(fields) == len(members) {
		return nil, false
	}
	return orderedJSON(fields), true
}
