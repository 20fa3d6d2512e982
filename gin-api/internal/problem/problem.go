// Package problem holds the RFC 9457 problem bodies, the only error shape the REST API (and
// GraphQL's 405/413/503/500) sends, and the one error middleware that sends them.
package problem

import (
	"errors"
	"log"
	"net/http"

	"forum/internal/data"
	"forum/internal/jsonbytes"
	"forum/internal/reply"

	"github.com/gin-gonic/gin"
)

// The contract's details for the errors every endpoint shares.
const (
	UnreachableDetail = "the database is unreachable"
	NoSuchEndpoint    = "no such endpoint"
	MethodNotAllowed  = "method not allowed"
	internalDetail    = "internal error"
)

const contentType = "application/problem+json; charset=utf-8"

var titles = map[int]string{
	http.StatusBadRequest:            "Bad Request",
	http.StatusNotFound:              "Not Found",
	http.StatusMethodNotAllowed:      "Method Not Allowed",
	http.StatusRequestEntityTooLarge: "Payload Too Large",
	http.StatusInternalServerError:   "Internal Server Error",
	http.StatusServiceUnavailable:    "Service Unavailable",
}

// Problem is an error a handler returns to be answered with that status and detail.
type Problem struct {
	Status int
	Detail string
}

func (p *Problem) Error() string {
	return p.Detail
}

// BadRequest is a client's mistake.
func BadRequest(detail string) *Problem {
	return &Problem{Status: http.StatusBadRequest, Detail: detail}
}

// NotFound is a resource that does not exist.
func NotFound(detail string) *Problem {
	return &Problem{Status: http.StatusNotFound, Detail: detail}
}

// TooLarge is a request body over the limit.
func TooLarge() *Problem {
	return &Problem{Status: http.StatusRequestEntityTooLarge, Detail: "request entity too large"}
}

// Unreachable is the database out of reach.
func Unreachable() *Problem {
	return &Problem{Status: http.StatusServiceUnavailable, Detail: UnreachableDetail}
}

// Internal is a bug, logged where it is made, never shown.
func Internal(cause any) *Problem {
	log.Printf("gin-api: internal error: %v", cause)
	return &Problem{Status: http.StatusInternalServerError, Detail: internalDetail}
}

// For is what err calls for: a Problem as it is, the database out of reach as a 503, anything
// else, a bug, as a 500.
func For(err error) *Problem {
	var p *Problem
	switch {
	case errors.As(err, &p):
		return p
	case data.IsUnreachable(err):
		return Unreachable()
	default:
		return Internal(err)
	}
}

type body struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
}

// Send answers with p's problem body.
func Send(c *gin.Context, p *Problem) {
	encoded, err := jsonbytes.Marshal(body{Type: "about:blank", Title: titles[p.Status], Status: p.Status, Detail: p.Detail})
	if err != nil {
		panic(err)
	}
	reply.Send(c, p.Status, contentType, encoded)
}

// Handler adapts a handler that returns its error to Gin; the error goes to Middleware.
func Handler(handle func(*gin.Context) error) gin.HandlerFunc {
	return func(c *gin.Context) {
		if err := handle(c); err != nil {
			_ = c.Error(err)
		}
	}
}

// Middleware is the one error handler: the last error a handler returned becomes its problem.
func Middleware(c *gin.Context) {
	c.Next()
	if last := c.Errors.Last(); last != nil && !c.Writer.Written() {
		Send(c, For(last.Err))
	}
}

// Recovery answers a panic as a 500 problem, never a stack trace.
func Recovery() gin.HandlerFunc {
	return gin.CustomRecoveryWithWriter(nil, func(c *gin.Context, recovered any) {
		Send(c, Internal(recovered))
	})
}

// NoRoute answers any path the API lacks.
func NoRoute(c *gin.Context) {
	Send(c, NotFound(NoSuchEndpoint))
}

// NoMethod answers another method on a known path, naming the one it takes.
func NoMethod(c *gin.Context) {
	allow := http.MethodGet
	if c.Request.URL.Path == "/graphql" {
		allow = http.MethodPost
	}
	c.Header("Allow", allow)
	Send(c, &Problem{Status: http.StatusMethodNotAllowed, Detail: MethodNotAllowed})
}
