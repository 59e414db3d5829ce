package adapter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/pdpp/pdpp-mcp/page"
)

// errorResult renders an error as an isError tool result. The text is the
// compact JSON of {error, http_status?}; structuredContent is the same
// object, which conforms to every tool's outputSchema (each declares the
// optional `error` and `http_status` properties), so official SDK clients
// that validate structuredContent on errors accept it.
func errorResult(e *toolError) *mcp.CallToolResult {
	body := e.body()
	return &mcp.CallToolResult{
		Content:           []mcp.Content{mcp.NewTextContent(string(body))},
		StructuredContent: errorContent{err: e, body: body},
		IsError:           true,
	}
}

// errorContent is an error result's structured content: it marshals to the
// rendered body, and keeps the typed error so logs and metrics read its code
// instead of parsing the JSON back.
type errorContent struct {
	err  *toolError
	body json.RawMessage
}

// MarshalJSON writes the body exactly as rendered into the text content.
func (c errorContent) MarshalJSON() ([]byte, error) { return c.body, nil }

// resultError is the typed error of an error result; nil for a success or a
// result not built by errorResult.
func resultError(res *mcp.CallToolResult) *toolError {
	if c, ok := res.StructuredContent.(errorContent); ok && res.IsError {
		return c.err
	}
	return nil
}

// toolOutput is a success's structuredContent built in this package (the
// schema pages; the other tools' pages are rendered by package page, and
// pageResult carries them), whose json tags fix the member order the
// tool's outputSchema and goldens pin. It is the same page as the tool's
// text, for a model reading JSON: hosts such as Claude Code and Codex hand
// the model structuredContent in place of the text. Only members
// whose keys come from runtime data (an RS body, a record payload) stay
// ordered raw JSON.
type toolOutput interface{ toolOutput() }

// textResult is a success: model-visible text plus the typed structured
// result, marshalled once without HTML escaping (snippets carry <mark>).
func textResult(text string, structured toolOutput) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content:           []mcp.Content{mcp.NewTextContent(text)},
		StructuredContent: json.RawMessage(page.MarshalNoEscape(structured)),
	}
}

// decodeArgs decodes validated arguments strictly into dst. Unknown keys
// were already rejected by the input schema; rejecting them again here
// keeps handlers safe if validation is ever bypassed.
//
// Integers arrive in plain digits (givenArguments); a value Go still
// cannot take (a whole number beyond int64) is reported by argument
// name, never by Go type names.
func decodeArgs(raw json.RawMessage, dst any) *toolError {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	err := dec.Decode(dst)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		want := jsonKind(te.Type)
		msg := fmt.Sprintf("%s: got %s, want %s", te.Field, strings.Replace(te.Value, "bool", "boolean", 1), want)
		if want == "integer" && strings.HasPrefix(te.Value, "number") {
			msg = fmt.Sprintf("%s: %s is out of range", te.Field, strings.TrimPrefix(te.Value, "number "))
		}
		return newAdapterError("invalid_arguments", "input validation failed: "+msg, field{"param", strings.SplitN(te.Field, ".", 2)[0]})
	}
	return newAdapterError("invalid_arguments", "arguments must be one JSON object matching the tool's input schema")
}

// jsonKind names a Go type by the JSON value it takes.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice, reflect.Array:
		return "array"
	}
	return "object"
}
