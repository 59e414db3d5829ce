package adapter

import (
	"bytes"
	"encoding/json"
)

// Arguments are read as models write them, within the input schema, at
// one place: givenArguments, run on every call before validation, so the
// validator, the handlers and a refused call's retry all see the same
// arguments.
//
//   - An integer in another spelling of a whole number ("limit": 25.0,
//     "limit": 1e1) is that number (args_integers.go).
//   - An optional argument sent as null — function-calling formats that
//     list every property teach models to write "cursor": null — is not
//     given. No input schema admits null for any argument
//     (TestNoInputSchemaAdmitsNull), so null can only mean that. A
//     required argument sent as null, an unknown (perhaps misspelt) name
//     sent as null, and a null nested inside an argument (a filter value)
//     are left for validation to judge.

// givenArguments returns raw with its top-level members as the call means
// them: integral numbers in plain digits, and nulls dropped where
// optional reports the name. When a name repeats, nulls are kept
// (validation then sees what the caller sent: the decoders keep the last
// value, and dropping one copy would change which that is). Nested values
// are left as written.
func givenArguments(raw json.RawMessage, optional func(name string) bool) json.RawMessage {
	members, err := orderedObject(raw)
	if err != nil {
		return raw // not an object: validation says so
	}
	repeats := repeatedNames(members)
	return rewriteMembers(raw, members, func(name string, value json.RawMessage) (json.RawMessage, bool) {
		if !repeats && string(bytes.TrimSpace(value)) == "null" && optional(name) {
			return nil, false
		}
		if digits, ok := integralNumber(value); ok {
			return digits, true
		}
		return value, true
	})
}

// plainIntegers is raw with every top-level integral number in plain
// digits: expand_limit's counts ({"thread": 2.0} is {"thread": 2}).
func plainIntegers(raw json.RawMessage) json.RawMessage {
	members, err := orderedObject(raw)
	if err != nil {
		return raw
	}
	return rewriteMembers(raw, members, func(_ string, value json.RawMessage) (json.RawMessage, bool) {
		if digits, ok := integralNumber(value); ok {
			return digits, true
		}
		return value, true
	})
}

// rewriteMembers applies edit to each member of the object raw (its
// members, in order; keep false drops one) and returns raw itself when
// nothing changed, so the common call builds nothing.
func rewriteMembers(raw json.RawMessage, members []kv, edit func(name string, value json.RawMessage) (json.RawMessage, bool)) json.RawMessage {
	var fields []field // built only once something changes
	for i, m := range members {
		value, keep := edit(m.key, m.value)
		same := keep && bytes.Equal(value, m.value)
		if same && fields == nil {
			continue
		}
		if fields == nil {
			fields = make([]field, 0, len(members))
			for _, earlier := range members[:i] {
				fields = append(fields, field{earlier.key, earlier.value})
			}
		}
		if keep {
			fields = append(fields, field{m.key, value})
		}
	}
	if fields == nil {
		return raw
	}
	return orderedJSON(fields)
}

// repeatedNames reports whether an object names a member twice.
func repeatedNames(members []kv) bool {
	seen := make(map[string]bool, len(members))
	for _, m := range members {
		if seen[m.key] {
			return true
		}
		seen[m.key] = true
	}
	return false
}
