package contract

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// sharedValidator avoids rebuilding the router in every parallel subtest.
var sharedValidator = sync.OnceValues(NewValidator)

func validator(t *testing.T) *Validator {
	t.Helper()
	v, err := sharedValidator()
	if err != nil {
		t.Fatalf("NewValidator: %v", err)
	}
	return v
}

// readCapture parses testdata/captures/<headers> (status line + MIME
// header block, as captured from the reference RS) and the body file.
func readCapture(t *testing.T, headersFile, bodyFile string) (int, http.Header, []byte) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "captures", headersFile))
	if err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile(filepath.Join("testdata", "captures", bodyFile))
	if err != nil {
		t.Fatal(err)
	}
	tp := textproto.NewReader(bufio.NewReader(bytes.NewReader(raw)))
	statusLine, err := tp.ReadLine()
	if err != nil {
		t.Fatalf("%s: status line: %v", headersFile, err)
	}
	fields := strings.Fields(statusLine)
	if len(fields) < 2 {
		t.Fatalf("%s: bad status line %q", headersFile, statusLine)
	}
	status, err := strconv.Atoi(fields[1])
	if err != nil {
		t.Fatalf("%s: bad status line %q", headersFile, statusLine)
	}
	mime, err := tp.ReadMIMEHeader()
	if err != nil {
		t.Fatalf("%s: headers: %v", headersFile, err)
	}
	return status, http.Header(mime), body
}

// rsHeaders are the headers every reference RS JSON response carries.
func rsHeaders() http.Header {
	return http.Header{
		"Content-Type": {"application/json; charset=utf-8"},
		"Request-Id":   {"req_0123456789abcdef"},
		"Pdpp-Version": {"2026-04-06"},
	}
}

// selfLink returns links.self of a JSON body, or "" without one.
func selfLink(t *testing.T, body []byte) string {
	t.Helper()
	var doc struct {
		Links struct {
			Self string `json:"self"`
		} `json:"links"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatalf("body is not JSON: %v", err)
	}
	return doc.Links.Self
}

func get(target string) *http.Request {
	return httptest.NewRequest(http.MethodGet, target, nil)
}
