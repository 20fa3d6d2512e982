// Package params holds the id and limit rules of the contract, the same for REST paths and
// GraphQL arguments: plain decimal digits without a leading zero, within range. Anything else
// ('+1', ' 1', '1.0', '0x1', '1e3', '007') is a client's mistake.
package params

import (
	"regexp"
	"strconv"
)

// The contract's texts for a broken rule.
const (
	IDRule    = "id must be an integer from 1 to 2147483647"
	LimitRule = "limit must be an integer from 1 to 1000"
)

const (
	maxID = 2147483647
	// MaxLimit is the most comments one list may ask for.
	MaxLimit = 1000
)

var digits = regexp.MustCompile(`^[1-9][0-9]{0,9}$`)

func inRange(text string, max int64) (int64, bool) {
	if !digits.MatchString(text) {
		return 0, false
	}
	value, err := strconv.ParseInt(text, 10, 64)
	if err != nil || value > max {
		return 0, false
	}
	return value, true
}

// ID is the id the text names, or false when the text breaks the id rule.
func ID(text string) (int64, bool) {
	return inRange(text, maxID)
}

// Limit is the limit the text names, or false when the text breaks the limit rule.
func Limit(text string) (int64, bool) {
	return inRange(text, MaxLimit)
}
