// {{NAME}}-api serves the testbed's forum API (contract/brief.md) as REST and GraphQL on Gin and
// go-sql-driver/mysql: one process, on BIND_ADDRESS and PORT. /healthz works; every other route
// answers 501 until it is written (README.md lists what is still to do).
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
)

// Every stack's HTTP timeouts: Kestrel's keep-alive (on a saturated machine a load thread can wait
// longer than a short timeout for the CPU between two requests), Node's headers timeout just above
// it, and Node's request timeout.
const (
	keepAliveSeconds  = 130
	readHeaderTimeout = 131 * time.Second
	readTimeout       = 300 * time.Second
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "{{NAME}}-api: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	settings, err := settingsFrom(os.Getenv)
	if err != nil {
		return err
	}
	pool, err := openPool(settings.database)
	if err != nil {
		return err
	}
	defer pool.Close()

	address := net.JoinHostPort(settings.bindAddress, strconv.Itoa(settings.port))
	listener, err := net.Listen("tcp", address)
	if err != nil {
		return fmt.Errorf("cannot listen on %s port %d: %w", settings.bindAddress, settings.port, err)
	}
	server := &http.Server{
		Handler:           router(pool),
		IdleTimeout:       keepAliveSeconds * time.Second,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
	}
	// The address as bound, so that PORT=0 (the tests) can learn which port the system picked.
	fmt.Printf("{{NAME}}-api: listening on http://%s (pid %d)\n", listener.Addr(), os.Getpid())
	line, err := loadedLine()
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
