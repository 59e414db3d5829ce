package adapter

import "testing"

// argumentOfSchema reads the top-level argument out of a validator schema
// location; anything else (root, other keywords, no fragment) is "".
func TestArgumentOfSchema(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ url, want string }{
		{"mem:///query_records.json#/properties/filter/propertyNames", "filter"},
		{"mem:///query_records.json#/properties/filter/additionalProperties/anyOf/3/propertyNames", "filter"},
		{"mem:///t.json#/properties/a~1b~0c/propertyNames", "a/b~c"},
		{"mem:///t.json#/propertyNames", ""},
		{"mem:///t.json#", ""},
		{"mem:///t.json", ""},
		{"", ""},
	} {
		if got := argumentOfSchema(tc.url); got != tc.want {
			t.Errorf("argumentOfSchema(%q) = %q, want %q", tc.url, got, tc.want)
		}
	}
}
