package adapter

import (
	"bytes"
	"encoding/json"
	"io"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
