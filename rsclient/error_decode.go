package rsclient

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Bounds on what decodeError copies out of an error body. The body itself
// is already capped by MaxBodyBytes; these keep error values small enough to
// log and to forward inside an MCP tool result.
const (
	maxErrorText     = 512      // characters of a normalised message for non-envelope bodies
	maxEnvelopeBytes = 64 << 10 // larger envelopes are normalised instead
)

// decodeError turns a non-2xx answer into *Error. It never fails: every
// body, however malformed, yields an Error whose Envelope is a JSON object.
func decodeError(status int, header http.Header, body []byte) *Error {
	e := &Error{Status: status, RequestID: header.Get("Request-Id")}
	trimmed := bytes.TrimSpace(body)
	if !json.Valid(trimmed) {
		e.Form = FormNonJSON
		e.normalise(status, boundText(string(trimmed)), "")
		return e
	}
	var top map[string]json.RawMessage
	if trimmed[0] != '{' || json.Unmarshal(trimmed, &top) != nil {
		e.Form = FormOtherJSON // an array, string, number…: nothing to quote
		e.normalise(status, "", "")
		return e
	}
	rawErr := bytes.TrimSpace(top["error"])
	switch {
	case len(rawErr) > 0 && rawErr[0] == '{' && len(rawErr) <= maxEnvelopeBytes:
		e.fromEnvelope(rawErr)
	case len(rawErr) > 0 && rawErr[0] == '"' && top["statusCode"] == nil:
		// Fastify's default bodies also carry a string "error" (the status
		// text) but always with statusCode; those are other_json.
		e.Form = FormOAuth
		code := jsonString(rawErr)
		msg := jsonString(top["error_description"])
		if msg == "" {
			msg = code
		}
		e.Type, e.Code = boundText(code), boundText(code)
		e.setEnvelope(e.Type, e.Code, boundText(msg), jsonString(top["request_id"]))
	default:
		// Fastify's {"message","error":"Not Found","statusCode"} lands here,
		// as does any envelope too large to forward.
		e.Form = FormOtherJSON
		e.normalise(status, boundText(jsonString(top["message"])), jsonString(top["request_id"]))
	}
	return e
}

// fromEnvelope reads the PDPP {"error":{...}} object, kept verbatim.
func (e *Error) fromEnvelope(raw []byte) {
	e.Form = FormEnvelope
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(raw, &fields) // raw is a valid object: checked by the caller's Unmarshal
	e.Type = jsonString(fields["type"])
	e.Code = jsonString(fields["code"])
	e.Message = jsonString(fields["message"])
	e.Param = jsonString(fields["param"])
	e.RetryWith = nonNull(fields["retry_with"])
	e.AvailableConnections = nonNull(fields["available_connections"])
	bodyID := jsonString(fields["request_id"])
	var buf bytes.Buffer
	_ = json.Compact(&buf, raw)
	env := buf.Bytes()
	if _, has := fields["request_id"]; !has && e.RequestID != "" {
		env = appendMember(env, "request_id", e.RequestID)
	}
	if e.RequestID == "" {
		e.RequestID = bodyID
	}
	e.Envelope = env
}

// normalise fills the rs_error shape used for bodies without an envelope.
func (e *Error) normalise(status int, text, bodyID string) {
	if text == "" {
		text = "Resource server returned HTTP " + strconv.Itoa(status)
	}
	e.Type, e.Code = "rs_error", "http_"+strconv.Itoa(status)
	e.setEnvelope(e.Type, e.Code, text, bodyID)
}

func (e *Error) setEnvelope(typ, code, msg, bodyID string) {
	e.Message = msg
	if e.RequestID == "" {
		e.RequestID = boundText(bodyID)
	}
	env := struct {
		Type      string `json:"type"`
		Code      string `json:"code"`
		Message   string `json:"message"`
		RequestID string `json:"request_id,omitempty"`
	}{typ, code, msg, e.RequestID}
	e.Envelope, _ = json.Marshal(env) // strings only: cannot fail
}

// appendMember adds "key":"value" before the closing brace of a compact
// JSON object, keeping every existing member and its order.
func appendMember(obj []byte, key, value string) json.RawMessage {
	k, _ := json.Marshal(key)
	v, _ := json.Marshal(value)
	out := make([]byte, 0, len(obj)+len(k)+len(v)+2)
	out = append(out, obj[:len(obj)-1]...)
	if len(obj) > 2 { // not "{}"
		out = append(out, ',')
	}
	out = append(out, k...)
	out = append(out, ':')
	out = append(out, v...)
	return append(out, '}')
}

// jsonString returns raw's value if it is a JSON string, else "".
func jsonString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func nonNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return append(json.RawMessage(nil), raw...)
}

// boundText makes s valid UTF-8, trimmed, and at most maxErrorText
// characters (runes) long.
func boundText(s string) string {
	s = strings.TrimSpace(strings.ToValidUTF8(s, "\uFFFD"))
	if utf8.RuneCountInString(s) <= maxErrorText {
		return s
	}
	n := 0
	for i := range s {
		if n == maxErrorText {
			return s[:i]
		}
		n++
	}
	return s
}
