// Package data runs every SQL statement of the API, word for word the other stacks' statements,
// through database/sql as text-protocol queries: the driver interpolates the parameters
// (interpolateParams=true), so the server sees one COM_QUERY, never a prepared statement.
package data

import (
	"context"
	"database/sql"
	"sort"
	"strings"
)

const (
	commentByID        = "SELECT comment_id, thread_id, user_id, body, datemade, datelastupdated FROM comment WHERE comment_id = ?"
	commentsByLimit    = "SELECT comment_id, thread_id, user_id, body, datemade, datelastupdated FROM comment ORDER BY comment_id LIMIT ?"
	commentsByUser     = "SELECT c.comment_id, c.thread_id, c.user_id, c.body, c.datemade, c.datelastupdated, u.name, u.email, u.phone FROM comment c JOIN user u ON u.user_id = c.user_id WHERE c.user_id = ? ORDER BY c.comment_id LIMIT ?"
	firstCommentByUser = "SELECT c.comment_id, c.thread_id, c.user_id, c.body, c.datemade, c.datelastupdated, u.name, u.email, u.phone FROM comment c JOIN user u ON u.user_id = c.user_id WHERE c.user_id = ? ORDER BY c.comment_id LIMIT 1"
	// The IN list's placeholders follow, one per id.
	usersByIDs = "SELECT user_id, name, email, phone FROM user WHERE user_id IN "
)

// Comment is one comment row in the contract's key order; User is set only from a join row.
// Dates stay the server's YYYY-MM-DD text (the driver's parseTime is off): no time zone applies.
type Comment struct {
	ID              int64   `json:"id"`
	ThreadID        int64   `json:"threadId"`
	UserID          int64   `json:"userId"`
	Body            string  `json:"body"`
	DateMade        *string `json:"dateMade"`
	DateLastUpdated *string `json:"dateLastUpdated"`
	User            *User   `json:"user,omitempty"`
}

// User is one user row in the contract's key order.
type User struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
	Phone string `json:"phone"`
}

// Store runs the statements over one pool.
type Store struct {
	db *sql.DB
}

// New wraps the app's pool.
func New(db *sql.DB) *Store {
	return &Store{db: db}
}

// Ping is readiness: SELECT 1, as a query like every other statement (not COM_PING).
func (s *Store) Ping(ctx context.Context) error {
	var one int
	return s.db.QueryRowContext(ctx, "SELECT 1").Scan(&one)
}

// CommentByID is nil when no comment has that id.
func (s *Store) CommentByID(ctx context.Context, id int64) (*Comment, error) {
	return first(ctx, s.comments, commentByID, id)
}

// CommentsByLimit is the first limit comments by id.
func (s *Store) CommentsByLimit(ctx context.Context, limit int64) ([]*Comment, error) {
	return s.comments(ctx, commentsByLimit, limit)
}

// FirstCommentByUserID is the user's lowest-id comment with its user, nil when there is none.
func (s *Store) FirstCommentByUserID(ctx context.Context, userID int64) (*Comment, error) {
	return first(ctx, s.commentsWithUser, firstCommentByUser, userID)
}

// CommentsByUserID is the user's first limit comments, each with its user from the join row.
func (s *Store) CommentsByUserID(ctx context.Context, userID, limit int64) ([]*Comment, error) {
	return s.commentsWithUser(ctx, commentsByUser, userID, limit)
}

// UsersByIDs loads the users in one statement, ids ascending so that the SQL does not depend on
// the order they were asked for; ids without a user are absent from the map.
func (s *Store) UsersByIDs(ctx context.Context, ids []int64) (map[int64]*User, error) {
	ascending := append([]int64(nil), ids...)
	sort.Slice(ascending, func(i, j int) bool { return ascending[i] < ascending[j] })
	args := make([]any, len(ascending))
	for i, id := range ascending {
		args[i] = id
	}
	placeholders := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ") + ")"
	rows, err := s.db.QueryContext(ctx, usersByIDs+placeholders, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	users := make(map[int64]*User, len(ids))
	for rows.Next() {
		var u User
		if err := rows.Scan(&u.ID, &u.Name, &u.Email, &u.Phone); err != nil {
			return nil, err
		}
		users[u.ID] = &u
	}
	return users, rows.Err()
}

type listQuery func(ctx context.Context, query string, args ...any) ([]*Comment, error)

func first(ctx context.Context, list listQuery, query string, args ...any) (*Comment, error) {
	comments, err := list(ctx, query, args...)
	if err != nil || len(comments) == 0 {
		return nil, err
	}
	return comments[0], nil
}

func (s *Store) comments(ctx context.Context, query string, args ...any) ([]*Comment, error) {
	return s.scanAll(ctx, query, args, func(rows *sql.Rows, c *Comment) error {
		return rows.Scan(&c.ID, &c.ThreadID, &c.UserID, &c.Body, &c.DateMade, &c.DateLastUpdated)
	})
}

func (s *Store) commentsWithUser(ctx context.Context, query string, args ...any) ([]*Comment, error) {
	return s.scanAll(ctx, query, args, func(rows *sql.Rows, c *Comment) error {
		c.User = &User{}
		err := rows.Scan(&c.ID, &c.ThreadID, &c.UserID, &c.Body, &c.DateMade, &c.DateLastUpdated,
			&c.User.Name, &c.User.Email, &c.User.Phone)
		c.User.ID = c.UserID
		return err
	})
}

func (s *Store) scanAll(ctx context.Context, query string, args []any, scan func(*sql.Rows, *Comment) error) ([]*Comment, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	comments := []*Comment{}
	for rows.Next() {
		var c Comment
		if err := scan(rows, &c); err != nil {
			return nil, err
		}
		comments = append(comments, &c)
	}
	return comments, rows.Err()
}
