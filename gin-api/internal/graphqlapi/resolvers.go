package graphqlapi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"

	"forum/internal/data"
	"forum/internal/params"

	graphql "github.com/graph-gophers/graphql-go"
)

// argumentError is a client's mistake in an argument: a field error beside the data, in the
// same words as the REST 400.
type argumentError struct{ message string }

func (e *argumentError) Error() string { return e.message }

var (
	errID    = &argumentError{params.IDRule}
	errLimit = &argumentError{params.LimitRule}
)

// idArgument takes an ID as the client wrote it (12 or "12", but also "abc" or 0) so that the
// REST id rule, not graphql-go, decides; a value ID's coercion refuses (true, 1.5) stays refused.
type idArgument struct{ text string }

func (idArgument) ImplementsGraphQLType(name string) bool { return name == "ID" }

func (a *idArgument) UnmarshalGraphQL(input any) error {
	switch value := input.(type) {
	case string:
		a.text = value
	case int32:
		a.text = strconv.Itoa(int(value))
	case float64:
		if value != math.Trunc(value) {
			return fmt.Errorf("ID cannot represent %v", value)
		}
		a.text = strconv.FormatFloat(value, 'f', -1, 64)
	default:
		return fmt.Errorf("ID cannot represent %v", value)
	}
	return nil
}

func (a idArgument) id() (int64, error) {
	if id, ok := params.ID(a.text); ok {
		return id, nil
	}
	return 0, errID
}

func limitArgument(value int32) (int64, error) {
	if value < 1 || value > params.MaxLimit {
		return 0, errLimit
	}
	return int64(value), nil
}

// query resolves contract/schema.graphql's Query type.
type query struct {
	store *data.Store
}

// root runs a root field's statement, then waits for the request's user batch when it has one.
func (q *query) root(ctx context.Context, load func() ([]*data.Comment, error)) ([]*commentResolver, error) {
	comments, err := load()
	if batch := userBatchOf(ctx); batch != nil {
		if batchErr := batch.settle(ctx, comments); err == nil {
			err = batchErr
		}
	}
	if err != nil {
		return nil, err
	}
	resolvers := make([]*commentResolver, len(comments))
	for i, comment := range comments {
		resolvers[i] = &commentResolver{comment}
	}
	return resolvers, nil
}

func single(comments []*commentResolver, err error) (*commentResolver, error) {
	if err != nil || len(comments) == 0 {
		return nil, err
	}
	return comments[0], nil
}

func orNone(comment *data.Comment, err error) ([]*data.Comment, error) {
	if comment == nil {
		return nil, err
	}
	return []*data.Comment{comment}, err
}

func (q *query) CommentByID(ctx context.Context, args struct{ ID idArgument }) (*commentResolver, error) {
	return single(q.root(ctx, func() ([]*data.Comment, error) {
		id, err := args.ID.id()
		if err != nil {
			return nil, err
		}
		return orNone(q.store.CommentByID(ctx, id))
	}))
}

func (q *query) CommentsByLimit(ctx context.Context, args struct{ Limit int32 }) ([]*commentResolver, error) {
	return q.root(ctx, func() ([]*data.Comment, error) {
		limit, err := limitArgument(args.Limit)
		if err != nil {
			return nil, err
		}
		return q.store.CommentsByLimit(ctx, limit)
	})
}

func (q *query) CommentByUserID(ctx context.Context, args struct{ ID idArgument }) (*commentResolver, error) {
	return single(q.root(ctx, func() ([]*data.Comment, error) {
		id, err := args.ID.id()
		if err != nil {
			return nil, err
		}
		return orNone(q.store.FirstCommentByUserID(ctx, id))
	}))
}

// The id is checked first, so that it is the one reported when both break their rules.
func (q *query) CommentsByUserID(ctx context.Context, args struct {
	ID    idArgument
	Limit int32
}) ([]*commentResolver, error) {
	return q.root(ctx, func() ([]*data.Comment, error) {
		id, err := args.ID.id()
		if err != nil {
			return nil, err
		}
		limit, err := limitArgument(args.Limit)
		if err != nil {
			return nil, err
		}
		return q.store.CommentsByUserID(ctx, id, limit)
	})
}

// commentResolver's fields are plain reads: graphql-go resolves them without goroutines.
type commentResolver struct{ comment *data.Comment }

func (c *commentResolver) ID() graphql.ID           { return graphql.ID(strconv.FormatInt(c.comment.ID, 10)) }
func (c *commentResolver) ThreadID() int32          { return int32(c.comment.ThreadID) }
func (c *commentResolver) UserID() int32            { return int32(c.comment.UserID) }
func (c *commentResolver) Body() string             { return c.comment.Body }
func (c *commentResolver) DateMade() *string        { return c.comment.DateMade }
func (c *commentResolver) DateLastUpdated() *string { return c.comment.DateLastUpdated }

// User comes from the join row, or from the request's batch, which the root field waited for.
func (c *commentResolver) User() *userResolver {
	if c.comment.User == nil {
		return nil
	}
	return &userResolver{c.comment.User}
}

type userResolver struct{ user *data.User }

func (u *userResolver) ID() graphql.ID { return graphql.ID(strconv.FormatInt(u.user.ID, 10)) }
func (u *userResolver) Name() string   { return u.user.Name }
func (u *userResolver) Email() string  { return u.user.Email }
func (u *userResolver) Phone() string  { return u.user.Phone }

func isArgumentError(err error) bool {
	var argument *argumentError
	return errors.As(err, &argument)
}
