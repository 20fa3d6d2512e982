package main

import (
	"fmt"
	"net"
	"strconv"
)

// settings is what the process runs with, read from the environment by the rules every
// implementation follows (docs/adding-a-framework.md, "What the app reads and prints").
type settings struct {
	port        int
	bindAddress string
	database    databaseSettings
}

// databaseSettings is where the read-only account connects.
type databaseSettings struct {
	host, name, user, password string
	port                       int
}

// defaultPort is framework.json's default_port.
const defaultPort = "{{PORT}}"

// settingsFrom reads the settings; an error names the variable to fix, so that a bad value stops
// start-up with one line.
func settingsFrom(getenv func(string) string) (settings, error) {
	// PORT may be 0: the tests let the system pick one.
	port, err := wholeNumber("PORT", textOr(getenv("PORT"), defaultPort), 0, 65535)
	if err != nil {
		return settings{}, err
	}
	bind, err := bindAddress(getenv("BIND_ADDRESS"))
	if err != nil {
		return settings{}, err
	}
	databasePort, err := wholeNumber("DB_PORT", textOr(getenv("DB_PORT"), "3307"), 1, 65535)
	if err != nil {
		return settings{}, err
	}
	return settings{
		port:        port,
		bindAddress: bind,
		database: databaseSettings{
			host:     textOr(getenv("DB_HOST"), "127.0.0.1"),
			port:     databasePort,
			name:     textOr(getenv("DB_NAME"), "forum"),
			user:     textOr(getenv("DB_USER"), "forum_api"),
			password: textOr(getenv("DB_PASSWORD"), "forum_api"),
		},
	}, nil
}

// Empty counts as unset, as on the other stacks, so that a compose file can pass `NAME=`.
func textOr(text, fallback string) string {
	if text == "" {
		return fallback
	}
	return text
}

// Digits only: ParseUint refuses a sign, spaces and anything after the number.
func wholeNumber(name, text string, lowest, highest uint64) (int, error) {
	value, err := strconv.ParseUint(text, 10, 32)
	if err != nil || value < lowest || value > highest {
		return 0, fmt.Errorf("%s must be a whole number from %d to %d, not '%s'", name, lowest, highest, text)
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
		return "", fmt.Errorf("BIND_ADDRESS must be an IP address such as 127.0.0.1 or 0.0.0.0, not '%s'", text)
	}
	return text, nil
}
