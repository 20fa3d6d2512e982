package main

import (
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"
)

// relay forwards connections to the database until cut, so that a test can take the database
// away from the app and give it back on the same address without touching the server.
type relay struct {
	address, target string
	mu              sync.Mutex
	listener        net.Listener
	open            []net.Conn
}

func (r *relay) serve(t *testing.T) {
	listener, err := net.Listen("tcp", r.address)
	if err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	r.listener, r.address = listener, listener.Addr().String()
	r.mu.Unlock()
	go func() {
		for {
			client, err := listener.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", r.target)
			if err != nil {
				client.Close()
				continue
			}
			r.mu.Lock()
			r.open = append(r.open, client, server)
			r.mu.Unlock()
			go func() { _, _ = io.Copy(server, client); server.Close() }()
			go func() { _, _ = io.Copy(client, server); client.Close() }()
		}
	}()
}

func (r *relay) cut() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.listener.Close()
	for _, conn := range r.open {
		conn.Close()
	}
	r.open = nil
}

func envOr(name, fallback string) string {
	if value := os.Getenv(name); value != "" {
		return value
	}
	return fallback
}

func waitForStatus(t *testing.T, url string, status int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, body := get(t, http.MethodGet, url)
		if resp.StatusCode == status {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s: still %d %s, expected %d", url, resp.StatusCode, body, status)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func TestTheDatabaseOutOfReachIsA503AndTheAppRecovers(t *testing.T) {
	database := &relay{address: "127.0.0.1:0", target: net.JoinHostPort(envOr("DB_HOST", "127.0.0.1"), envOr("DB_PORT", "3307"))}
	database.serve(t)
	_, port, _ := net.SplitHostPort(database.address)
	served := start(t, "DB_HOST=127.0.0.1", "DB_PORT="+port)
	waitForStatus(t, served.url+"/rest/comment/1", http.StatusOK)

	database.cut()
	resp, body := get(t, http.MethodGet, served.url+"/rest/comment/1")
	const unreachable = `{"type":"about:blank","title":"Service Unavailable","status":503,"detail":"the database is unreachable"}`
	if resp.StatusCode != http.StatusServiceUnavailable || body != unreachable {
		t.Fatalf("with the database away: %d %s", resp.StatusCode, body)
	}
	_, graphqlBody := postGraphQL(t, served.url, `{"query":"{ commentById(id: 1) { id } }"}`)
	if graphqlBody != unreachable {
		t.Fatalf("GraphQL with the database away: %s", graphqlBody)
	}

	database.serve(t)
	defer database.cut()
	waitForStatus(t, served.url+"/healthz", http.StatusOK)
}
