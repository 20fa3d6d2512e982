package main

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
)

const (
	jsonType    = "application/json; charset=utf-8"
	problemType = "application/problem+json; charset=utf-8"
)

// send writes a finished body with its Content-Type and Content-Length, the contract's framing:
// nothing is chunked, and HEAD declares GET's length without the body (net/http drops it anyway,
// but would count the attempt as an error).
func send(c *gin.Context, status int, contentType string, body []byte) {
	header := c.Writer.Header()
	header.Set("Content-Type", contentType)
	header.Set("Content-Length", strconv.Itoa(len(body)))
	c.Status(status)
	c.Writer.WriteHeaderNow()
	if c.Request.Method != http.MethodHead {
		_, _ = c.Writer.Write(body)
	}
}

// problem is an RFC 9457 body, the only error shape the contract allows, in its key order.
type problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
}

// sendProblem answers status with detail. The contract's titles are the standard reason phrases
// but for 413, "Payload Too Large" (RFC 9110) where net/http still says "Request Entity Too Large".
// encoding/json escapes <, > and & where the contract (JSON.stringify) does not; no detail here
// holds them, but a detail that quotes a request may: ../gin-api/internal/jsonbytes turns them back.
func sendProblem(c *gin.Context, status int, detail string) {
	// Strings and an int: encoding cannot fail.
	body, _ := json.Marshal(problem{Type: "about:blank", Title: http.StatusText(status), Status: status, Detail: detail})
	send(c, status, problemType, body)
}

// keepAlive says, as Node does, that the connection stays open and for how long. net/http sends
// neither header on HTTP/1.1 by itself, and replaces Connection with `close` when it will close the
// connection, when Keep-Alive must be left out.
func keepAlive(c *gin.Context) {
	if !closing(c.Request) {
		header := c.Writer.Header()
		header.Set("Connection", "keep-alive")
		header.Set("Keep-Alive", "timeout="+strconv.Itoa(keepAliveSeconds))
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
