package main

import (
	"encoding/json"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"

	"github.com/gin-gonic/gin"
)

// The Debian package versions the binary was built from, stamped by build.sh (-ldflags -X).
var (
	ginPackage         = "unknown"
	mysqlDriverPackage = "unknown"
)

// loadedLine is the start-up line `testbed-loaded {json}`: what this process really runs with,
// read from the runtime and the binary rather than from framework.json's wishes, so that every run
// records what served it. Add each library you load.
func loadedLine() (string, error) {
	executable, err := os.Executable()
	if err != nil {
		return "", err
	}
	// The runtime reads GOGC and GOMEMLIMIT once; setting a value is the only way to ask it which
	// it holds, so the first call is undone at once, before any request runs.
	gcPercent := debug.SetGCPercent(100)
	debug.SetGCPercent(gcPercent)
	memoryLimit := debug.SetMemoryLimit(-1)
	line, err := json.Marshal(map[string]any{
		"runtime":               "Go " + runtime.Version(),
		"runtime_path":          executable,
		"go_os_arch":            runtime.GOOS + "/" + runtime.GOARCH,
		"gomaxprocs":            runtime.GOMAXPROCS(0),
		"num_cpu":               runtime.NumCPU(),
		"gogc":                  gogcText(gcPercent),
		"gomemlimit":            memoryLimitText(memoryLimit),
		"godebug":               os.Getenv("GODEBUG"),
		"driver":                "go-sql-driver/mysql",
		"driver_version":        mysqlDriverPackage,
		"processes":             1,
		"pool_size_per_process": poolSize,
		"gin":                   gin.Version,
		"gin_debian_package":    ginPackage,
		"gin_mode":              gin.Mode(),
	})
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
