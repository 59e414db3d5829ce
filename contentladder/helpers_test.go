package contentladder

import "testing"

// errOf returns err as *Error or fails the test.
func errOf(t *testing.T, err error) *Error {
	t.Helper()
	e, ok := err.(*Error)
	if !ok {
		t.Fatalf("error %v (%T) is not *Error", err, err)
	}
	return e
}
