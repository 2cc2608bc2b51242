package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"loregate/lore"
)

// BookCard is lore.BookCard, named here too.
type BookCard = lore.BookCard

var _ lore.BookCardStore = (*Store)(nil)

const (
	bookCardUpsertLorebook = `INSERT INTO book_cards (server_id, lorebook_id, container, card, file)
SELECT server_id, id, $3, $4, $5 FROM lorebooks WHERE server_id = $1 AND id = $2
ON CONFLICT (lorebook_id) WHERE lorebook_id IS NOT NULL
DO UPDATE SET container = $3, card = $4, file = $5, updated_at = now()`
	bookCardUpsertLineage = `INSERT INTO book_cards (server_id, lineage_id, container, card, file)
VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (server_id, lineage_id) WHERE lineage_id IS NOT NULL
DO UPDATE SET container = $3, card = $4, file = $5, updated_at = now()`
	bookCardGetLorebook = `SELECT container, card, file, updated_at FROM book_cards WHERE server_id = $1 AND lorebook_id = $2`
	bookCardGetLineage  = `SELECT container, card, file, updated_at FROM book_cards WHERE server_id = $1 AND lineage_id = $2`
)

// PutBookCard keeps c as the card of its book, replacing the book's
// previous card, under the server lock. ErrNotFound for an unknown server
// or collection.
func (s *Store) PutBookCard(ctx context.Context, c BookCard) error {
	const op = "put book card"
	if c.CollectionID == 0 && c.Lineage.IsServerwide() {
		return wrapErr(op, lore.Invalid("collectionId", "is required for a Serverwide book"))
	}
	return s.write(ctx, op, c.Server, func(tx pgx.Tx) error {
		if c.CollectionID != 0 {
			tag, err := tx.Exec(ctx, bookCardUpsertLorebook, c.Server, c.CollectionID, c.Container, c.Card, c.File)
			if err == nil && tag.RowsAffected() == 0 {
				err = notFound("collection", c.CollectionID)
			}
			return err
		}
		_, err := tx.Exec(ctx, bookCardUpsertLineage, c.Server, int64(c.Lineage), c.Container, c.Card, c.File)
		return err
	})
}

// GetBookCard returns the card kept for a book (collectionID for a
// Serverwide collection, else lineage). ErrNotFound when the book came
// without a card.
func (s *Store) GetBookCard(ctx context.Context, server string, lineage lore.Lineage, collectionID int64) (BookCard, error) {
	const op = "get book card"
	if err := checkServerID(server); err != nil {
		return BookCard{}, wrapErr(op, err)
	}
	c := BookCard{Server: server, Lineage: lineage, CollectionID: collectionID}
	var row pgx.Row
	if collectionID != 0 {
		row = s.db.QueryRow(ctx, bookCardGetLorebook, server, collectionID)
	} else {
		row = s.db.QueryRow(ctx, bookCardGetLineage, server, int64(lineage))
	}
	err := row.Scan(&c.Container, &c.Card, &c.File, &c.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return BookCard{}, wrapErr(op, notFound("card", nil))
	}
	return c, wrapErr(op, err)
}
