package rstest

// routeKind names one mounted RS route.
type routeKind int

const (
	routePRM routeKind = iota + 1
	routeSchema
	routeStreams
	routeStream
	routeRecords
	routeRecord
	routeFieldWindow
	routeAggregate
	routeSearch
)

// Search modes, as the path suffix names them.
const (
	modeLexical  = "lexical"
	modeSemantic = "semantic"
	modeHybrid   = "hybrid"
)

// route is a matched route with its decoded path parameters.
type route struct {
	kind   routeKind
	stream string
	id     string
	mode   string
}

// matchRoute maps decoded path segments to a route; nil means Fastify 404.
func matchRoute(segs []string, semantic bool) *route {
	n := len(segs)
	if n == 2 && segs[0] == ".well-known" && segs[1] == "oauth-protected-resource" {
		return &route{kind: routePRM}
	}
	if n < 2 || segs[0] != "v1" {
		return nil
	}
	switch segs[1] {
	case "schema":
		if n == 2 {
			return &route{kind: routeSchema}
		}
	case "search":
		switch {
		case n == 2:
			return &route{kind: routeSearch, mode: modeLexical}
		case n == 3 && semantic && (segs[2] == modeSemantic || segs[2] == modeHybrid):
			return &route{kind: routeSearch, mode: segs[2]}
		}
	case "streams":
		return matchStreamRoute(segs[2:])
	}
	return nil
}

// matchStreamRoute matches the segments after /v1/streams.
func matchStreamRoute(rest []string) *route {
	switch {
	case len(rest) == 0:
		return &route{kind: routeStreams}
	case rest[0] == "":
		return nil
	case len(rest) == 1:
		return &route{kind: routeStream, stream: rest[0]}
	case len(rest) == 2 && rest[1] == "records":
		return &route{kind: routeRecords, stream: rest[0]}
	case len(rest) == 2 && rest[1] == "aggregate":
		return &route{kind: routeAggregate, stream: rest[0]}
	case len(rest) == 3 && rest[1] == "records" && rest[2] != "":
		return &route{kind: routeRecord, stream: rest[0], id: rest[2]}
	case len(rest) == 4 && rest[1] == "records" && rest[2] != "" && rest[3] == "field-window":
		return &route{kind: routeFieldWindow, stream: rest[0], id: rest[2]}
	}
	return nil
}
