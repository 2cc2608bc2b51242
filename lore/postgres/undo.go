package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"loregate/lore"
)

// The lore.UndoStore primitives: the SQL of an undo, one statement (or a
// batch) each; lore/transfer.Undo decides what an undo restores. Each runs
// inside Atomic (the transaction holding the server's lock).

// tx is the transaction the store is bound to inside Atomic.
func (s *Store) tx() (pgx.Tx, error) {
	tx, ok := s.db.(pgx.Tx)
	if !ok {
		return nil, errors.New("lore/postgres: an undo step runs inside Atomic")
	}
	return tx, nil
}

// undoStep runs one primitive on the bound transaction, wrapping its error.
func (s *Store) undoStep(op string, fn func(tx pgx.Tx) error) error {
	tx, err := s.tx()
	if err == nil {
		err = fn(tx)
	}
	return wrapErr(op, err)
}

// LockHistoryRecord reads record id of server and locks it (ErrNotFound).
func (s *Store) LockHistoryRecord(ctx context.Context, server string, id int64) (lore.HistoryRecord, error) {
	var rec lore.HistoryRecord
	err := s.undoStep("undo import", func(tx pgx.Tx) error {
		var err error
		rec, err = scanHistory(tx.QueryRow(ctx, historyGetForUpdate, server, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return notFound("import", id)
		}
		return err
	})
	return rec, err
}

// LaterRemover returns a later record of server, not undone, that replaced
// or removed one of ids (entries record id created), 0 for none.
func (s *Store) LaterRemover(ctx context.Context, server string, id int64, ids []int64) (int64, error) {
	var later int64
	err := s.undoStep("undo import", func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, historyLaterRemover, server, id, ids).Scan(&later)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		return err
	})
	return later, err
}

// TakenEntryID returns one of ids an entry holds again, 0 for none.
func (s *Store) TakenEntryID(ctx context.Context, ids []int64) (int64, error) {
	var taken int64
	err := s.undoStep("undo import", func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, entryIDsTaken, ids).Scan(&taken)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		return err
	})
	return taken, err
}

// DeleteEntryIDs deletes server's entries among ids and returns the ids
// deleted.
func (s *Store) DeleteEntryIDs(ctx context.Context, server string, ids []int64) ([]int64, error) {
	var removed []int64
	err := s.undoStep("undo import", func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, entryDeleteIDs, server, ids)
		if err != nil {
			return err
		}
		removed, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		return err
	})
	return removed, err
}

// CheckScopeRoom counts lineage's scope and fails with ErrScopeFull when
// adding entries would pass the limit.
func (s *Store) CheckScopeRoom(ctx context.Context, server string, lineage lore.Lineage, adding int) error {
	return s.undoStep("undo import", func(tx pgx.Tx) error {
		n, err := countScopeTx(ctx, tx, server, lineage)
		if err != nil {
			return err
		}
		return s.checkCapacity(server, lineage, n, adding)
	})
}

// CountScopeTx counts the entries of lineage's scope in the transaction.
func (s *Store) CountScopeTx(ctx context.Context, server string, lineage lore.Lineage) (int, error) {
	var n int
	err := s.undoStep("undo import", func(tx pgx.Tx) error {
		var err error
		n, err = countScopeTx(ctx, tx, server, lineage)
		return err
	})
	return n, err
}

// RestoreCollection creates c (with its flag, channels and settings)
// unless server has a collection of its name.
func (s *Store) RestoreCollection(ctx context.Context, server string, c lore.Collection) error {
	return s.undoStep("undo import", func(tx pgx.Tx) error { return restoreCollectionTx(ctx, tx, server, c) })
}

// RestoreEntries inserts snapshot entries with their ids, timestamps and
// pending legacy channel names.
func (s *Store) RestoreEntries(ctx context.Context, server string, entries []lore.Entry) error {
	return s.undoStep("undo import", func(tx pgx.Tx) error { return restoreEntriesTx(ctx, tx, server, entries) })
}

// TargetBook returns the settings of a record's target book: its persona
// book (empty when none is stored), or its collection by name (ok false
// when none of that name exists).
func (s *Store) TargetBook(ctx context.Context, server string, t lore.HistoryTarget) (b lore.BookSettings, ok bool, err error) {
	err = s.undoStep("undo import", func(tx pgx.Tx) error {
		if !t.Lineage.IsServerwide() {
			var r bookSettingsRow
			err := tx.QueryRow(ctx, personaBookGet, server, int64(t.Lineage)).Scan(r.dests()...)
			if err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
			b, ok = r.settings(), true
			return nil
		}
		c, err := scanCollection(tx.QueryRow(ctx, lorebookGetByName, server, t.Collection))
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		b, ok = c.Settings, err == nil
		return err
	})
	return b, ok, err
}

// SetTargetBook stores b as the settings of the target's book (see
// TargetBook).
func (s *Store) SetTargetBook(ctx context.Context, server string, t lore.HistoryTarget, b lore.BookSettings) error {
	return s.undoStep("undo import", func(tx pgx.Tx) error {
		if !t.Lineage.IsServerwide() {
			return setPersonaBookTx(ctx, tx, server, t.Lineage, b)
		}
		return setCollectionBookTx(ctx, tx, server, t.Collection, b)
	})
}

// TargetSource returns the kept source fields of the target's book (nil:
// none): its persona book's, or those of its collection by name (ok false
// when none of that name exists).
func (s *Store) TargetSource(ctx context.Context, server string, t lore.HistoryTarget) (*lore.BookSource, bool, error) {
	id, ok, err := s.targetBookID(ctx, server, t)
	if err != nil || !ok {
		return nil, false, err
	}
	src, err := s.GetBookSource(ctx, server, t.Lineage, id)
	if errors.Is(err, lore.ErrNotFound) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	return &src, true, nil
}

// SetTargetSource stores src as the kept source fields of the target's
// book (see TargetSource), over those it has; nil deletes them.
func (s *Store) SetTargetSource(ctx context.Context, server string, t lore.HistoryTarget, src *lore.BookSource) error {
	id, ok, err := s.targetBookID(ctx, server, t)
	if err != nil || !ok {
		return err
	}
	if src == nil {
		return s.undoStep("undo import", func(tx pgx.Tx) error {
			var err error
			if id != 0 {
				_, err = tx.Exec(ctx, bookSourceDeleteLorebook, server, id)
			} else {
				_, err = tx.Exec(ctx, bookSourceDeleteLineage, server, int64(t.Lineage))
			}
			return err
		})
	}
	put := *src
	put.Server, put.Lineage, put.CollectionID = server, t.Lineage, id
	return s.PutBookSource(ctx, put, true)
}

// targetBookID is the collection id of the target's book (0 for a persona
// book): the target's collection by its id, renamed since or not, else the
// collection of its name (ok false when neither exists).
func (s *Store) targetBookID(ctx context.Context, server string, t lore.HistoryTarget) (int64, bool, error) {
	if !t.Lineage.IsServerwide() {
		return 0, true, nil
	}
	if t.CollectionID != 0 {
		c, err := s.GetCollection(ctx, server, t.CollectionID)
		if err == nil {
			return c.ID, true, nil
		}
		if !errors.Is(err, lore.ErrNotFound) {
			return 0, false, err
		}
	}
	c, ok, err := s.CollectionNamed(ctx, server, t.Collection)
	return c.ID, ok, err
}

// TargetCard returns the kept card of the target's book (nil: none), as
// TargetSource.
func (s *Store) TargetCard(ctx context.Context, server string, t lore.HistoryTarget) (*lore.BookCard, bool, error) {
	id, ok, err := s.targetBookID(ctx, server, t)
	if err != nil || !ok {
		return nil, false, err
	}
	c, err := s.GetBookCard(ctx, server, t.Lineage, id)
	if errors.Is(err, lore.ErrNotFound) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	return &c, true, nil
}

// bookCardRestore* write a kept card exactly as a history snapshot holds
// it, its updated_at included.
const (
	bookCardRestoreLorebook = `INSERT INTO book_cards (server_id, lorebook_id, container, card, file, updated_at)
SELECT server_id, id, $3, $4, $5, $6 FROM lorebooks WHERE server_id = $1 AND id = $2
ON CONFLICT (lorebook_id) WHERE lorebook_id IS NOT NULL
DO UPDATE SET container = $3, card = $4, file = $5, updated_at = $6`
	bookCardRestoreLineage = `INSERT INTO book_cards (server_id, lineage_id, container, card, file, updated_at)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (server_id, lineage_id) WHERE lineage_id IS NOT NULL
DO UPDATE SET container = $3, card = $4, file = $5, updated_at = $6`
	bookCardDeleteLorebook = `DELETE FROM book_cards WHERE server_id = $1 AND lorebook_id = $2`
)

// SetTargetCard stores c as the kept card of the target's book (see
// TargetCard) exactly, its UpdatedAt included; nil deletes it. A
// collection gone since gets nothing.
func (s *Store) SetTargetCard(ctx context.Context, server string, t lore.HistoryTarget, c *lore.BookCard) error {
	id, ok, err := s.targetBookID(ctx, server, t)
	if err != nil || !ok {
		return err
	}
	return s.undoStep("undo import", func(tx pgx.Tx) error {
		var err error
		switch {
		case c == nil && id != 0:
			_, err = tx.Exec(ctx, bookCardDeleteLorebook, server, id)
		case c == nil:
			_, err = tx.Exec(ctx, bookCardDeleteLineage, server, int64(t.Lineage))
		case id != 0:
			_, err = tx.Exec(ctx, bookCardRestoreLorebook, server, id, c.Container, c.Card, c.File, c.UpdatedAt)
		default:
			_, err = tx.Exec(ctx, bookCardRestoreLineage, server, int64(t.Lineage), c.Container, c.Card, c.File, c.UpdatedAt)
		}
		return err
	})
}

// CollectionNamed returns server's collection name (ok false when none).
func (s *Store) CollectionNamed(ctx context.Context, server, name string) (c lore.Collection, ok bool, err error) {
	err = s.undoStep("undo import", func(tx pgx.Tx) error {
		var err error
		c, err = scanCollection(tx.QueryRow(ctx, lorebookGetByName, server, name))
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		ok = err == nil
		return err
	})
	return c, ok, err
}

// RestoreCollectionState puts back collection name's enabled flag and
// channels, and its book settings when setBook.
func (s *Store) RestoreCollectionState(ctx context.Context, server string, c lore.Collection, setBook bool) error {
	return s.undoStep("undo import", func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, lorebookRestoreFlags, server, c.Name, c.Enabled, emptyIfNil(c.ChannelIDs)); err != nil {
			return err
		}
		if setBook {
			return setCollectionBookTx(ctx, tx, server, c.Name, c.Settings)
		}
		return nil
	})
}

// DeleteCollectionIfEmpty deletes collection name when it holds no entry.
func (s *Store) DeleteCollectionIfEmpty(ctx context.Context, server, name string) error {
	return s.undoStep("undo import", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, lorebookDeleteIfEmpty, server, name)
		return err
	})
}

// DeletePersonaOnLineage deletes persona id when it is still on lineage;
// otherwise exists says whether it is on another lineage now.
func (s *Store) DeletePersonaOnLineage(ctx context.Context, server string, id int64, lineage lore.Lineage) (deleted, exists bool, err error) {
	err = s.undoStep("undo import", func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, personaDeleteOnLineage, server, id, int64(lineage))
		if err != nil || tag.RowsAffected() > 0 {
			deleted = err == nil
			return err
		}
		return tx.QueryRow(ctx, personaExists, server, id).Scan(&exists)
	})
	return deleted, exists, err
}

// DeleteUnsharedPersonaBook deletes lineage's book settings, kept card and
// source fields unless another persona is on the lineage; it reports
// whether it did.
func (s *Store) DeleteUnsharedPersonaBook(ctx context.Context, server string, lineage lore.Lineage) (bool, error) {
	var deleted bool
	err := s.undoStep("undo import", func(tx pgx.Tx) error {
		var shared bool
		if err := tx.QueryRow(ctx, personaLineageKnown, server, int64(lineage)).Scan(&shared); err != nil || shared {
			return err
		}
		if _, err := tx.Exec(ctx, personaBookDelete, server, int64(lineage)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, bookCardDeleteLineage, server, int64(lineage)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, bookSourceDeleteLineage, server, int64(lineage))
		deleted = err == nil
		return err
	})
	return deleted, err
}

// ForgetMigratedSources forgets the source ids migration record id
// recorded (a rerun migrates them again).
func (s *Store) ForgetMigratedSources(ctx context.Context, id int64) error {
	return s.undoStep("undo import", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, legacySourcesDelete, id)
		return err
	})
}

// BumpLoreVersion ends a lore write of server: its lore version moves on
// and caches of its scopes are invalidated.
func (s *Store) BumpLoreVersion(ctx context.Context, server string) error {
	err := s.undoStep("undo import", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, serverBumpLoreVersion, server)
		return err
	})
	if err == nil {
		s.wrote(server)
	}
	return err
}

// MarkUndone marks record id undone by record undoID.
func (s *Store) MarkUndone(ctx context.Context, id, undoID int64) error {
	return s.undoStep("undo import", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, historyMarkUndone, id, undoID)
		return err
	})
}

// PersonaCard returns the card character of persona id (see
// lore.UndoStore).
func (s *Store) PersonaCard(ctx context.Context, server string, id int64) (*lore.CharacterContext, bool, error) {
	var c *lore.CharacterContext
	ok := true
	err := s.undoStep("undo import", func(tx pgx.Tx) error {
		var raw []byte
		err := tx.QueryRow(ctx, personaGetCardContext, server, id).Scan(&raw)
		if errors.Is(err, pgx.ErrNoRows) {
			ok = false
			return nil
		}
		if err != nil || raw == nil {
			return err
		}
		c = &lore.CharacterContext{}
		if err := json.Unmarshal(raw, c); err != nil {
			return fmt.Errorf("persona card context: %w", err)
		}
		return nil
	})
	return c, ok, err
}

// SetPersonaCard stores persona id's card character (nil clears it).
func (s *Store) SetPersonaCard(ctx context.Context, server string, id int64, c *lore.CharacterContext) error {
	return s.undoStep("undo import", func(tx pgx.Tx) error { return setCardContextTx(ctx, tx, server, id, c) })
}
