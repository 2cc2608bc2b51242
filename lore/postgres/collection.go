package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"loregate/lore"
	"loregate/lore/i18n"
)

func scanCollection(row pgx.Row) (lore.Collection, error) {
	var c lore.Collection
	var count int64
	var bs bookSettingsRow
	err := row.Scan(append([]any{&c.ID, &c.Server, &c.Name, &c.Enabled, &c.ChannelIDs, &c.CreatedAt, &c.UpdatedAt},
		append(bs.dests(), &count)...)...)
	c.Settings = bs.settings()
	c.EntryCount = int(count)
	if len(c.ChannelIDs) == 0 {
		c.ChannelIDs = nil
	}
	return c, err
}

func checkCollection(c lore.Collection) error {
	if err := checkServerID(c.Server); err != nil {
		return err
	}
	if err := lore.ValidateCollectionName(c.Name); err != nil {
		return err
	}
	return lore.ValidateChannelIDs("channelIds", c.ChannelIDs)
}

// emptyIfNil keeps NOT NULL array columns from receiving SQL NULL.
func emptyIfNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// CreateCollection creates a Serverwide collection with c's name, enabled
// flag and channel ids (at most lore.MaxChannelIDs snowflakes). A name
// already used on the server is ErrDuplicateName; more than
// lore.MaxCollectionsPerServer collections is ErrInvalid; an unknown server
// is ErrNotFound.
func (s *Store) CreateCollection(ctx context.Context, c lore.Collection) (lore.Collection, error) {
	const op = "create collection"
	if err := checkCollection(c); err != nil {
		return lore.Collection{}, wrapErr(op, err)
	}
	var out lore.Collection
	err := s.write(ctx, op, c.Server, func(tx pgx.Tx) error {
		var err error
		out, err = createCollectionTx(ctx, tx, c)
		return err
	})
	return out, err
}

// createCollectionTx inserts a collection under the server lock.
func createCollectionTx(ctx context.Context, tx pgx.Tx, c lore.Collection) (lore.Collection, error) {
	var n int
	if err := tx.QueryRow(ctx, lorebookCountForServer, c.Server).Scan(&n); err != nil {
		return lore.Collection{}, err
	}
	if n >= lore.MaxCollectionsPerServer {
		return lore.Collection{}, lore.Reject("collection", i18n.CollectionsFull, lore.Params{"count": n, "max": lore.MaxCollectionsPerServer})
	}
	unit, err := serverUnitTx(ctx, tx, c.Server)
	if err != nil {
		return lore.Collection{}, err
	}
	if err := c.Settings.Validate(unit); err != nil {
		return lore.Collection{}, lore.WithFieldPrefix("settings", err)
	}
	args := append([]any{c.Server, c.Name, c.Enabled, emptyIfNil(c.ChannelIDs)}, bookSettingsArgs(c.Settings)...)
	out, err := scanCollection(tx.QueryRow(ctx, lorebookInsert, args...))
	return out, namedDuplicate(err, c.Name)
}

// namedDuplicate turns a unique violation on a collection name into a
// *lore.DuplicateNameError naming it; other errors pass unchanged.
func namedDuplicate(err error, name string) error {
	if err == nil || !errors.Is(interpretError(err), lore.ErrDuplicateName) {
		return err
	}
	return &lore.DuplicateNameError{Name: name, Err: interpretError(err)}
}

// RenameCollection renames a collection; its entries follow through the
// ON UPDATE CASCADE foreign key. The new name must be free on the server
// (ErrDuplicateName); an unknown id is ErrNotFound.
func (s *Store) RenameCollection(ctx context.Context, server string, id int64, newName string) (lore.Collection, error) {
	const op = "rename collection"
	if err := lore.ValidateCollectionName(newName); err != nil {
		return lore.Collection{}, wrapErr(op, err)
	}
	c, err := s.updateCollection(ctx, op, server, id, lorebookRename, newName)
	if errors.Is(err, lore.ErrDuplicateName) {
		err = wrapErr(op, &lore.DuplicateNameError{Name: newName, Err: err})
	}
	return c, err
}

// DeleteCollection removes the collection, its entries and their pending
// legacy channel markers (foreign-key cascades). ErrNotFound for an unknown
// id.
func (s *Store) DeleteCollection(ctx context.Context, server string, id int64) error {
	const op = "delete collection"
	return s.write(ctx, op, server, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, lorebookDelete, server, id)
		if err == nil && tag.RowsAffected() == 0 {
			err = notFound("collection", id)
		}
		return err
	})
}

// SetCollectionEnabled turns the whole collection on or off without
// changing its entries' own enabled flags. ErrNotFound for an unknown id.
func (s *Store) SetCollectionEnabled(ctx context.Context, server string, id int64, enabled bool) (lore.Collection, error) {
	return s.updateCollection(ctx, "set collection enabled", server, id, lorebookSetEnabled, enabled)
}

// SetCollectionChannels replaces the collection's channel ids (snowflake
// syntax, at most lore.MaxChannelIDs, no duplicates; empty = every
// channel). Resolving them against the guild is the caller's job.
func (s *Store) SetCollectionChannels(ctx context.Context, server string, id int64, channelIDs []string) (lore.Collection, error) {
	const op = "set collection channels"
	if err := lore.ValidateChannelIDs("channelIds", channelIDs); err != nil {
		return lore.Collection{}, wrapErr(op, err)
	}
	return s.updateCollection(ctx, op, server, id, lorebookSetChannels, emptyIfNil(channelIDs))
}

// updateCollection runs one UPDATE of a collection addressed by (server, id)
// as a lore write and returns the collection afterwards.
func (s *Store) updateCollection(ctx context.Context, op, server string, id int64, query string, arg any) (lore.Collection, error) {
	var out lore.Collection
	err := s.write(ctx, op, server, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, query, server, id, arg)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return notFound("collection", id)
		}
		out, err = scanCollection(tx.QueryRow(ctx, lorebookGet, server, id))
		return err
	})
	return out, err
}

// GetCollection returns a collection with its entry count. ErrNotFound for
// an id that is not a collection of this server.
func (s *Store) GetCollection(ctx context.Context, server string, id int64) (lore.Collection, error) {
	if err := checkServerID(server); err != nil {
		return lore.Collection{}, wrapErr("get collection", err)
	}
	c, err := scanCollection(s.db.QueryRow(ctx, lorebookGet, server, id))
	if errors.Is(err, pgx.ErrNoRows) {
		err = notFound("collection", id)
	}
	return c, wrapErr("get collection", err)
}

// GetCollectionByName returns a collection with its entry count, matching
// the name exactly. ErrNotFound when the server has no such collection.
func (s *Store) GetCollectionByName(ctx context.Context, server, name string) (lore.Collection, error) {
	if err := checkServerID(server); err != nil {
		return lore.Collection{}, wrapErr("get collection by name", err)
	}
	c, err := scanCollection(s.db.QueryRow(ctx, lorebookGetByName, server, name))
	if errors.Is(err, pgx.ErrNoRows) {
		err = notFound("collection name", name)
	}
	return c, wrapErr("get collection by name", err)
}

// ListCollections returns the server's collections ordered by name, each
// with its entry count (disabled entries included). An unknown server has
// none. Failure wraps ErrUnavailable.
func (s *Store) ListCollections(ctx context.Context, server string) ([]lore.Collection, error) {
	if err := checkServerID(server); err != nil {
		return nil, wrapErr("list collections", err)
	}
	rows, err := s.db.Query(ctx, lorebookList, server)
	if err != nil {
		return nil, wrapErr("list collections", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (lore.Collection, error) { return scanCollection(r) })
	return out, wrapErr("list collections", err)
}
