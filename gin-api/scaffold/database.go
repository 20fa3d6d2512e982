package main

import (
	"database/sql"
	"net"
	"strconv"
	"time"

	"github.com/go-sql-driver/mysql"
)

// The contract's pool, the same on every implementation (docs/adding-a-framework.md, "The rules of
// fairness"): at most 100 connections, idle ones closed after Node's pools' 60 s, a connection
// opened within mysql2's default 10 s.
const (
	poolSize       = 100
	idleTimeout    = 60 * time.Second
	connectTimeout = 10 * time.Second
)

// openPool opens no connection before a request needs one, resets none on return (database/sql
// only has the driver check the socket before reuse) and uses no TLS. interpolateParams keeps every
// statement on the text protocol: the driver puts the parameters into the SQL, so the server sees
// one COM_QUERY and never a prepared statement. The collation is chosen in the handshake, since a
// charset parameter would send SET NAMES on every new connection, a statement the others do not send.
func openPool(db databaseSettings) (*sql.DB, error) {
	cfg := mysql.NewConfig()
	cfg.Net = "tcp"
	cfg.Addr = net.JoinHostPort(db.host, strconv.Itoa(db.port))
	cfg.DBName = db.name
	cfg.User = db.user
	cfg.Passwd = db.password
	cfg.InterpolateParams = true
	cfg.Collation = "utf8mb4_unicode_ci"
	cfg.Timeout = connectTimeout
	pool, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return nil, err
	}
	pool.SetMaxOpenConns(poolSize)
	pool.SetMaxIdleConns(poolSize)
	pool.SetConnMaxIdleTime(idleTimeout)
	pool.SetConnMaxLifetime(0)
	return pool, nil
}
