package adapter

import (
	"context"
	"sync"

	"github.com/pdpp/pdpp-mcp/rsclient"
)

// refineSearchPage adds what the search's own answer lacks: each hit's
// title and event time (fillHitDetails), and, for a lexical miss, whether
// another mode would find something (coverageWarning). The two are
// independent reads, so they run at the same time: a page that needs both
// costs one round trip after its search, not two in sequence. Warnings
// keep their order: the coverage check's, then pending titles'.
func (s *Server) refineSearchPage(ctx context.Context, set *sourceSet, a searchArgs, filter rsclient.Filter, page *searchPage) {
	var coverage []warning
	var wg sync.WaitGroup
	if s.mayWarnCoverage(a, page) {
		wg.Go(func() { coverage = s.coverageWarnings(ctx, set, a, filter, page) })
	}
	pending := s.fillHitDetails(ctx, page.fields, page, page.searchTook)
	wg.Wait()
	page.warnings = append(append(page.warnings, coverage...), pending...)
}
