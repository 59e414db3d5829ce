package page

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
)

// member is one generated payload member, in order.
type member struct {
	key   string
	value any
}

// objectJSON writes members as one object in their order, each value as
// encoding/json writes it without HTML escaping.
func objectJSON(members []member) json.RawMessage {
	out := []byte{'{'}
	for i, m := range members {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, MarshalNoEscape(m.key)...)
		out = append(append(out, ':'), MarshalNoEscape(m.value)...)
	}
	return append(out, '}')
}

// Page sizes the adapter's configuration allows: its default result
// ceiling and its smallest.
const (
	defaultMaxResultBytes = DefaultCeilingBytes
	minMaxResultBytes     = 4000
)

// genText is a random string of n runes mixing ASCII, multi-byte runes,
// quotes and newlines (JSON escapes make bytes exceed runes).
func genText(rng *rand.Rand, n int) string {
	alphabet := []string{"a", "b", "invoice ", "ü", "😀", "\"", "\n", "<mark>", "\\", "z"}
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(alphabet[rng.IntN(len(alphabet))])
	}
	return b.String()
}

func genID(rng *rand.Rand, n int) string {
	const chars = "abcdefghijklmnopqrstuvwxyz0123456789-_.:/"
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[rng.IntN(len(chars))]
	}
	return string(b)
}

// genPayload is a record payload with random field count, value kinds and
// sizes (strings up to 2,000 runes, nested values up to 1,000, arrays up to
// 60 elements). A record's share of the text budget is 300 B, so values
// far shorter than these already take every cut path; longer ones only
// cost generation time, most of all under -race.
func genPayload(rng *rand.Rand) json.RawMessage {
	var fields []member
	for i := range rng.IntN(61) {
		key := fmt.Sprintf("f%d_%s", i, genID(rng, rng.IntN(20)))
		var v any
		switch rng.IntN(6) {
		case 0:
			v = genText(rng, rng.IntN(2000))
		case 1:
			v = genText(rng, rng.IntN(40))
		case 2:
			v = rng.IntN(1 << 40)
		case 3:
			arr := make([]string, rng.IntN(60))
			for j := range arr {
				arr[j] = genText(rng, rng.IntN(30))
			}
			v = arr
		case 4:
			v = map[string]any{"nested": genText(rng, rng.IntN(1000)), "n": i}
		default:
			v = nil
		}
		fields = append(fields, member{key, v})
	}
	return objectJSON(fields)
}

// genRecordList is one random RS page: 0–100 records, ids of 1–120 bytes,
// deletions, warnings, and long RS cursors.
func genRecordList(rng *rand.Rand) *RecordList {
	list := &RecordList{HasMore: rng.IntN(2) == 0}
	if list.HasMore {
		list.NextCursor = genID(rng, 20+rng.IntN(400))
	}
	if rng.IntN(3) == 0 {
		list.NextChangesSince = genID(rng, 20+rng.IntN(200))
	}
	if rng.IntN(4) == 0 {
		list.Meta.Warnings = append(list.Meta.Warnings, Warning{Code: "slow", Message: genText(rng, rng.IntN(2000))})
	}
	for range rng.IntN(101) {
		r := Record{ID: genID(rng, 1+rng.IntN(120)), ConnectionID: "cin_" + genID(rng, 24), Stream: "messages",
			EmittedAt: "2026-01-01T00:00:00Z", Data: genPayload(rng)}
		if rng.IntN(10) == 0 {
			r.Deleted, r.DeletedAt, r.Data = true, "2026-02-01T00:00:00Z", nil
		}
		list.Data = append(list.Data, r)
	}
	return list
}
