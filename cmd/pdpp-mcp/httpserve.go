package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// startedServer is an HTTP server listening on a resolved address.
type startedServer struct {
	URL  string // http://host:port of the bound listener
	srv  *http.Server
	done chan error
	// onShutdown, when set, runs once ctx has ended, before the drain
	// starts (serve logs it).
	onShutdown func()
}

// startHTTP binds addr ("127.0.0.1:0" picks a free port) and serves h in the
// background. Binding happens before it returns, so the URL is ready to print.
func startHTTP(addr string, h http.Handler) (*startedServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	s := &startedServer{URL: "http://" + ln.Addr().String(), srv: srv, done: make(chan error, 1)}
	go func() {
		err := srv.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		s.done <- err
	}()
	return s, nil
}

// waitAndShutdown blocks until ctx ends or the server fails, then shuts the
// server down gracefully (in-flight requests get a few seconds to finish).
func (s *startedServer) waitAndShutdown(ctx context.Context) error {
	return s.waitAndShutdownWithin(ctx, 5*time.Second)
}

// waitAndShutdownWithin is waitAndShutdown with the drain time given.
func (s *startedServer) waitAndShutdownWithin(ctx context.Context, drain time.Duration) error {
	select {
	case err := <-s.done:
		return err
	case <-ctx.Done():
	}
	if s.onShutdown != nil {
		s.onShutdown()
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	if err := s.srv.Shutdown(shutdownCtx); err != nil {
		return err
	}
	return <-s.done
}
