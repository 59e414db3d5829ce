package rstest

import (
	"sort"
	"time"
)

// The reference RS keeps a per-(connection, stream) change log: every
// ingest of a record bumps a version counter, and a changes feed reads the
// change groups whose latest version lies in (after, session_max]. The mock's
// Dataset holds each record's final state only, so it derives the log:
// versions follow ingestion, not the records' own times (captures 0099,
// 0161, 0162: work-m000, m001, m002… although their dates jump back and
// forth). Creations come first, in Dataset order (the order they were
// ingested); deletions follow, in DeletedAt order. A version's time is the
// latest record time so far, so the log's clock only moves forward.

// changeEvent is one entry of the derived change log.
type changeEvent struct {
	at     time.Time
	r      *rec
	delete bool
}

// numberVersions assigns createV/deleteV to every record of the set, orders
// set.changes by latest version, and records the version counter and each
// version's time (for retention).
func (set *recordSet) numberVersions() {
	evs := make([]changeEvent, 0, len(set.changes))
	var deletes []changeEvent
	for _, r := range set.changes { // Dataset order: ingestion order
		evs = append(evs, changeEvent{at: r.EmittedAt, r: r})
		if r.Deleted {
			deletes = append(deletes, changeEvent{at: r.DeletedAt, r: r, delete: true})
		}
	}
	sort.SliceStable(deletes, func(i, j int) bool { return deletes[i].at.Before(deletes[j].at) })
	evs = append(evs, deletes...)
	set.versionAt = make([]time.Time, len(evs)+1)
	var clock time.Time
	for i, e := range evs {
		v := i + 1
		if e.at.After(clock) {
			clock = e.at
		}
		set.versionAt[v] = clock
		if e.delete {
			e.r.deleteV = v
		} else {
			e.r.createV = v
		}
	}
	set.maxVersion = len(evs)
	sort.SliceStable(set.changes, func(i, j int) bool { return set.changes[i].latestV() < set.changes[j].latestV() })
}

// latestV is the version of a record's last change.
func (r *rec) latestV() int {
	if r.deleteV > r.createV {
		return r.deleteV
	}
	return r.createV
}

// snapshot says what a record looked like at version v: absent, live or
// deleted.
func (r *rec) snapshot(v int) snapState {
	switch {
	case r.deleteV > 0 && v >= r.deleteV:
		return snapDeleted
	case r.createV > 0 && v >= r.createV:
		return snapLive
	}
	return snapAbsent
}

// snapState is a record's state at one version.
type snapState int

const (
	snapAbsent snapState = iota
	snapLive
	snapDeleted
)

// minRetainedVersion is the oldest version still in the change log when
// changes older than cutoff have been compacted away; 0 means the log is
// empty after compaction (the reference then never answers cursor_expired).
func (set *recordSet) minRetainedVersion(cutoff time.Time) int {
	for v := 1; v <= set.maxVersion; v++ {
		if !set.versionAt[v].Before(cutoff) {
			return v
		}
	}
	return 0
}
