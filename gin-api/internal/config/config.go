// Package config reads every setting the app takes from the environment, by the same rules and
// with the same defaults as the other implementations (docs/adding-a-framework.md), so that the
// testbed's manifest records all of them.
package config

import (
	"fmt"
	"net"
	"os"
	"regexp"
	"strconv"
)

// PoolSize is the contract's pool: at most 100 connections for the whole app.
const PoolSize = 100

// Settings is what the process runs with.
type Settings struct {
	Port          int
	BindAddress   string
	DB            Database
	PoolSize      int
	GraphQLLimits Limits
}

// Database is where the read-only account connects.
type Database struct {
	Host, Name, User, Password string
	Port                       int
}

// Limits are the GraphQL abuse limits (contract/README.md, "Limits"). Only tests raise them, e.g.
// to read the whole schema by introspection; the benchmark runs the defaults.
type Limits struct {
	MaxDepth, MaxFields, MaxComments int
}

// DefaultPort is framework.json's default_port.
const DefaultPort = 3200

var wholeNumberText = regexp.MustCompile(`^[1-9][0-9]*$`)

// Load reads the settings; an error names the variable to fix.
func Load(getenv func(string) string) (Settings, error) {
	var errs []error
	number := func(name string, fallback int) int {
		value, err := wholeNumber(getenv, name, fallback)
		if err != nil {
			errs = append(errs, err)
		}
		return value
	}
	// PORT may be 0 (tests let the system pick one), so it is not held to the whole-number rule.
	port := DefaultPort
	if text := getenv("PORT"); text != "" {
		parsed, err := strconv.Atoi(text)
		if err != nil || parsed < 0 || parsed > 65535 {
			errs = append(errs, fmt.Errorf("PORT must be a port number from 0 to 65535, not '%s'", text))
		}
		port = parsed
	}
	bind, err := bindAddress(getenv("BIND_ADDRESS"))
	if err != nil {
		errs = append(errs, err)
	}
	settings := Settings{
		Port:        port,
		BindAddress: bind,
		DB: Database{
			Host:     textOr(getenv("DB_HOST"), "127.0.0.1"),
			Port:     number("DB_PORT", 3307),
			Name:     textOr(getenv("DB_NAME"), "forum"),
			User:     textOr(getenv("DB_USER"), "forum_api"),
			Password: textOr(getenv("DB_PASSWORD"), "forum_api"),
		},
		PoolSize: number("DB_POOL_SIZE", PoolSize),
		GraphQLLimits: Limits{
			MaxDepth:    number("GRAPHQL_MAX_DEPTH", 5),
			MaxFields:   number("GRAPHQL_MAX_FIELDS", 200),
			MaxComments: number("GRAPHQL_MAX_COMMENTS", 1000),
		},
	}
	if len(errs) > 0 {
		return settings, errs[0]
	}
	return settings, nil
}

// FromEnvironment is Load over the process's environment.
func FromEnvironment() (Settings, error) {
	return Load(os.Getenv)
}

// Empty counts as unset, as on the other stacks, so that a compose file can pass `NAME=`.
func textOr(text, fallback string) string {
	if text == "" {
		return fallback
	}
	return text
}

func wholeNumber(getenv func(string) string, name string, fallback int) (int, error) {
	text := getenv(name)
	if text == "" {
		return fallback, nil
	}
	value, err := strconv.ParseInt(text, 10, 32)
	if !wholeNumberText.MatchString(text) || err != nil {
		return fallback, fmt.Errorf("%s must be a whole number from 1 to 2147483647, not '%s'", name, text)
	}
	return int(value), nil
}

// An IP literal only, as Kestrel and Node take it: a host name would be resolved differently by
// each stack.
func bindAddress(text string) (string, error) {
	if text == "" {
		return "127.0.0.1", nil
	}
	if net.ParseIP(text) == nil {
		return "127.0.0.1", fmt.Errorf("BIND_ADDRESS must be an IP address such as 127.0.0.1 or 0.0.0.0, not '%s'", text)
	}
	return text, nil
}
