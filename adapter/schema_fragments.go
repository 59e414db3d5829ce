package adapter

// JSON Schema fragments shared by several tools. They are spliced into the
// static input schemas so that every tool advertises the same typed shapes
// without repeating prose: the shared guidance is in Instructions.
const (
	// scalarSchema is an exact filter value.
	scalarSchema = `{"type":["string","number","boolean"]}`

	// filterSchema types `filter` as an object of scalars or range objects.
	// There is deliberately no string form: bracket strings are rejected
	// by validation before any RS call.
	filterSchema = `{"type":"object","minProperties":1,` +
		`"propertyNames":{"minLength":1,"pattern":"^[^\\[\\]]+$"},` +
		`"additionalProperties":{"anyOf":[` + scalarSchema + `,` +
		`{"type":"object","minProperties":1,"additionalProperties":false,"properties":{` +
		`"gte":` + scalarSchema + `,"gt":` + scalarSchema + `,"lte":` + scalarSchema + `,"lt":` + scalarSchema + `}}]},` +
		`"description":"Typed filter: {field: value} or {field: {gte|gt|lte|lt: value}}; fields ANDed."}`

	// connectionIDSchema is the optional source scope of every data tool.
	connectionIDSchema = `{"type":"string","minLength":1,"description":"Source scope (from schema or available_connections)."}`

	streamSchema = `{"type":"string","minLength":1}`

	stringArraySchema = `{"type":"array","items":{"type":"string","minLength":1},"maxItems":100}`

	// expandLimitSchema caps has_many expansions per relation.
	expandLimitSchema = `{"type":"object","minProperties":1,"propertyNames":{"pattern":"^[^\\[\\]]+$"},` +
		`"additionalProperties":{"type":"integer","minimum":1,"maximum":1000}}`

	// pageLimitSchema bounds list pages: over 100 is rejected, not clamped.
	pageLimitSchema = `{"type":"integer","minimum":1,"maximum":100,"description":"Page size, default 25."}`

	// errorOutputProps lets error results carry the same structured envelope
	// their text shows, while still conforming to each tool's outputSchema
	// (the official TypeScript client validates structuredContent even when
	// isError is set).
	errorOutputProps = `"error":{"type":"object"},"http_status":{"type":"integer"}`
)
