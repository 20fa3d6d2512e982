// Package loaded prints the start-up line `testbed-loaded {json}` (docs/adding-a-framework.md):
// what this process really runs with, read from the runtime and the binary rather than from
// framework.json's wishes, so that each run records what served it.
package loaded

import (
	"database/sql"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"

	"forum/internal/data"
	"forum/internal/jsonbytes"

	"github.com/gin-gonic/gin"
)

// The Debian package versions the binary was built from, stamped by build.sh (-ldflags -X):
// Go's GOPATH mode records no module versions in the binary.
var (
	graphqlGoPackage   = "unknown"
	mysqlDriverPackage = "unknown"
	gqlparserPackage   = "unknown"
	ginPackage         = "unknown"
)

// Line is the start-up line for a process serving with pool.
func Line(pool *sql.DB, poolSize int) (string, error) {
	executable, err := os.Executable()
	if err != nil {
		return "", err
	}
	// The runtime reads GOGC and GOMEMLIMIT once; these calls are the only way to ask it what it
	// holds (the first sets it back at once, before any request runs).
	gcPercent := debug.SetGCPercent(100)
	debug.SetGCPercent(gcPercent)
	memoryLimit := debug.SetMemoryLimit(-1)
	report := map[string]any{
		"runtime":                 "Go " + runtime.Version(),
		"runtime_path":            executable,
		"go_os_arch":              runtime.GOOS + "/" + runtime.GOARCH,
		"gomaxprocs":              runtime.GOMAXPROCS(0),
		"num_cpu":                 runtime.NumCPU(),
		"gogc":                    gogcText(gcPercent),
		"gomemlimit":              memoryLimitText(memoryLimit),
		"godebug":                 os.Getenv("GODEBUG"),
		"driver":                  "go-sql-driver/mysql",
		"driver_version":          mysqlDriverPackage,
		"graphql_server":          "graph-gophers/graphql-go",
		"graphql_server_version":  graphqlGoPackage,
		"processes":               1,
		"pool_size_per_process":   poolSize,
		"pool_max_open":           pool.Stats().MaxOpenConnections,
		"pool_max_idle":           poolSize,
		"pool_idle_timeout_ms":    data.IdleTimeout.Milliseconds(),
		"pool_connect_timeout_ms": data.ConnectTimeout.Milliseconds(),
		"gin":                     gin.Version,
		"gin_debian_package":      ginPackage,
		"gin_mode":                gin.Mode(),
		"graphql-go":              graphqlGoPackage,
		"go-sql-driver/mysql":     mysqlDriverPackage,
		"gqlparser":               gqlparserPackage,
	}
	line, err := jsonbytes.Marshal(report)
	return "testbed-loaded " + string(line), err
}

func gogcText(percent int) string {
	if percent < 0 {
		return "off"
	}
	return strconv.Itoa(percent)
}

// math.MaxInt64 is Go's "no limit".
func memoryLimitText(limit int64) string {
	if limit == math.MaxInt64 {
		return "none"
	}
	return strconv.FormatInt(limit, 10)
}
