// gin-api serves the testbed's forum API (contract/brief.md) as REST and GraphQL on Gin,
// graph-gophers/graphql-go and go-sql-driver/mysql: one process, on BIND_ADDRESS and PORT.
package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"forum/internal/config"
	"forum/internal/data"
	"forum/internal/graphqlapi"
	"forum/internal/loaded"
	"forum/internal/problem"
	"forum/internal/reply"
	"forum/internal/rest"

	"github.com/gin-gonic/gin"
)

// The other stacks' HTTP timeouts: Node's headers timeout above the keep-alive timeout, and
// Node's request timeout.
const (
	readHeaderTimeout = 131 * time.Second
	readTimeout       = 300 * time.Second
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "gin-api: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	settings, err := config.FromEnvironment()
	if err != nil {
		return err
	}
	pool, err := data.OpenPool(settings.DB, settings.PoolSize)
	if err != nil {
		return err
	}
	defer pool.Close()
	store := data.New(pool)
	graphqlHandler, err := graphqlapi.NewHandler(store, settings.GraphQLLimits)
	if err != nil {
		return err
	}

	address := net.JoinHostPort(settings.BindAddress, strconv.Itoa(settings.Port))
	listener, err := net.Listen("tcp", address)
	if err != nil {
		return fmt.Errorf("cannot listen on %s port %d: %w", settings.BindAddress, settings.Port, err)
	}
	server := &http.Server{
		Handler:           router(store, graphqlHandler),
		IdleTimeout:       reply.KeepAliveTimeout * time.Second,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
	}
	fmt.Printf("gin-api: listening on http://%s (pid %d)\n", listener.Addr(), os.Getpid())
	line, err := loaded.Line(pool, settings.PoolSize)
	if err != nil {
		return err
	}
	fmt.Println(line)

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	served := make(chan error, 1)
	go func() { served <- server.Serve(listener) }()
	select {
	case err := <-served:
		return err
	case <-stop:
		// As the other stacks stop: open connections are closed, not drained.
		return server.Close()
	}
}

// router is Gin in release mode with its defaults changed only where the contract says so: no
// redirects for a trailing slash or a path in another case, a 405 for another method on a known
// path, and no logger (the testbed logs no requests on any stack).
func router(store *data.Store, graphqlHandler *graphqlapi.Handler) *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	engine := gin.New()
	engine.RedirectTrailingSlash = false
	engine.RedirectFixedPath = false
	engine.HandleMethodNotAllowed = true
	engine.Use(problem.Recovery(), reply.KeepAlive, problem.Middleware)
	rest.Routes(engine, store)
	engine.POST("/graphql", problem.Handler(graphqlHandler.Serve))
	engine.NoRoute(problem.NoRoute)
	engine.NoMethod(problem.NoMethod)
	return engine
}
