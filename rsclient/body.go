package rsclient

import "io"

// readBody reads r whole, at most maxBody bytes; contentLength is the
// announced size, -1 if unknown. A larger body is CodeResponseTooLarge and
// is not returned at all (no partial decode).
func readBody(r io.Reader, contentLength, maxBody int64) ([]byte, error) {
	if contentLength > maxBody {
		return nil, tooLarge()
	}
	size := int64(32 << 10)
	if contentLength >= 0 {
		size = contentLength + 1 // +1 sees EOF without growing
	}
	buf := make([]byte, 0, min(size, maxBody+1))
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > maxBody {
				return nil, tooLarge()
			}
			next := make([]byte, len(buf), min(2*int64(cap(buf)), maxBody+1))
			copy(next, buf)
			buf = next
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if int64(len(buf)) > maxBody {
		return nil, tooLarge()
	}
	return buf, nil
}

func tooLarge() error {
	return &TransportError{Code: CodeResponseTooLarge, Message: "response body exceeds the configured limit"}
}
