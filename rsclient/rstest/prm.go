package rstest

import "net/http"

// prm renders the protected-resource metadata (§5.4).
func (s *Server) prm(r *http.Request) obj {
	origin := s.origin(r)
	score := obj{{"kind", "bm25"}, {"order", "lower_is_better"}, {"supported", true}, {"value_semantics", "implementation_relative"}}
	caps := obj{{"lexical_retrieval", obj{{"count_supported", false}, {"cross_stream", true}, {"cursor_supported", true},
		{"default_limit", defaultLimit}, {"endpoint", "/v1/search"}, {"max_limit", maxLimit}, {"snippets", true},
		{"supported", true}, {"index_state", "built"}, {"score", score}}}}
	if s.opts.Semantic {
		const model = "pdpp-mockrs-hash-embed-v0"
		caps = append(caps,
			kv{"semantic_retrieval", obj{{"count_supported", false}, {"cross_stream", true}, {"cursor_supported", true},
				{"default_limit", defaultLimit}, {"dimensions", 64}, {"distance_metric", "cosine"},
				{"endpoint", "/v1/search/semantic"}, {"index_state", "built"}, {"lexical_blending", false},
				{"max_limit", maxLimit}, {"model", model}, {"query_input", "text"}, {"snippets", true},
				{"stability", "experimental"}, {"supported", true},
				{"score", obj{{"kind", "semantic_distance"}, {"order", "lower_is_better"}, {"supported", true}, {"value_semantics", "distance"}}}}},
			kv{"hybrid_retrieval", obj{{"count_supported", false}, {"cross_stream", true}, {"cursor_supported", false},
				{"default_limit", defaultLimit}, {"endpoint", "/v1/search/hybrid"}, {"max_limit", maxLimit},
				{"sources", []string{"lexical", "semantic"}}, {"stability", "experimental"}, {"supported", true}}})
	}
	return obj{
		{"authorization_servers", []string{origin}},
		{"bearer_methods_supported", []string{"header"}},
		{"pdpp_core_query_base", origin + "/v1"},
		{"pdpp_provider_connect_version", "draft-2026-04-16"},
		{"pdpp_self_export_supported", true},
		{"pdpp_token_kinds_supported", []string{"owner", "client"}},
		{"resource", origin},
		{"resource_name", "PDPP Mock Resource Server"},
		{"pdpp_discovery_hints", obj{{"aggregate", obj{{"endpoint_template", "/v1/streams/{stream}/aggregate"}}},
			{"changes_since_bootstrap", "beginning"}, {"query_base", "/v1"}, {"schema_endpoint", "/v1/schema"},
			{"streams_endpoint_template", "/v1/streams/{stream}"},
			{"search", obj{{"endpoint", "/v1/search"}, {"filter_requires_single_stream", true}, {"scope_param", "streams[]"}}},
			{"hybrid_pagination_supported", false}}},
		{"capabilities", caps},
	}
}
