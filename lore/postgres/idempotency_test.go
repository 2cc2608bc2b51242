package postgres_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/postgres"
)

// TestIdempotentInputDigest: the store replays a key for the digest it
// was first used with, refuses another digest with
// ErrIdempotencyInputDiffers (also ErrIdempotencyKeyReused), matches an
// empty digest given or stored, and replays a row stored before digests
// (input_digest NULL) whatever the digest; a repeat never runs
// fn.
func TestIdempotentInputDigest(t *testing.T) {
	b := setup(t)
	const payload = `{"entry": {"id": "1"}}`
	for _, tc := range []struct {
		name, first, repeat string
		// old stores the first result as a server before digests did
		// (input_digest NULL).
		old     bool
		wantErr error
	}{
		{name: "same digest replays", first: "sha256:a", repeat: "sha256:a"},
		{name: "other digest is refused", first: "sha256:a", repeat: "sha256:b", wantErr: postgres.ErrIdempotencyInputDiffers},
		{name: "no digest given replays", first: "sha256:a", repeat: ""},
		{name: "no digest stored replays", first: "", repeat: "sha256:b"},
		{name: "a row before digests replays", first: "sha256:a", repeat: "sha256:b", old: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := "k-" + tc.name
			runs := 0
			fn := func(context.Context) ([]byte, error) { runs++; return []byte(payload), nil }
			got, replayed, err := b.store.Idempotent(b.ctx, b.server, key, "createEntry", "p", tc.first, fn)
			require.NoError(t, err)
			require.False(t, replayed)
			require.JSONEq(t, payload, string(got))
			// The column result is the payload itself, as a process
			// older than migration 000090 reads it.
			var stored string
			require.NoError(t, b.pool.QueryRow(b.ctx, `SELECT result::text FROM idempotency_keys WHERE server_id = $1 AND key = $2`,
				b.server, key).Scan(&stored))
			require.JSONEq(t, payload, stored)
			if tc.old {
				_, err := b.pool.Exec(b.ctx, `UPDATE idempotency_keys SET input_digest = NULL WHERE server_id = $1 AND key = $2`, b.server, key)
				require.NoError(t, err)
			}
			got, replayed, err = b.store.Idempotent(b.ctx, b.server, key, "createEntry", "p", tc.repeat, fn)
			require.Equal(t, 1, runs, "a repeat never runs fn")
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				require.ErrorIs(t, err, lore.ErrIdempotencyKeyReused)
				require.False(t, errors.Is(err, lore.ErrInvalid))
				return
			}
			require.NoError(t, err)
			require.True(t, replayed)
			require.JSONEq(t, payload, string(got), "the stored payload")
		})
	}
}
