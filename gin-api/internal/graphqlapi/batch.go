package graphqlapi

import (
	"context"
	"sync"

	"forum/internal/data"
)

// userBatch loads, in one statement per request, the users of every comment the root fields
// without a join return. It waits until every root field has its comments: root fields run
// concurrently and finish their SQL at different times, and loading on the first to finish
// would send one user query per root field.
type userBatch struct {
	store   *data.Store
	mu      sync.Mutex
	pending int
	waiting []*data.Comment
	loaded  chan struct{}
	err     error
}

type batchKey struct{}

func newUserBatch(store *data.Store, rootFields int) *userBatch {
	return &userBatch{store: store, pending: rootFields, loaded: make(chan struct{})}
}

func withUserBatch(ctx context.Context, batch *userBatch) context.Context {
	return context.WithValue(ctx, batchKey{}, batch)
}

func userBatchOf(ctx context.Context) *userBatch {
	batch, _ := ctx.Value(batchKey{}).(*userBatch)
	return batch
}

// settle is each root field's last step, even when it failed (comments nil): the last one loads
// the users; each returns once they are attached to its comments.
func (b *userBatch) settle(ctx context.Context, comments []*data.Comment) error {
	b.mu.Lock()
	for _, comment := range comments {
		if comment.User == nil {
			b.waiting = append(b.waiting, comment)
		}
	}
	b.pending--
	last := b.pending == 0
	b.mu.Unlock()
	if last {
		b.err = b.load(ctx)
		close(b.loaded)
	}
	<-b.loaded
	return b.err
}

func (b *userBatch) load(ctx context.Context) error {
	if len(b.waiting) == 0 {
		return nil
	}
	seen := map[int64]bool{}
	var ids []int64
	for _, comment := range b.waiting {
		if !seen[comment.UserID] {
			seen[comment.UserID] = true
			ids = append(ids, comment.UserID)
		}
	}
	users, err := b.store.UsersByIDs(ctx, ids)
	if err != nil {
		return err
	}
	for _, comment := range b.waiting {
		comment.User = users[comment.UserID]
	}
	return nil
}
