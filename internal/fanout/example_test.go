package fanout_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/pdpp/pdpp-mcp/internal/fanout"
)

// Reading three sources at most two at a time, each within its own second
// from when its read starts; the answers come back in the sources' order.
func ExampleRun() {
	sources := []string{"work mail", "home mail", "calendar"}
	answers, errs := fanout.Run(context.Background(), len(sources), fanout.Options{Limit: 2, Timeout: time.Second},
		func(ctx context.Context, i int) (string, error) {
			return strings.ToUpper(sources[i]), ctx.Err() // e.g. one RS read under ctx
		})
	for i := range sources {
		fmt.Println(answers[i], errs[i])
	}
	// Output:
	// WORK MAIL <nil>
	// HOME MAIL <nil>
	// CALENDAR <nil>
}
