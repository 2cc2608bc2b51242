package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"loregate/lore"
	"loregate/lore/i18n"
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
		return wrapErr(op, lore.Reject("collectionId", i18n.CollectionRequired, nil))
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

// BookSource is lore.BookSource, named here too.
type BookSource = lore.BookSource

// bookSourceUpsert* write a book's source fields; $7 false keeps a row the
// book already has (ON CONFLICT ... WHERE is false for it).
const (
	bookSourceUpsertLorebook = `INSERT INTO book_sources (server_id, lorebook_id, name, from_file, description, fields)
SELECT server_id, id, $3, $4, $5, $6 FROM lorebooks WHERE server_id = $1 AND id = $2
ON CONFLICT (lorebook_id) WHERE lorebook_id IS NOT NULL
DO UPDATE SET name = $3, from_file = $4, description = $5, fields = $6, updated_at = now() WHERE $7`
	bookSourceUpsertLineage = `INSERT INTO book_sources (server_id, lineage_id, name, from_file, description, fields)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (server_id, lineage_id) WHERE lineage_id IS NOT NULL
DO UPDATE SET name = $3, from_file = $4, description = $5, fields = $6, updated_at = now() WHERE $7`
	bookSourceGetLorebook    = `SELECT name, from_file, description, fields::text, updated_at FROM book_sources WHERE server_id = $1 AND lorebook_id = $2`
	bookSourceGetLineage     = `SELECT name, from_file, description, fields::text, updated_at FROM book_sources WHERE server_id = $1 AND lineage_id = $2`
	bookSourceDeleteLineage  = `DELETE FROM book_sources WHERE server_id = $1 AND lineage_id = $2`
	bookSourceDeleteLorebook = `DELETE FROM book_sources WHERE server_id = $1 AND lorebook_id = $2`
	bookSourceLorebookKnown  = `SELECT true FROM lorebooks WHERE server_id = $1 AND id = $2`
)

// maxBookSourceBytes bounds a book's kept source fields (their JSON) and
// its description, as the table's checks do (16 MiB).
const maxBookSourceBytes = 16 << 20

// PutBookSource keeps src as the source fields of its book under the
// server lock: with replace over the book's previous ones, else only when
// the book has none. ErrInvalid for fields or a description over 16 MiB
// or a name over 1,024 characters; ErrNotFound for an unknown server or
// collection.
func (s *Store) PutBookSource(ctx context.Context, src BookSource, replace bool) error {
	const op = "put book source"
	if src.CollectionID == 0 && src.Lineage.IsServerwide() {
		return wrapErr(op, lore.Reject("collectionId", i18n.CollectionRequired, nil))
	}
	js, err := fieldsJSON(src.Fields)
	if err != nil {
		return wrapErr(op, err)
	}
	switch {
	case len(js) > maxBookSourceBytes:
		return wrapErr(op, lore.Reject("fields", i18n.FileTooLarge, lore.Params{"max": maxBookSourceBytes}))
	case len(src.Description) > maxBookSourceBytes:
		return wrapErr(op, lore.Reject("description", i18n.FileTooLarge, lore.Params{"max": maxBookSourceBytes}))
	case utf8.RuneCountInString(src.Name) > 1024:
		return wrapErr(op, lore.Reject("name", i18n.TooLong, lore.Params{"length": utf8.RuneCountInString(src.Name), "max": 1024}))
	}
	return s.write(ctx, op, src.Server, func(tx pgx.Tx) error {
		if src.CollectionID != 0 {
			tag, err := tx.Exec(ctx, bookSourceUpsertLorebook, src.Server, src.CollectionID, src.Name, src.NameFromFile,
				src.Description, string(js), replace)
			if err == nil && tag.RowsAffected() == 0 {
				// No row written: an unknown collection, or (without
				// replace) one that keeps its fields.
				err = tx.QueryRow(ctx, bookSourceLorebookKnown, src.Server, src.CollectionID).Scan(new(bool))
				if errors.Is(err, pgx.ErrNoRows) {
					err = notFound("collection", src.CollectionID)
				}
			}
			return err
		}
		_, err := tx.Exec(ctx, bookSourceUpsertLineage, src.Server, int64(src.Lineage), src.Name, src.NameFromFile,
			src.Description, string(js), replace)
		return err
	})
}

// GetBookSource returns the source fields kept for a book (collectionID
// for a Serverwide collection, else lineage). ErrNotFound when none were
// kept (a book imported before migration 000082, or made by hand).
func (s *Store) GetBookSource(ctx context.Context, server string, lineage lore.Lineage, collectionID int64) (BookSource, error) {
	const op = "get book source"
	if err := checkServerID(server); err != nil {
		return BookSource{}, wrapErr(op, err)
	}
	src := BookSource{Server: server, Lineage: lineage, CollectionID: collectionID}
	var row pgx.Row
	if collectionID != 0 {
		row = s.db.QueryRow(ctx, bookSourceGetLorebook, server, collectionID)
	} else {
		row = s.db.QueryRow(ctx, bookSourceGetLineage, server, int64(lineage))
	}
	var js string
	err := row.Scan(&src.Name, &src.NameFromFile, &src.Description, &js, &src.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return BookSource{}, wrapErr(op, notFound("book source", nil))
	}
	if err != nil {
		return BookSource{}, wrapErr(op, err)
	}
	if err := json.Unmarshal([]byte(js), &src.Fields); err != nil {
		return BookSource{}, wrapErr(op, fmt.Errorf("decode kept fields: %w", err))
	}
	return src, nil
}

// fieldsJSON writes fields as one JSON object, members by name, each value
// as it is (json.Marshal would compact them). ErrInvalid for a value that
// is not JSON.
func fieldsJSON(fields map[string]json.RawMessage) ([]byte, error) {
	out := []byte{'{'}
	for i, k := range slices.Sorted(maps.Keys(fields)) {
		if !json.Valid(fields[k]) {
			return nil, lore.Reject("fields", i18n.ExtensionNotJSON, lore.Params{"name": lore.ClipBytes(k, 40)})
		}
		if i > 0 {
			out = append(out, ',')
		}
		name, _ := json.Marshal(k)
		out = append(append(append(out, name...), ':'), fields[k]...)
	}
	return append(out, '}'), nil
}
