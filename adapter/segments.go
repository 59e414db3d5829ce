package adapter

import "github.com/pdpp/pdpp-mcp/contentladder"

// seg is one caller-supplied value that will become part of an RS URL.
type seg struct{ label, value string }

// validateSegments checks every non-empty id segment before it can reach a
// URL: no separators, traversal or control characters.
func validateSegments(segs ...seg) *toolError {
	for _, s := range segs {
		if s.value == "" {
			continue
		}
		if err := contentladder.ValidateSegment(s.label, s.value); err != nil {
			return newAdapterError("invalid_id", err.Error(), field{"param", s.label})
		}
	}
	return nil
}
