package contract

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// Errors a caller (or a test) can branch on; schema mismatches wrap the
// underlying kin-openapi error instead.
var (
	// ErrUnknownRoute means no operation of openapi.yaml matches the method
	// and path: the RS answered a route the contract does not declare.
	ErrUnknownRoute = errors.New("route not declared in openapi.yaml")
	// ErrUndeclaredStatus means the operation does not declare the status
	// (there is no catch-all default, only 5XX).
	ErrUndeclaredStatus = errors.New("status not declared for this operation")
	// ErrMissingRequestID means the response lacks the Request-Id header
	// every RS response carries.
	ErrMissingRequestID = errors.New("response has no Request-Id header")
)

// ExchangeError is the error ValidateExchange returns: it names the
// exchange so a failing test points at the offending call.
type ExchangeError struct {
	Method string
	Path   string
	Status int
	Err    error
}

// Error implements error. kin-openapi nests one "validation failed due to"
// per schema level; they say nothing the JSON pointer does not, so they go.
func (e *ExchangeError) Error() string {
	msg := strings.ReplaceAll(e.Err.Error(), "validation failed due to: ", "")
	return fmt.Sprintf("%s %s -> %d: %s", e.Method, e.Path, e.Status, msg)
}

// Unwrap exposes the cause to errors.Is and errors.As.
func (e *ExchangeError) Unwrap() error { return e.Err }

// Validator checks HTTP exchanges against openapi.yaml. It is safe for
// concurrent use.
type Validator struct {
	doc    *openapi3.T
	router routers.Router
}

// NewValidator returns a Validator for the embedded openapi.yaml.
func NewValidator() (*Validator, error) {
	doc, err := Load()
	if err != nil {
		return nil, err
	}
	return newValidator(doc)
}

func newValidator(doc *openapi3.T) (*Validator, error) {
	// The legacy router, not gorillamux: it needs no extra module and gives
	// path-not-found and method-not-allowed apart.
	router, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("contract: build router: %w", err)
	}
	return &Validator{doc: doc, router: router}, nil
}

// ValidateExchange checks one response to req: the route must be declared,
// status declared for its operation (or covered by 5XX), the Request-Id
// header present, the declared headers valid and body valid against the
// response schema. HEAD responses are checked like GET but without a body.
// The error is an *ExchangeError (nil when the exchange conforms).
func (v *Validator) ValidateExchange(req *http.Request, status int, header http.Header, body []byte) error {
	fail := func(err error) error {
		return &ExchangeError{Method: req.Method, Path: req.URL.RequestURI(), Status: status, Err: err}
	}
	routeReq := routingRequest(req)
	route, pathParams, err := v.router.FindRoute(routeReq)
	if err != nil {
		return fail(fmt.Errorf("%w: %v", ErrUnknownRoute, err))
	}
	if route.Operation.Responses.Status(status) == nil {
		return fail(fmt.Errorf("%w (declared: %s)", ErrUndeclaredStatus, strings.Join(slices.Sorted(maps.Keys(route.Operation.Responses.Map())), ", ")))
	}
	if header.Get("Request-Id") == "" {
		return fail(ErrMissingRequestID)
	}
	opts := &openapi3filter.Options{
		IncludeResponseStatus: true,
		ExcludeResponseBody:   req.Method == http.MethodHead,
	}
	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request:    routeReq,
			PathParams: pathParams,
			Route:      route,
			Options:    opts,
		},
		Status:  status,
		Header:  header,
		Options: opts,
	}
	input.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), input); err != nil {
		return fail(err)
	}
	return nil
}

// routingRequest is the request the router sees. HEAD is routed as GET (the
// RS maps every GET to HEAD), and the path stays percent-encoded so that a
// record id holding an encoded "/" remains one path segment.
func routingRequest(req *http.Request) *http.Request {
	u := *req.URL
	u.Path = req.URL.EscapedPath()
	u.RawPath = ""
	method := req.Method
	if method == http.MethodHead {
		method = http.MethodGet
	}
	return &http.Request{Method: method, URL: &u, Header: req.Header, Host: req.Host}
}
