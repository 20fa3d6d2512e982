// Package rest serves the REST endpoints and /healthz: the path parameters checked by the id and
// limit rules, one statement, and the answer or the 400/404 problem for the error middleware.
package rest

import (
	"fmt"
	"net/http"

	"forum/internal/data"
	"forum/internal/params"
	"forum/internal/problem"
	"forum/internal/reply"

	"github.com/gin-gonic/gin"
)

// Routes registers the endpoints for GET and HEAD (HEAD answers what GET would, without the body).
func Routes(router gin.IRoutes, store *data.Store) {
	endpoints := map[string]func(*gin.Context) error{
		"/rest/comment/:id":              commentByID(store),
		"/rest/comments/:limit":          commentsByLimit(store),
		"/rest/user/:id/comment":         firstCommentByUserID(store),
		"/rest/user/:id/comments/:limit": commentsByUserID(store),
		"/healthz":                       health(store),
	}
	for path, handle := range endpoints {
		router.GET(path, problem.Handler(handle))
		router.HEAD(path, problem.Handler(handle))
	}
}

func id(c *gin.Context) (int64, error) {
	value, ok := params.ID(c.Param("id"))
	if !ok {
		return 0, problem.BadRequest(params.IDRule)
	}
	return value, nil
}

func limit(c *gin.Context) (int64, error) {
	value, ok := params.Limit(c.Param("limit"))
	if !ok {
		return 0, problem.BadRequest(params.LimitRule)
	}
	return value, nil
}

func noComments(userID int64) error {
	return problem.NotFound(fmt.Sprintf("user %d has no comments", userID))
}

func commentByID(store *data.Store) func(*gin.Context) error {
	return func(c *gin.Context) error {
		commentID, err := id(c)
		if err != nil {
			return err
		}
		comment, err := store.CommentByID(c, commentID)
		if err != nil {
			return err
		}
		if comment == nil {
			return problem.NotFound(fmt.Sprintf("comment %d does not exist", commentID))
		}
		return reply.JSON(c, http.StatusOK, comment)
	}
}

func commentsByLimit(store *data.Store) func(*gin.Context) error {
	return func(c *gin.Context) error {
		n, err := limit(c)
		if err != nil {
			return err
		}
		comments, err := store.CommentsByLimit(c, n)
		if err != nil {
			return err
		}
		return reply.JSON(c, http.StatusOK, comments)
	}
}

func firstCommentByUserID(store *data.Store) func(*gin.Context) error {
	return func(c *gin.Context) error {
		userID, err := id(c)
		if err != nil {
			return err
		}
		comment, err := store.FirstCommentByUserID(c, userID)
		if err != nil {
			return err
		}
		if comment == nil {
			return noComments(userID)
		}
		return reply.JSON(c, http.StatusOK, comment)
	}
}

// The id is checked first, so that it is the one reported when both break their rules.
func commentsByUserID(store *data.Store) func(*gin.Context) error {
	return func(c *gin.Context) error {
		userID, err := id(c)
		if err != nil {
			return err
		}
		n, err := limit(c)
		if err != nil {
			return err
		}
		comments, err := store.CommentsByUserID(c, userID, n)
		if err != nil {
			return err
		}
		if len(comments) == 0 {
			return noComments(userID)
		}
		return reply.JSON(c, http.StatusOK, comments)
	}
}

// Ready means "can reach the database"; otherwise the error middleware answers 503.
func health(store *data.Store) func(*gin.Context) error {
	return func(c *gin.Context) error {
		if err := store.Ping(c); err != nil {
			return err
		}
		return reply.JSON(c, http.StatusOK, struct {
			Status string `json:"status"`
		}{"ok"})
	}
}
