// Package graphqlapi serves POST /graphql: the contract's transport checks, the three limits and
// then graph-gophers/graphql-go over the contract's SDL, with one user batch per request.
package graphqlapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"

	"forum/internal/config"
	"forum/internal/data"
	"forum/internal/jsonbytes"
	"forum/internal/problem"
	"forum/internal/reply"

	"github.com/gin-gonic/gin"
	graphql "github.com/graph-gophers/graphql-go"
	gqlerrors "github.com/graph-gophers/graphql-go/errors"
)

// SchemaPath is the contract's SDL, beside this folder (the app starts in gin-api/).
const SchemaPath = "../contract/schema.graphql"

// errPanic marks a resolver's panic, a bug: a 500, not graphql-go's own "panic occurred" text.
var errPanic = errors.New("resolver panicked")

type panicToBug struct{}

func (panicToBug) MakePanicError(_ context.Context, value any) *gqlerrors.QueryError {
	problem.Internal(value)
	return &gqlerrors.QueryError{Message: "internal error", ResolverError: errPanic}
}

// Handler serves the endpoint.
type Handler struct {
	schema *graphql.Schema
	store  *data.Store
	limits config.Limits
}

// NewHandler builds the schema once, at start-up. Every root field of an admitted query may wait
// for the request's user batch at once, and graphql-go lets only MaxParallelism resolvers run at
// a time; so it is the field limit, above which no query is admitted.
func NewHandler(store *data.Store, limits config.Limits) (*Handler, error) {
	sdl, err := os.ReadFile(SchemaPath)
	if err != nil {
		return nil, err
	}
	schema, err := graphql.ParseSchema(string(sdl), &query{store: store},
		graphql.UseFieldResolvers(),
		graphql.MaxParallelism(limits.MaxFields),
		graphql.PanicHandler(panicToBug{}))
	if err != nil {
		return nil, err
	}
	return &Handler{schema: schema, store: store, limits: limits}, nil
}

// errorObject is the contract's error shape: message, then locations and path where they apply,
// never extensions.
type errorObject struct {
	Message   string               `json:"message"`
	Locations []gqlerrors.Location `json:"locations,omitempty"`
	Path      []any                `json:"path,omitempty"`
}

type body struct {
	Errors []errorObject    `json:"errors,omitempty"`
	Data   *json.RawMessage `json:"data,omitempty"`
}

func send(c *gin.Context, status int, mediaType string, answer body) error {
	encoded, err := jsonbytes.Marshal(answer)
	if err != nil {
		return err
	}
	reply.Send(c, status, mediaType+"; charset=utf-8", encoded)
	return nil
}

func message(text string) body {
	return body{Errors: []errorObject{{Message: text}}}
}

// Serve is POST /graphql, for problem.Handler.
func (h *Handler) Serve(c *gin.Context) error {
	mediaType := responseMediaType(c.GetHeader("Accept"))
	if mediaType == "" {
		return send(c, http.StatusNotAcceptable, jsonType, message(notAcceptable))
	}
	contentType, hasContentType := c.Request.Header["Content-Type"]
	if !isJSONContentType(firstOf(contentType), hasContentType) {
		return send(c, http.StatusUnsupportedMediaType, mediaType, message(unsupportedType))
	}
	raw, err := readBody(c.Request.Body, c.Request.ContentLength)
	if err != nil {
		return err
	}
	req, refused := checkBody(raw)
	if refused != nil {
		return send(c, refused.status, mediaType, message(refused.message))
	}
	return h.execute(c, mediaType, req)
}

func firstOf(values []string) string {
	if len(values) == 0 {
		return ""
	}
	return values[0]
}

// withoutData is an answer that never began executing: 200 as application/json, 400 as
// application/graphql-response+json.
func withoutData(c *gin.Context, mediaType string, errs []errorObject) error {
	status := http.StatusOK
	if mediaType == graphqlResponseType {
		status = http.StatusBadRequest
	}
	return send(c, status, mediaType, body{Errors: errs})
}

func (h *Handler) execute(c *gin.Context, mediaType string, req *request) error {
	ctx := context.Context(c)
	found := analyse(req.query, req.operationName, req.variables, h.limits)
	if len(found.violations) > 0 {
		// graphql-go's own validation errors come first, as the specified rules run first.
		errs := convert(h.schema.ValidateWithVariables(req.query, req.variables), found)
		for _, violation := range found.violations {
			errs = append(errs, errorObject{Message: violation.message,
				Locations: []gqlerrors.Location{{Line: violation.at.Line, Column: violation.at.Column}}})
		}
		return withoutData(c, mediaType, errs)
	}
	if found.batchUsers && !found.uncoercible {
		ctx = withUserBatch(ctx, newUserBatch(h.store, len(found.rootFields)))
	}
	response := h.schema.Exec(ctx, req.query, req.operationName, req.variables)
	if failure := failureOf(response.Errors); failure != nil {
		return failure
	}
	errs := convert(response.Errors, found)
	if response.Data == nil || coercionFailed(response.Errors) {
		return withoutData(c, mediaType, errs)
	}
	data := json.RawMessage(response.Data)
	return send(c, http.StatusOK, mediaType, body{Errors: errs, Data: &data})
}

// failureOf is the error a resolver's failure calls for, or nil: the database out of reach (a
// 503) or a bug (a 500), never the client's.
func failureOf(errs []*gqlerrors.QueryError) error {
	for _, err := range errs {
		if err.ResolverError != nil && !isArgumentError(err.ResolverError) {
			return err.ResolverError
		}
	}
	return nil
}

// coercionFailed: graphql-go 1.5 coerces argument values, variables included, only as it selects
// the fields to run, after validation, and reports a value it cannot coerce as an error without
// a path beside `data: {}`. The spec counts it as a request error: no data.
func coercionFailed(errs []*gqlerrors.QueryError) bool {
	for _, err := range errs {
		if len(err.Path) == 0 && err.ResolverError == nil {
			return true
		}
	}
	return false
}

// convert gives resolver errors the location of their root field, which graphql-go 1.5 leaves
// out (the GraphQL spec asks for it).
func convert(errs []*gqlerrors.QueryError, found analysis) []errorObject {
	objects := make([]errorObject, 0, len(errs))
	for _, err := range errs {
		object := errorObject{Message: err.Message, Locations: err.Locations, Path: err.Path}
		if len(object.Locations) == 0 && len(err.Path) == 1 {
			if key, ok := err.Path[0].(string); ok {
				if at, known := found.rootFields[key]; known {
					object.Locations = []gqlerrors.Location{{Line: at.Line, Column: at.Column}}
				}
			}
		}
		objects = append(objects, object)
	}
	return objects
}
