package schemaindex

import "slices"

// Tests inspect a merged index through Sources; the adapter only asks it
// questions (Connection, Candidates, …), so it is not part of the API.

// Sources returns every (grant, connection) source in grant order. The
// returned slice is a copy; the Streams slices are shared and must not be
// modified.
func (ix *Index) Sources() []SourceEntry { return slices.Clone(ix.sources) }
