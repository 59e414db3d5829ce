package hosted

import (
	"log/slog"
	"net/http"
	"time"
)

// accessLog writes one structured line per hosted request: method, path
// (never the query), status, bytes and duration. Headers — and so the
// bearer — are never logged. Successful probes and scrapes are logged at
// DEBUG: a kubelet and Prometheus ask every few seconds, and at INFO they
// would drown the requests people read logs for.
func accessLog(next http.Handler, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		level := slog.LevelInfo
		if isProbePath(r.URL.Path) && rec.status < http.StatusInternalServerError {
			level = slog.LevelDebug
		}
		log.Log(r.Context(), level, "http request", "method", r.Method, "path", r.URL.Path, "status", rec.status,
			"bytes", rec.bytes, "duration_ms", time.Since(start).Milliseconds())
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
