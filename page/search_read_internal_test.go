package page

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/contentladder"
)

// A hit's title and time are settled from its reads, in one order: the
// record's title field as read, else its snippet where that is the whole
// title field, else source / stream / time; the event time read beats the
// RS's authored_at; a pending read marks the stand-in.
func TestSearchHitTitleFromReads(t *testing.T) {
	t.Parallel()
	base := Hit{Ref: contentladder.RecordRef{ConnectionID: "cin_1", Stream: "messages", RecordID: "m1"}, ConnectionID: "cin_1",
		ConnectorKey: "gmail", Display: "Work mail", EmittedAt: "2026-03-01T00:00:00Z"}
	with := func(f func(*Hit)) Hit { h := base; f(&h); return h }
	for _, tc := range []struct {
		name             string
		hit              Hit
		title, eventTime string
	}{
		{"nothing read: source, stream and ingest time", base, "Work mail / messages / ingested 2026-03-01T00:00:00Z", ""},
		{"authored time beats ingest time", with(func(h *Hit) { h.AuthoredAt = "2026-02-01" }),
			"Work mail / messages / 2026-02-01", "2026-02-01"},
		{"read time beats authored time, on one line and bounded",
			with(func(h *Hit) { h.AuthoredAt, h.ReadTime = "2026-02-01", "Thu, 16 Apr\n2026 "+strings.Repeat("9", 60) }),
			"Work mail / messages / Thu, 16 Apr 2026 " + strings.Repeat("9", 22) + "…", "Thu, 16 Apr 2026 " + strings.Repeat("9", 22) + "…"},
		{"a whole title snippet is the title", with(func(h *Hit) {
			h.TitleField, h.SnippetField, h.Snippet = "subject", "subject", "Q3 <mark>invoice</mark>"
		}), "Q3 invoice", ""},
		{"a body snippet is never the title", with(func(h *Hit) {
			h.TitleField, h.SnippetField, h.Snippet = "subject", "body", "the <mark>invoice</mark> is attached"
		}), "Work mail / messages / ingested 2026-03-01T00:00:00Z", ""},
		{"the title read beats the snippet", with(func(h *Hit) {
			h.TitleField, h.SnippetField, h.Snippet, h.ReadTitle = "subject", "subject", "Q3 <mark>invoice</mark>", "Q3\ninvoice  (final)"
		}), "Q3 invoice (final)", ""},
		{"a blank title read leaves the stand-in", with(func(h *Hit) { h.ReadTitle = " \n " }),
			"Work mail / messages / ingested 2026-03-01T00:00:00Z", ""},
		{"a pending read marks the stand-in", with(func(h *Hit) { h.TitlePending = true }),
			PendingTitleMark + "Work mail / messages / ingested 2026-03-01T00:00:00Z", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := searchHitOf(tc.hit)
			if diff := cmp.Diff([]string{tc.title, tc.eventTime}, []string{got.Title, got.EventTime}); diff != "" {
				t.Errorf("title, event time (-want +got):\n%s", diff)
			}
		})
	}
}

// The titles_pending warning shows only while a hit the page shows has a
// pending title: a page whose pending hits were all left for the next
// page does not say so.
func TestTitlesPendingWarningOnlyWithAPendingHit(t *testing.T) {
	t.Parallel()
	warn := Warning{Code: TitlesPendingCode, Message: "titles pending"}
	hit := Hit{Ref: contentladder.RecordRef{ConnectionID: "cin_1", Stream: "s", RecordID: "r"}, ConnectionID: "cin_1"}
	pending := hit
	pending.TitlePending = true
	for _, tc := range []struct {
		name string
		hits []Hit
		want bool
	}{
		{"a pending hit shown", []Hit{hit, pending}, true},
		{"no pending hit shown", []Hit{hit}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := Search(SearchRead{Hits: tc.hits, Warnings: []Warning{warn}})
			if got := strings.Contains(res.Text, "warning "+TitlesPendingCode); got != tc.want {
				t.Errorf("warning shown: %t, want %t:\n%s", got, tc.want, res.Text)
			}
			if got := strings.Contains(string(res.Structured), "warning "+TitlesPendingCode); got != tc.want {
				t.Errorf("structured warning shown: %t, want %t", got, tc.want)
			}
		})
	}
}
