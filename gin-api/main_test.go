package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// These tests run the built binary (bin/gin-api, from build.sh) against the database the DB_*
// variables name (./testbed test gives the read-only account of the seeded data set).

var listening = regexp.MustCompile(`listening on (http://\S+)`)

type app struct {
	url    string
	loaded map[string]any
}

// start runs the binary with env added, on a port the system picks, until the test ends.
func start(t *testing.T, env ...string) app {
	t.Helper()
	cmd := exec.Command("bin/gin-api")
	cmd.Env = append(append(os.Environ(), "PORT=0"), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("bin/gin-api (run ./build.sh first): %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	lines := bufio.NewScanner(stdout)
	var started app
	for started.loaded == nil && lines.Scan() {
		line := lines.Text()
		if match := listening.FindStringSubmatch(line); match != nil {
			started.url = match[1]
		}
		if strings.HasPrefix(line, "testbed-loaded ") {
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "testbed-loaded ")), &started.loaded); err != nil {
				t.Fatalf("the start-up line is not JSON: %v", err)
			}
		}
	}
	if started.url == "" || started.loaded == nil {
		t.Fatal("gin-api did not print where it listens and what it loaded")
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return started
}

func get(t *testing.T, method, url string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	return do(t, req)
}

func do(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	client := http.Client{Timeout: 10 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

func postGraphQL(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"/graphql", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	return do(t, req)
}

func TestStartUpLineReportsTheRuntimeAsItRuns(t *testing.T) {
	defaults := start(t)
	expected := map[string]any{
		"runtime":               "Go " + runtime.Version(),
		"gomaxprocs":            float64(runtime.NumCPU()),
		"gogc":                  "100",
		"gomemlimit":            "none",
		"pool_size_per_process": float64(100),
		"pool_max_open":         float64(100),
		"processes":             float64(1),
		"gin":                   "v1.8.1",
	}
	for key, value := range expected {
		if defaults.loaded[key] != value {
			t.Errorf("%s: %v, expected %v", key, defaults.loaded[key], value)
		}
	}
	tuned := start(t, "GOGC=200", "GOMAXPROCS=1", "GOMEMLIMIT=512MiB")
	for key, value := range map[string]any{"gogc": "200", "gomaxprocs": float64(1), "gomemlimit": "536870912"} {
		if tuned.loaded[key] != value {
			t.Errorf("with the variables set, %s: %v, expected %v", key, tuned.loaded[key], value)
		}
	}
}

func TestRestAnswersTheContractsBytesAndHeaders(t *testing.T) {
	served := start(t)
	resp, body := get(t, http.MethodGet, served.url+"/rest/comment/1")
	const comment = `{"id":1,"threadId":1,"userId":1,"body":"praesentium cena alii","dateMade":"2021-03-04","dateLastUpdated":"2021-08-14"}`
	if resp.StatusCode != http.StatusOK || body != comment {
		t.Fatalf("GET /rest/comment/1: %d %s", resp.StatusCode, body)
	}
	for name, value := range map[string]string{"Content-Type": "application/json; charset=utf-8",
		"Connection": "keep-alive", "Keep-Alive": "timeout=130", "Content-Length": "118"} {
		if resp.Header.Get(name) != value {
			t.Errorf("%s: %q, expected %q", name, resp.Header.Get(name), value)
		}
	}
	head, headBody := get(t, http.MethodHead, served.url+"/rest/comment/1")
	if head.ContentLength != 118 || headBody != "" {
		t.Errorf("HEAD: Content-Length %d, body %q", head.ContentLength, headBody)
	}
	refused, problem := get(t, http.MethodDelete, served.url+"/healthz")
	if refused.StatusCode != http.StatusMethodNotAllowed || refused.Header.Get("Allow") != "GET" ||
		!strings.Contains(problem, `"detail":"method not allowed"`) {
		t.Errorf("DELETE /healthz: %d Allow %q %s", refused.StatusCode, refused.Header.Get("Allow"), problem)
	}
}

func TestAliasedRootFieldsShareTheirUsers(t *testing.T) {
	served := start(t)
	_, body := postGraphQL(t, served.url,
		`{"query":"{ a: commentById(id: 1) { user { name } } b: commentsByLimit(limit: 2) { id user { id } } }"}`)
	const expected = `{"data":{"a":{"user":{"name":"Aaliyah.Bosco"}},"b":[{"id":"1","user":{"id":"1"}},{"id":"2","user":{"id":"1"}}]}}`
	if body != expected {
		t.Fatalf("got %s", body)
	}
}

// graphql-go leaves a root field whose variable it cannot coerce out of the run; the others must
// not wait for it.
func TestAnUncoercibleVariableAnswersWithoutData(t *testing.T) {
	served := start(t)
	resp, body := postGraphQL(t, served.url,
		`{"query":"query Q($l: Int!) { a: commentById(id: 1) { user { id } } b: commentsByLimit(limit: $l) { id } }","variables":{"l":"x"}}`)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(body, `{"errors":[`) || strings.Contains(body, `"data"`) {
		t.Fatalf("got %d %s", resp.StatusCode, body)
	}
}

func TestTheLimitsRefuseBeforeAnySQL(t *testing.T) {
	served := start(t, "GRAPHQL_MAX_COMMENTS=10")
	_, body := postGraphQL(t, served.url, `{"query":"{ a: commentsByLimit(limit: 6) { id } b: commentsByLimit(limit: 5) { id } }"}`)
	const expected = `{"errors":[{"message":"query asks for 11 comments; the maximum is 10","locations":[{"line":1,"column":1}]}]}`
	if body != expected {
		t.Fatalf("got %s", body)
	}
}
