package graphqlapi

import (
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"forum/internal/problem"
)

// The transport of contract/README.md ("The GraphQL transport"): the response media type from
// Accept, then the request checks in their order, each with the contract's words.

const (
	graphqlResponseType = "application/graphql-response+json"
	jsonType            = "application/json"
	notAcceptable       = "Accept must allow application/graphql-response+json or application/json"
	unsupportedType     = "Content-Type must be application/json"
	// MaxBodyBytes is Kestrel's MaxRequestBodySize on the ASP.NET side: a body above it is a 413.
	MaxBodyBytes = 1_000_000
)

// splitOutsideQuotes splits a header list or its parameters at separators outside quoted
// strings (RFC 9110 §5.6).
func splitOutsideQuotes(text string, separator byte) []string {
	var parts []string
	var current strings.Builder
	quoted := false
	for i := 0; i < len(text); i++ {
		char := text[i]
		switch {
		case quoted && char == '\\':
			current.WriteByte(char)
			if i+1 < len(text) {
				current.WriteByte(text[i+1])
				i++
			}
		case char == '"':
			quoted = !quoted
			current.WriteByte(char)
		case char == separator && !quoted:
			parts = append(parts, strings.TrimSpace(current.String()))
			current.Reset()
		default:
			current.WriteByte(char)
		}
	}
	return append(parts, strings.TrimSpace(current.String()))
}

var qvalue = regexp.MustCompile(`^(?:0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)$`)

type mediaRange struct {
	mediaType string
	q         float64
}

// mediaRanges are Accept's ranges with their weights; one whose q breaks RFC 9110's grammar is
// left out.
func mediaRanges(accept string) []mediaRange {
	var ranges []mediaRange
	for _, element := range splitOutsideQuotes(accept, ',') {
		parts := splitOutsideQuotes(element, ';')
		if parts[0] == "" {
			continue
		}
		q := "1"
		for _, parameter := range parts[1:] {
			if len(parameter) >= 2 && strings.EqualFold(parameter[:2], "q=") {
				q = parameter[2:]
				break
			}
		}
		if qvalue.MatchString(q) {
			weight, _ := strconv.ParseFloat(q, 64)
			ranges = append(ranges, mediaRange{strings.ToLower(parts[0]), weight})
		}
	}
	return ranges
}

var standsFor = map[string]string{
	graphqlResponseType: graphqlResponseType,
	jsonType:            jsonType,
	"application/*":     jsonType,
	"*/*":               jsonType,
}

// responseMediaType is the media type to answer with, or "" when neither is acceptable (406).
func responseMediaType(accept string) string {
	ranges := mediaRanges(accept)
	onlyAny := true
	for _, r := range ranges {
		onlyAny = onlyAny && r.mediaType == "*/*"
	}
	if onlyAny {
		return jsonType
	}
	chosen, best := "", 0.0
	for _, r := range ranges {
		mediaType, known := standsFor[r.mediaType]
		// Strictly better, or as good and application/graphql-response+json: it wins ties.
		if known && (r.q > best || (r.q == best && r.q > 0 && mediaType == graphqlResponseType)) {
			chosen, best = mediaType, r.q
		}
	}
	return chosen
}

// isJSONContentType: application/json with no parameter but charset=utf-8, case-insensitively.
func isJSONContentType(contentType string, present bool) bool {
	if !present {
		return false
	}
	parts := splitOutsideQuotes(contentType, ';')
	if !strings.EqualFold(parts[0], jsonType) {
		return false
	}
	for _, parameter := range parts[1:] {
		if parameter != "" && !strings.EqualFold(parameter, "charset=utf-8") {
			return false
		}
	}
	return true
}

// readBody reads at most MaxBodyBytes, as sent (Content-Encoding is not undone: like Kestrel,
// a compressed body is simply not JSON).
func readBody(body io.Reader, declaredLength int64) ([]byte, error) {
	if declaredLength > MaxBodyBytes {
		return nil, problem.TooLarge()
	}
	read, err := io.ReadAll(io.LimitReader(body, MaxBodyBytes+1))
	if err != nil {
		return nil, err
	}
	if len(read) > MaxBodyBytes {
		return nil, problem.TooLarge()
	}
	return read, nil
}

// request is a body that passed the checks; unknown keys are dropped.
type request struct {
	query         string
	operationName string
	variables     map[string]any
}

// rejection is a transport check's verdict: its status and message.
type rejection struct {
	status  int
	message string
}

func rejected(message string) *rejection {
	return &rejection{status: 400, message: message}
}

func isObjectOrNull(raw json.RawMessage, present bool) bool {
	return !present || bytes.Equal(raw, []byte("null")) || (len(raw) > 0 && raw[0] == '{')
}

// checkBody applies the contract's body checks in their order. Invalid UTF-8 is not JSON
// (encoding/json would replace it silently); a byte order mark is not JSON either.
func checkBody(body []byte) (*request, *rejection) {
	var fields map[string]json.RawMessage
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if !utf8.Valid(body) || !json.Valid(body) {
		return nil, rejected("the request body is not valid JSON")
	}
	if len(trimmed) == 0 || trimmed[0] != '{' || json.Unmarshal(body, &fields) != nil {
		return nil, rejected("the request body must be a JSON object")
	}
	var checked request
	rawQuery, hasQuery := fields["query"]
	if !hasQuery || len(rawQuery) == 0 || rawQuery[0] != '"' || json.Unmarshal(rawQuery, &checked.query) != nil {
		return nil, rejected("query must be a string")
	}
	rawVariables, hasVariables := fields["variables"]
	if !isObjectOrNull(rawVariables, hasVariables) {
		return nil, rejected("variables must be an object or null")
	}
	if hasVariables && json.Unmarshal(rawVariables, &checked.variables) != nil {
		return nil, rejected("variables must be an object or null")
	}
	if rawName, hasName := fields["operationName"]; hasName && !bytes.Equal(rawName, []byte("null")) {
		if len(rawName) == 0 || rawName[0] != '"' || json.Unmarshal(rawName, &checked.operationName) != nil {
			return nil, rejected("operationName must be a string or null")
		}
	}
	if rawExtensions, hasExtensions := fields["extensions"]; !isObjectOrNull(rawExtensions, hasExtensions) {
		return nil, rejected("extensions must be an object or null")
	}
	return &checked, nil
}
