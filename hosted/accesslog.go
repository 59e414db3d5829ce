package hosted

import (
	"log/slog"
	"net/http"
	"time"
)

// observe is the door's outermost layer: one structured access-log line
// per hosted request — method, path (never the query), status, bytes and
// duration; headers, and so the bearer, are never logged — and, when m is
// set, the request metrics. Successful probes and scrapes are logged at
// DEBUG: a kubelet and Prometheus ask every few seconds, and at INFO they
// would drown the requests people read logs for. One clock reading and
// one recorder serve both; a line whose level is off is never built.
func observe(next http.Handler, m *Metrics, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		d := time.Since(start)
		// ServeMux records the matched pattern on the request it was given.
		m.observeRequest(r.Pattern, rec.status, d)
		level := slog.LevelInfo
		if isProbePath(r.URL.Path) && rec.status < http.StatusInternalServerError {
			level = slog.LevelDebug
		}
		if ctx := r.Context(); log.Enabled(ctx, level) {
			log.LogAttrs(ctx, level, "http request", slog.String("method", r.Method), slog.String("path", r.URL.Path),
				slog.Int("status", rec.status), slog.Int("bytes", rec.bytes), slog.Int64("duration_ms", d.Milliseconds()))
		}
	})
}

// isProbePath reports the endpoints machines poll: health, readiness and
// metrics. A failing readiness check stays at INFO: it changes routing.
func isProbePath(p string) bool {
	return p == "/healthz" || p == "/readyz" || p == "/metrics"
}

// statusRecorder remembers what a handler answered.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (s *statusRecorder) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(p []byte) (int, error) {
	n, err := s.ResponseWriter.Write(p)
	s.bytes += n
	return n, err
}

// Flush keeps streaming responses working through the recorder.
func (s *statusRecorder) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }
