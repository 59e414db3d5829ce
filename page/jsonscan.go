package page

import "bytes"

// Token boundaries in JSON that json.Valid has accepted. The preview and
// ladder paths run on every record of every page; walking the bytes of an
// already validated value needs no syntax errors and no allocation, where
// a json.Decoder token stream allocated per token.

// skipSpace returns the index of the first non-whitespace byte at or
// after i.
func skipSpace(in []byte, i int) int {
	for i < len(in) {
		switch in[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// SkipJSONString returns the index just past the string literal that opens
// at in[i] ('"') in JSON that json.Valid accepted, and whether the literal
// holds an escape. It jumps from quote to quote (bytes.IndexByte is
// vectorised) instead of testing every byte: record bodies are most of
// every page's bytes.
func SkipJSONString(in []byte, i int) (end int, escaped bool) {
	j := i + 1
	for {
		q := j + bytes.IndexByte(in[j:], '"')
		run := 0 // backslashes right before the quote
		for p := q - 1; p > i && in[p] == '\\'; p-- {
			run++
		}
		if run%2 == 0 {
			return q + 1, escaped || bytes.IndexByte(in[i+1:q], '\\') >= 0
		}
		escaped, j = true, q+1
	}
}

// skipValue returns the index just past the value that starts at in[i]
// (no leading whitespace).
func skipValue(in []byte, i int) int {
	switch in[i] {
	case '"':
		end, _ := SkipJSONString(in, i)
		return end
	case '{', '[':
		depth := 0
		for j := i; ; {
			switch in[j] {
			case '"':
				j, _ = SkipJSONString(in, j)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
			j++
		}
	}
	for i < len(in) && !endsLiteral(in[i]) {
		i++
	}
	return i
}

func endsLiteral(c byte) bool {
	switch c {
	case ',', '}', ']', ':', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}
