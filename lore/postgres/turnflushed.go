package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// turnFlushedBefore finds conversation $1 at version $2 with the log row
// of turn $3 answered at $4: the write of a flush whose answer was lost
// committed, and nothing wrote the conversation since.
const turnFlushedBefore = `SELECT t.version, t.xmin FROM turn_conversations t
WHERE t.id = $1 AND t.version = $2 AND EXISTS (SELECT FROM activation_log l
    WHERE l.conversation_id = t.id AND l.turn_id = $3 AND l.created_at = $4)`

// unanswered reports whether a write that failed with err may have
// committed all the same: no error of the server's (which rolls the
// write's transaction back) but a connection lost or a wait cut short,
// possibly after the server received the whole write.
func unanswered(err error) bool {
	var pgErr *pgconn.PgError
	return !errors.As(err, &pgErr)
}

// flushedBefore returns the version that an earlier write of it left its
// conversation at, when that write committed though its answer was lost
// (the conversation is still there, its last turn logged with the time
// it was answered at), else nil. Its turns are then written, and the
// turns of its conversation queued since are not dropped as after a
// conflict (docs/turns.md#deferred).
func (f *TurnFlusher) flushedBefore(ctx context.Context, it *flushItem) *turnVersion {
	pool, ok := f.store.pool(ctx)
	if !ok || len(it.turns) == 0 {
		return nil
	}
	last := &it.turns[len(it.turns)-1]
	v := turnVersion{id: it.at.id, lore: it.at.lore}
	err := pool.QueryRow(ctx, turnFlushedBefore, it.at.id, it.at.version+int64(len(it.turns)), last.turnID, last.at.Truncate(time.Microsecond)).
		Scan(&v.version, &v.xmin)
	if err != nil {
		return nil // moved on, or the database is unavailable: lost, as before
	}
	return &v
}
