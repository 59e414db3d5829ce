package main

import (
	"net"
	"net/http"
	"strings"
	"testing"
)

// TestDemoListenerFallback: for both demo listeners a taken default port
// falls back to a free one with a note naming the address used and the
// flag; a taken port the user chose is an error naming the flag and the
// `make demo ARGS=…` form.
func TestDemoListenerFallback(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = busy.Close() }) // after the parallel subtests
	h := http.NotFoundHandler()
	starters := []struct {
		name  string
		start func(string, bool, http.Handler) (*startedServer, string, error)
		flag  string
	}{
		{"adapter", startDemoAdapter, "--addr"},
		{"mock RS", startDemoRS, "--rs-addr"},
	}
	cases := []struct {
		name     string
		addr     string
		chosen   bool
		wantErr  bool
		wantNote bool
	}{
		{name: "default taken", addr: busy.Addr().String(), wantNote: true},
		{name: "chosen taken", addr: busy.Addr().String(), chosen: true, wantErr: true},
		{name: "free", addr: "127.0.0.1:0"},
	}
	for _, st := range starters {
		for _, tc := range cases {
			t.Run(st.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				srv, note, err := st.start(tc.addr, tc.chosen, h)
				if (err != nil) != tc.wantErr {
					t.Fatalf("err = %v, want error %v", err, tc.wantErr)
				}
				if err != nil {
					for _, w := range []string{st.flag + " 127.0.0.1:0", "make demo ARGS='" + st.flag} {
						if !strings.Contains(err.Error(), w) {
							t.Errorf("error %q does not say %q", err, w)
						}
					}
					return
				}
				defer func() { _ = srv.srv.Close() }()
				if (note != "") != tc.wantNote {
					t.Errorf("note = %q, want one: %v", note, tc.wantNote)
				}
				if srv.URL == "http://"+busy.Addr().String() {
					t.Errorf("bound the taken address %s", srv.URL)
				}
				if !tc.wantNote {
					return
				}
				for _, w := range []string{srv.URL, st.name + ": ", st.flag, "make demo ARGS="} {
					if !strings.Contains(note, w) {
						t.Errorf("note %q does not say %q", note, w)
					}
				}
			})
		}
	}
}

// TestDemoAddrChosen: only an adapter address the user named (flag or
// PDPP_MCP_ADDR) must bind; the default may fall back.
func TestDemoAddrChosen(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		args []string
		env  map[string]string
		want bool
	}{
		{"default", nil, nil, false},
		{"flag", []string{"--addr", "127.0.0.1:7999"}, nil, true},
		{"variable", nil, map[string]string{"PDPP_MCP_ADDR": "127.0.0.1:7999"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out, errOut strings.Builder
			d, code, ok := parseDemoFlags(tc.args, func(k string) string { return tc.env[k] }, &out, &errOut)
			if !ok {
				t.Fatalf("parseDemoFlags: exit %d: %s", code, errOut.String())
			}
			if d.addrChosen != tc.want {
				t.Errorf("addrChosen = %v, want %v", d.addrChosen, tc.want)
			}
		})
	}
}
