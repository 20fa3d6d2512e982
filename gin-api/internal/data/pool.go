package data

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strconv"
	"time"

	"forum/internal/config"

	"github.com/go-sql-driver/mysql"
)

// IdleTimeout closes a connection unused this long, as the Node apps' pools do.
const IdleTimeout = 60 * time.Second

// ConnectTimeout bounds opening one connection, mysql2's default.
const ConnectTimeout = 10 * time.Second

// DSN is the driver's connection string: text protocol with the driver's parameter
// interpolation, the server's DATE text as it is, utf8mb4 chosen in the handshake (a charset
// parameter would send SET NAMES on every new connection: a statement the others do not send).
func DSN(db config.Database) string {
	cfg := mysql.NewConfig()
	cfg.Net = "tcp"
	cfg.Addr = net.JoinHostPort(db.Host, strconv.Itoa(db.Port))
	cfg.DBName = db.Name
	cfg.User = db.User
	cfg.Passwd = db.Password
	cfg.InterpolateParams = true
	cfg.Collation = "utf8mb4_unicode_ci"
	cfg.Timeout = ConnectTimeout
	return cfg.FormatDSN()
}

// OpenPool is the contract's pool: at most size connections, none opened before a request needs
// one, kept while idle up to IdleTimeout, no session reset on return (database/sql only asks the
// driver to check the socket before reuse), no TLS.
func OpenPool(db config.Database, size int) (*sql.DB, error) {
	pool, err := sql.Open("mysql", DSN(db))
	if err != nil {
		return nil, err
	}
	pool.SetMaxOpenConns(size)
	pool.SetMaxIdleConns(size)
	pool.SetConnMaxIdleTime(IdleTimeout)
	pool.SetConnMaxLifetime(0)
	return pool, nil
}

// Server errors that mean "the server is going away or full", as opposed to a bad query:
// ER_CON_COUNT_ERROR, ER_SERVER_SHUTDOWN, ER_TOO_MANY_USER_CONNECTIONS, ER_CONNECTION_KILLED.
var unreachableCodes = map[uint16]bool{1040: true, 1053: true, 1203: true, 1927: true}

// IsUnreachable says whether err means the database cannot be reached or dropped the connection
// (a 503), not a bug (a 500).
func IsUnreachable(err error) bool {
	var netErr net.Error
	var serverErr *mysql.MySQLError
	switch {
	case errors.As(err, &serverErr):
		return unreachableCodes[serverErr.Number]
	case errors.As(err, &netErr),
		errors.Is(err, driver.ErrBadConn),
		errors.Is(err, mysql.ErrInvalidConn),
		errors.Is(err, io.EOF),
		errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, sql.ErrConnDone):
		return true
	}
	return false
}
