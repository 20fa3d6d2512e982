// Package reply sends every response the contract's way: a finished body with its Content-Type
// and Content-Length (so that HEAD answers GET's length without the body and nothing is chunked),
// and the keep-alive headers the other stacks send.
package reply

import (
	"net/http"
	"strconv"
	"strings"

	"forum/internal/jsonbytes"

	"github.com/gin-gonic/gin"
)

// KeepAliveTimeout is Kestrel's default, which every stack uses: on a saturated machine a load
// thread can wait longer than a short timeout for the CPU between two requests.
const KeepAliveTimeout = 130

// JSONType is the REST answers' Content-Type.
const JSONType = "application/json; charset=utf-8"

// Send writes status, contentType and body. On HEAD net/http drops the body but keeps the
// declared Content-Length.
func Send(c *gin.Context, status int, contentType string, body []byte) {
	header := c.Writer.Header()
	header.Set("Content-Type", contentType)
	header.Set("Content-Length", strconv.Itoa(len(body)))
	c.Status(status)
	c.Writer.WriteHeaderNow()
	if c.Request.Method != http.MethodHead {
		_, _ = c.Writer.Write(body)
	}
}

// JSON sends v as the contract's JSON bytes, or returns the error for the error middleware.
func JSON(c *gin.Context, status int, v any) error {
	body, err := jsonbytes.Marshal(v)
	if err != nil {
		return err
	}
	Send(c, status, JSONType, body)
	return nil
}

// KeepAlive says, as Node does, that the connection stays open and for how long; net/http
// replaces Connection with `close` itself when it will close it, and then Keep-Alive is left out.
func KeepAlive(c *gin.Context) {
	if !closing(c.Request) {
		header := c.Writer.Header()
		header.Set("Connection", "keep-alive")
		header.Set("Keep-Alive", "timeout="+strconv.Itoa(KeepAliveTimeout))
	}
	c.Next()
}

func closing(r *http.Request) bool {
	if r.Close {
		return true
	}
	for _, token := range strings.Split(r.Header.Get("Connection"), ",") {
		if strings.EqualFold(strings.TrimSpace(token), "close") {
			return true
		}
	}
	return false
}
