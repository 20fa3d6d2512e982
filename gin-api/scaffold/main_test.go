package main

// The parts every implementation needs whatever its routes: it starts, says what it runs with, is
// ready once the database answers, and an unknown path is the contract's 404 problem. The tests run
// the built binary (bin/forum-api, from build.sh) against the database the DB_* variables name, as
// ./testbed test gives them. Add a test beside each route you write; `./testbed verify --framework
// {{NAME}}` checks the rest.

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

var listening = regexp.MustCompile(`listening on (http://\S+)`)

type started struct {
	url    string
	loaded map[string]any
}

// start runs the binary with env added, on a port the system picks, until the test ends.
func start(t *testing.T, env ...string) started {
	t.Helper()
	cmd := exec.Command("bin/forum-api")
	cmd.Env = append(append(os.Environ(), "PORT=0"), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("bin/forum-api (run ./build.sh first): %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	lines := bufio.NewScanner(stdout)
	var app started
	for app.loaded == nil && lines.Scan() {
		line := lines.Text()
		if match := listening.FindStringSubmatch(line); match != nil {
			app.url = match[1]
		}
		if strings.HasPrefix(line, "testbed-loaded ") {
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "testbed-loaded ")), &app.loaded); err != nil {
				t.Fatalf("the start-up line is not JSON: %v", err)
			}
		}
	}
	if app.url == "" || app.loaded == nil {
		t.Fatal("the app did not print where it listens and what it runs with")
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return app
}

func fetch(t *testing.T, method, url string) (*http.Response, string) {
	t.Helper()
	request, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := http.Client{Timeout: 10 * time.Second}
	response, err := client.Do(request)
	if err != nil {
		t.Fatal(err)
	}
	defer response.Body.Close()
	body, err := io.ReadAll(response.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response, string(body)
}

func TestTheStartUpLineReportsTheRuntimeAsItRuns(t *testing.T) {
	defaults := start(t)
	for key, value := range map[string]any{
		"runtime":               "Go " + runtime.Version(),
		"gomaxprocs":            float64(runtime.NumCPU()),
		"gogc":                  "100",
		"gomemlimit":            "none",
		"processes":             float64(1),
		"pool_size_per_process": float64(100),
	} {
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

func TestHealthzIsOkOnceTheDatabaseAnswers(t *testing.T) {
	app := start(t)
	response, body := fetch(t, http.MethodGet, app.url+"/healthz")
	if response.StatusCode != http.StatusOK || body != `{"status":"ok"}` {
		t.Fatalf("GET /healthz: %d %s", response.StatusCode, body)
	}
	for name, value := range map[string]string{"Content-Type": "application/json; charset=utf-8",
		"Content-Length": "15", "Connection": "keep-alive", "Keep-Alive": "timeout=130"} {
		if response.Header.Get(name) != value {
			t.Errorf("%s: %q, expected %q", name, response.Header.Get(name), value)
		}
	}
}

func TestAnUnknownPathIsTheNotFoundProblem(t *testing.T) {
	app := start(t)
	response, body := fetch(t, http.MethodGet, app.url+"/no/such/path")
	const expected = `{"type":"about:blank","title":"Not Found","status":404,"detail":"no such endpoint"}`
	if response.StatusCode != http.StatusNotFound || body != expected ||
		response.Header.Get("Content-Type") != "application/problem+json; charset=utf-8" {
		t.Fatalf("GET /no/such/path: %d %s %s", response.StatusCode, response.Header.Get("Content-Type"), body)
	}
	head, headBody := fetch(t, http.MethodHead, app.url+"/no/such/path")
	if head.StatusCode != http.StatusNotFound || head.ContentLength != int64(len(expected)) || headBody != "" {
		t.Errorf("HEAD /no/such/path: %d, Content-Length %d, body %q", head.StatusCode, head.ContentLength, headBody)
	}
}
