package schemaindex

import (
	"slices"
	"strings"
)

// MaxProbeFields bounds the time-like fields tried per stream: each costs
// up to three RS calls (sort, group_by_time, max) on the first
// schema(stream) of a grant.
const MaxProbeFields = 4

// Probe is what the adapter learned by trying calls on a stream whose
// schema advertises nothing (the real RS's posture for client tokens, D1).
// The real RS still sorts, but only on the manifest's cursor field, and
// aggregates only where the manifest declares it (D18; reference
// implementation server/aggregate-request-validation.ts,
// requireDeclaredAggregate). Neither is visible to a client token, so the
// text suggests exactly the calls the RS accepted, never a guess.
type Probe struct {
	// Checked is true when every probe was answered (accepted or refused);
	// false when some could not be (RS failure, deadline): what was not
	// learned is then said to be unchecked, never absent.
	Checked bool
	// Tried are the fields probed, in probe order.
	Tried []string
	// Sort is the field the RS sorted on ("" when it refused every one).
	Sort string
	// Count: aggregate metric "count" was accepted.
	Count bool
	// GroupByTime and Max are the fields the RS accepted for
	// count+group_by_time and for max.
	GroupByTime, Max []string
}

// NeedsProbe reports whether the text would otherwise have to guess: the
// RS advertises nothing for this source.
func (s StreamSource) NeedsProbe() bool { return s.AdvertisesNothing() }

// ProbeFields are the granted fields worth trying as a sort or time field
// (at most MaxProbeFields): event-time roles first, then names that usually
// hold an event time, then any name ending in _at, _date or date.
func (s StreamSource) ProbeFields() []string {
	tf := s.timeFields()
	if len(tf) > MaxProbeFields {
		tf = tf[:MaxProbeFields]
	}
	return tf
}

// timeFields are the granted fields worth trying as a sort or time-bucket
// field when the RS advertises none.
func (s StreamSource) timeFields() []string {
	var out []string
	add := func(ok func(Field) bool) {
		for _, f := range s.FieldCaps {
			if f.Caps.Granted && ok(f) && !slices.Contains(out, f.Name) {
				out = append(out, f.Name)
			}
		}
	}
	add(func(f Field) bool { return f.Caps.Role == "event-time" })
	for _, name := range []string{"received_at", "sent_at", "created_at", "authored_at", "occurred_at", "started_at", "date", "timestamp", "time", "updated_at"} {
		add(func(f Field) bool { return f.Name == name })
	}
	add(func(f Field) bool {
		return strings.HasSuffix(f.Name, "_at") || strings.HasSuffix(f.Name, "_date") || strings.HasSuffix(f.Name, "date")
	})
	return out
}
