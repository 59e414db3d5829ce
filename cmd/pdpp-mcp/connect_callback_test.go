package main

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// The loopback redirect takes only the answer carrying its state: another
// state gets an error page and the wait goes on; the AS's error ends it
// with that error; the right code is returned; no answer by the deadline
// says to run connect again.
func TestLoopbackCallback(t *testing.T) {
	t.Parallel()
	get := func(t *testing.T, u string) (int, string) {
		t.Helper()
		res, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	t.Run("state", func(t *testing.T) {
		t.Parallel()
		cb, err := listenCallback("good")
		if err != nil {
			t.Fatal(err)
		}
		defer cb.Close()
		if !strings.HasPrefix(cb.redirectURI(), "http://127.0.0.1:") {
			t.Errorf("redirect URI %q is not on 127.0.0.1", cb.redirectURI())
		}
		if status, body := get(t, cb.redirectURI()+"?"+url.Values{"state": {"forged"}, "code": {"evil"}}.Encode()); status != http.StatusBadRequest || !strings.Contains(body, "state mismatch") {
			t.Errorf("forged state: %d %s", status, body)
		}
		if status, _ := get(t, cb.redirectURI()+"?"+url.Values{"state": {"good"}, "code": {"c0de"}}.Encode()); status != http.StatusOK {
			t.Errorf("good state: %d", status)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		if code, err := cb.wait(ctx); code != "c0de" || err != nil {
			t.Errorf("wait: %q %v, want the good state's code", code, err)
		}
	})
	t.Run("denied", func(t *testing.T) {
		t.Parallel()
		cb, err := listenCallback("s")
		if err != nil {
			t.Fatal(err)
		}
		defer cb.Close()
		get(t, cb.redirectURI()+"?"+url.Values{"state": {"s"}, "error": {"access_denied"}, "error_description": {"the owner said no"}}.Encode())
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		if _, err := cb.wait(ctx); err == nil || !strings.Contains(err.Error(), "access_denied: the owner said no") {
			t.Errorf("denied: %v", err)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		t.Parallel()
		cb, err := listenCallback("s")
		if err != nil {
			t.Fatal(err)
		}
		defer cb.Close()
		ctx, cancel := context.WithDeadline(t.Context(), time.Unix(0, 0)) // already past: no waiting
		defer cancel()
		if _, err := cb.wait(ctx); err == nil || !strings.Contains(err.Error(), "--timeout") {
			t.Errorf("timeout: %v", err)
		}
	})
}
