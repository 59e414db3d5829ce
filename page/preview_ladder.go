package page

// A record page parses each payload once (parsePreview) and renders all
// its views from that parse: the fitted preview (the text line and
// structuredContent's record alike) and the content ladder. Re-reading the bytes for each
// view (a validity scan and a full decode of every long body per view)
// was most of query_records' cost.

// ladderFieldsOf is what LadderFromFields needs of an object
// payload's members, taken from the parse: strings are already counted and
// checked for base64, so only nested values are classified from their
// bytes. ok is false when there is no parse, the payload is not an object
// or it repeats a member name (the ladder resolves repeats itself: BuildLadder).
func (p *preview) ladderFieldsOf() ([]FieldInfo, bool) {
	if p == nil || p.kind != 'o' || repeatsKey(p.keys) {
		return nil, false
	}
	out := make([]FieldInfo, len(p.kids))
	for i, k := range p.kids {
		out[i] = k.fieldInfo(p.keys[i])
	}
	return out, true
}

// fieldInfo is Classify of the member named key whose value
// p is, from the parse.
func (p *preview) fieldInfo(key string) FieldInfo {
	switch {
	case p.kind == 's':
		return FieldInfo{Path: key, Type: "string", Class: ClassText, SizeChars: p.runes}
	case p.bin != nil:
		return FieldInfo{Path: key, Type: "string", Class: ClassBinary, SizeChars: p.runes,
			MIMEType: p.bin.mime, SizeBytes: p.bin.bytes}
	case p.kind == 'a':
		return FieldInfo{Path: key, Type: "array", Class: ClassJSON, SizeChars: CompactRunes(p.raw)}
	case p.kind == 'o' && !MayBeBlobRef(p.keys):
		return FieldInfo{Path: key, Type: "object", Class: ClassJSON, SizeChars: CompactRunes(p.raw)}
	case p.kind == 'o': // a possible blob reference: the exact rule
		return Classify(key, p.raw)
	case p.lit == "null":
		return FieldInfo{Path: key, Type: "null", Class: ClassNull}
	case p.lit == "true" || p.lit == "false":
		return FieldInfo{Path: key, Type: "boolean", Class: ClassScalar, SizeChars: len(p.lit)}
	}
	return FieldInfo{Path: key, Type: "number", Class: ClassScalar, SizeChars: len(p.lit)}
}

// repeatsKey reports whether a member name occurs twice.
func repeatsKey(keys []string) bool {
	if len(keys) <= 16 {
		for i := range keys {
			for j := i + 1; j < len(keys); j++ {
				if keys[i] == keys[j] {
					return true
				}
			}
		}
		return false
	}
	seen := make(map[string]struct{}, len(keys))
	for _, k := range keys {
		if _, dup := seen[k]; dup {
			return true
		}
		seen[k] = struct{}{}
	}
	return false
}
