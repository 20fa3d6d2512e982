package main

import (
	"database/sql"
	"log"
	"net/http"

	"github.com/gin-gonic/gin"
)

// router is Gin in release mode with its defaults changed where the contract says so: no redirect
// for a trailing slash or a path in another case (both are the 404 problem) and no logger (no
// stack logs requests). A panic is a 500 problem, logged, never a stack trace to the client.
func router(pool *sql.DB) *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	engine := gin.New()
	engine.RedirectTrailingSlash = false
	engine.RedirectFixedPath = false
	engine.Use(gin.CustomRecoveryWithWriter(nil, internalError), keepAlive)
	getOrHead(engine, "/healthz", health(pool))
	routesStillToWrite(engine)
	engine.NoRoute(noSuchEndpoint)
	return engine
}

// getOrHead serves path for GET and for HEAD, which answers what GET would without the body.
func getOrHead(engine *gin.Engine, path string, handle gin.HandlerFunc) {
	engine.GET(path, handle)
	engine.HEAD(path, handle)
}

// health is readiness: SELECT 1, a query like every statement the API sends (not COM_PING), else
// the 503 problem. It runs on gin.Context, whose Done is nil, so a client that leaves cancels no
// statement, as on the other stacks.
func health(pool *sql.DB) gin.HandlerFunc {
	return func(c *gin.Context) {
		var one int
		if err := pool.QueryRowContext(c, "SELECT 1").Scan(&one); err != nil {
			sendProblem(c, http.StatusServiceUnavailable, "the database is unreachable")
			return
		}
		send(c, http.StatusOK, jsonType, []byte(`{"status":"ok"}`))
	}
}

// TODO: the contract's answers (contract/openapi.yaml, contract/README.md; the SQL in
// docs/adding-a-framework.md): the id and limit rules, one parameterized statement per REST
// request, the 400/404 problems, a 405 problem with Allow for another method on a known path
// (engine.HandleMethodNotAllowed, engine.NoMethod); POST /graphql over contract/schema.graphql
// with its transport checks, limits and one user batch per request. ../gin-api/ does all of it.
func routesStillToWrite(engine *gin.Engine) {
	for path, route := range map[string]string{
		"/rest/comment/:id":              "GET /rest/comment/{id}",
		"/rest/comments/:limit":          "GET /rest/comments/{limit}",
		"/rest/user/:id/comment":         "GET /rest/user/{id}/comment",
		"/rest/user/:id/comments/:limit": "GET /rest/user/{id}/comments/{limit}",
	} {
		getOrHead(engine, path, notImplemented(route))
	}
	engine.POST("/graphql", notImplemented("POST /graphql"))
}

// notImplemented is what a route of the skeleton answers until it is written: ./testbed verify
// lists each one.
func notImplemented(route string) gin.HandlerFunc {
	return func(c *gin.Context) {
		sendProblem(c, http.StatusNotImplemented, "not implemented yet: "+route)
	}
}

func noSuchEndpoint(c *gin.Context) {
	sendProblem(c, http.StatusNotFound, "no such endpoint")
}

func internalError(c *gin.Context, recovered any) {
	log.Printf("{{NAME}}-api: internal error: %v", recovered)
	sendProblem(c, http.StatusInternalServerError, "internal error")
}
