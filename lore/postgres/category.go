package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"loregate/lore"
	"loregate/lore/i18n"
)

// Categories and book info (migration 000073, docs/workbench.md#categories).

const categoryColumns = `c.id, c.server_id::text, COALESCE(c.lorebook_id, 0), COALESCE(c.lineage_id, 0), c.name,
    c.sort_order, c.enabled, c.created_at, c.updated_at`

const (
	// categoryList reads the categories of one book: $2 a collection id
	// (0 for a persona book), $3 a lineage (0 for a collection).
	categoryList = `SELECT ` + categoryColumns + ` FROM book_categories c
WHERE c.server_id = $1 AND COALESCE(c.lorebook_id, 0) = $2 AND COALESCE(c.lineage_id, 0) = $3
ORDER BY c.sort_order, c.name, c.id`
	// categoryListBooks reads the categories of many books of server $1:
	// collections $2, persona lineages $3.
	categoryListBooks = `SELECT ` + categoryColumns + ` FROM book_categories c
WHERE c.server_id = $1 AND (c.lorebook_id = ANY($2::bigint[]) OR (c.lorebook_id IS NULL AND c.lineage_id = ANY($3::bigint[])))
ORDER BY COALESCE(c.lorebook_id, 0), COALESCE(c.lineage_id, 0), c.sort_order, c.name, c.id`
	categoryCount = `SELECT count(*) FROM book_categories c
WHERE c.server_id = $1 AND COALESCE(c.lorebook_id, 0) = $2 AND COALESCE(c.lineage_id, 0) = $3`
	categoryInsert = `INSERT INTO book_categories (server_id, lorebook_id, lineage_id, name, sort_order, enabled)
VALUES ($1, NULLIF($2::bigint, 0), NULLIF($3::bigint, 0), $4, $5, $6)
RETURNING id, created_at, updated_at`
	categoryGetForUpdate = `SELECT ` + categoryColumns + ` FROM book_categories c WHERE c.server_id = $1 AND c.id = $2 FOR UPDATE`
	categoryUpdate       = `UPDATE book_categories SET name = $3, sort_order = $4, enabled = $5
WHERE server_id = $1 AND id = $2 RETURNING updated_at`
	categoryDelete = `DELETE FROM book_categories WHERE server_id = $1 AND id = $2`
	// categoryOfEntryBook is true when category $2 belongs to the book of
	// an entry in lineage $3 (NULL: Serverwide collection $4).
	categoryOfEntryBook = `SELECT EXISTS (SELECT 1 FROM book_categories c LEFT JOIN lorebooks b ON b.id = c.lorebook_id
WHERE c.server_id = $1 AND c.id = $2 AND (c.lineage_id = $3 OR ($3::bigint IS NULL AND b.name = $4)))`
	bookInfoGetLorebook    = `SELECT description, tags, updated_at FROM book_info WHERE server_id = $1 AND lorebook_id = $2`
	bookInfoGetLineage     = `SELECT description, tags, updated_at FROM book_info WHERE server_id = $1 AND lineage_id = $2`
	bookInfoUpsertLorebook = `INSERT INTO book_info (server_id, lorebook_id, description, tags)
SELECT server_id, id, $3, $4 FROM lorebooks WHERE server_id = $1 AND id = $2
ON CONFLICT (lorebook_id) WHERE lorebook_id IS NOT NULL
DO UPDATE SET description = $3, tags = $4, updated_at = now()
RETURNING updated_at`
	bookInfoUpsertLineage = `INSERT INTO book_info (server_id, lineage_id, description, tags)
VALUES ($1, $2, $3, $4)
ON CONFLICT (server_id, lineage_id) WHERE lineage_id IS NOT NULL
DO UPDATE SET description = $3, tags = $4, updated_at = now()
RETURNING updated_at`
)

// MaxCategoriesPerBook bounds the categories of one book.
const MaxCategoriesPerBook = 100

func scanCategory(row pgx.Row) (lore.Category, error) {
	var c lore.Category
	var lin int64
	err := row.Scan(&c.ID, &c.Server, &c.CollectionID, &lin, &c.Name, &c.SortOrder, &c.Enabled, &c.CreatedAt, &c.UpdatedAt)
	c.Lineage = lore.Lineage(lin)
	return c, err
}

// checkBook validates a book address: a collection id, or a persona
// lineage (> 0) with collectionID 0.
func checkBook(server string, lineage lore.Lineage, collectionID int64) error {
	if err := checkServerID(server); err != nil {
		return err
	}
	if collectionID < 0 {
		return lore.Reject("collectionId", i18n.NotPositiveID, nil)
	}
	if collectionID == 0 && lineage <= 0 {
		return lore.Reject("collectionId", i18n.CollectionRequired, nil)
	}
	return checkLineage(lineage)
}

// ListCategories returns the categories of one book (collectionID for a
// Serverwide collection, else the persona lineage's book) by sortOrder,
// then name. An unknown book has none.
func (s *Store) ListCategories(ctx context.Context, server string, lineage lore.Lineage, collectionID int64) ([]lore.Category, error) {
	const op = "list categories"
	if err := checkBook(server, lineage, collectionID); err != nil {
		return nil, wrapErr(op, err)
	}
	if collectionID != 0 {
		lineage = 0
	}
	rows, err := s.db.Query(ctx, categoryList, server, collectionID, int64(lineage))
	if err != nil {
		return nil, wrapErr(op, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (lore.Category, error) { return scanCategory(r) })
	return out, wrapErr(op, err)
}

// ListBooksCategories returns in one query the categories of many books of
// one server (Serverwide collections collectionIDs, persona lineages
// lineages; at most lore.MaxBooksPerCategoryRead together), grouped by book
// (Category.CollectionID, else Category.Lineage) and in each book by
// sortOrder, then name, like ListCategories. Only server's rows are read;
// an unknown or other server's book has none.
func (s *Store) ListBooksCategories(ctx context.Context, server string, collectionIDs []int64, lineages []lore.Lineage) ([]lore.Category, error) {
	const op = "list categories"
	if err := checkServerID(server); err != nil {
		return nil, wrapErr(op, err)
	}
	if n := len(collectionIDs) + len(lineages); n > lore.MaxBooksPerCategoryRead {
		return nil, wrapErr(op, lore.Reject("ids", i18n.TooManyIDs, lore.Params{"count": n, "max": lore.MaxBooksPerCategoryRead}))
	}
	lins := make([]int64, len(lineages))
	for i, l := range lineages {
		lins[i] = int64(l)
	}
	rows, err := s.db.Query(ctx, categoryListBooks, server, collectionIDs, lins)
	if err != nil {
		return nil, wrapErr(op, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (lore.Category, error) { return scanCategory(r) })
	return out, wrapErr(op, err)
}

// bookInfoTagged reads the books of server $1 whose tags hold $2, ignoring
// case (tags of one book are unique ignoring case).
const bookInfoTagged = `SELECT COALESCE(lorebook_id, 0), COALESCE(lineage_id, 0) FROM book_info
WHERE server_id = $1 AND EXISTS (SELECT 1 FROM unnest(tags) t WHERE lower(t) = lower($2))
ORDER BY 1, 2`

// TaggedBooks returns the books of server whose written tags hold tag,
// ignoring case: collection ids and persona lineages.
func (s *Store) TaggedBooks(ctx context.Context, server, tag string) (collectionIDs []int64, lineages []lore.Lineage, err error) {
	const op = "list tagged books"
	if err := checkServerID(server); err != nil {
		return nil, nil, wrapErr(op, err)
	}
	rows, err := s.db.Query(ctx, bookInfoTagged, server, tag)
	if err != nil {
		return nil, nil, wrapErr(op, err)
	}
	defer rows.Close()
	for rows.Next() {
		var c, l int64
		if err := rows.Scan(&c, &l); err != nil {
			return nil, nil, wrapErr(op, err)
		}
		if c != 0 {
			collectionIDs = append(collectionIDs, c)
		} else {
			lineages = append(lineages, lore.Lineage(l))
		}
	}
	return collectionIDs, lineages, wrapErr(op, rows.Err())
}

// validateCategory checks a category's name (1..lore.MaxCategoryNameLen
// characters, no surrounding space or control characters) and sort order
// (32 bits).
func validateCategory(c lore.Category) error {
	if err := lore.ValidateCategoryName(c.Name); err != nil {
		return err
	}
	if int64(c.SortOrder) != int64(int32(c.SortOrder)) {
		return lore.Reject("sortOrder", i18n.Not32Bit, lore.Params{"value": c.SortOrder})
	}
	return nil
}

// CreateCategory adds c to its book (c.CollectionID, else c.Lineage) under
// the server lock. ErrInvalid for a bad name or sort order, a name the
// book already has (duplicate_category) or a book already holding
// MaxCategoriesPerBook; ErrNotFound for an unknown server or collection.
func (s *Store) CreateCategory(ctx context.Context, c lore.Category) (lore.Category, error) {
	const op = "create category"
	if err := checkBook(c.Server, c.Lineage, c.CollectionID); err != nil {
		return lore.Category{}, wrapErr(op, err)
	}
	if err := validateCategory(c); err != nil {
		return lore.Category{}, wrapErr(op, err)
	}
	if c.CollectionID != 0 {
		c.Lineage = 0
	}
	err := s.write(ctx, op, c.Server, func(tx pgx.Tx) error {
		if c.CollectionID != 0 {
			if err := tx.QueryRow(ctx, bookSourceLorebookKnown, c.Server, c.CollectionID).Scan(new(bool)); errors.Is(err, pgx.ErrNoRows) {
				return notFound("collection", c.CollectionID)
			} else if err != nil {
				return err
			}
		}
		var n int
		if err := tx.QueryRow(ctx, categoryCount, c.Server, c.CollectionID, int64(c.Lineage)).Scan(&n); err != nil {
			return err
		}
		if n >= MaxCategoriesPerBook {
			return lore.Reject("name", i18n.TooManyCategories, lore.Params{"count": n, "max": MaxCategoriesPerBook})
		}
		err := tx.QueryRow(ctx, categoryInsert, c.Server, c.CollectionID, int64(c.Lineage), c.Name, int32(c.SortOrder), c.Enabled).
			Scan(&c.ID, &c.CreatedAt, &c.UpdatedAt)
		return categoryNameTaken(err, c.Name)
	})
	return c, err
}

// categoryNameTaken turns the unique violation of a category name into
// the field error duplicate_category.
func categoryNameTaken(err error, name string) error {
	if err != nil && errors.Is(interpretError(err), lore.ErrDuplicateName) {
		return lore.Reject("name", i18n.DuplicateCategory, lore.Params{"name": name})
	}
	return err
}

// UpdateCategory applies p to category id of server under the server
// lock (a changed enabled flag changes what turns read: the lore version
// moves). ErrNotFound for a category of no book of server; ErrInvalid as
// CreateCategory.
func (s *Store) UpdateCategory(ctx context.Context, server string, id int64, p lore.CategoryPatch) (lore.Category, error) {
	const op = "update category"
	var out lore.Category
	err := s.write(ctx, op, server, func(tx pgx.Tx) error {
		c, err := scanCategory(tx.QueryRow(ctx, categoryGetForUpdate, server, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return notFound("category", id)
		}
		if err != nil {
			return err
		}
		if err := lore.CheckUpdatedAt(fmt.Sprintf("category %d", id), p.ExpectedUpdatedAt, c.UpdatedAt); err != nil {
			return err
		}
		setIf(&c.Name, p.Name)
		setIf(&c.SortOrder, p.SortOrder)
		setIf(&c.Enabled, p.Enabled)
		if err := validateCategory(c); err != nil {
			return err
		}
		err = tx.QueryRow(ctx, categoryUpdate, server, id, c.Name, int32(c.SortOrder), c.Enabled).Scan(&c.UpdatedAt)
		out = c
		return categoryNameTaken(err, c.Name)
	})
	return out, err
}

// DeleteCategory removes category id of server; its entries stay, without
// a category (each records a revision). ErrNotFound for an unknown one.
func (s *Store) DeleteCategory(ctx context.Context, server string, id int64) error {
	const op = "delete category"
	return s.write(ctx, op, server, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, categoryDelete, server, id)
		if err == nil && tag.RowsAffected() == 0 {
			return notFound("category", id)
		}
		return err
	})
}

// checkEntryCategoryTx refuses (category_of_other_book) a category id
// that is not one of the book of e (its lineage, or its collection).
func checkEntryCategoryTx(ctx context.Context, tx pgx.Tx, e lore.Entry) error {
	if e.CategoryID == 0 {
		return nil
	}
	var coll any
	if e.Lineage.IsServerwide() {
		coll = e.Collection
	}
	var ok bool
	if err := tx.QueryRow(ctx, categoryOfEntryBook, e.Server, e.CategoryID, lineageParam(e.Lineage), coll).Scan(&ok); err != nil {
		return err
	}
	if !ok {
		return lore.Reject("categoryId", i18n.CategoryOtherBook, lore.Params{"id": e.CategoryID})
	}
	return nil
}

// keepCategoryTx clears e's category when it is no longer one of e's
// book (deleted since a revision named it), as the table's trigger does.
func keepCategoryTx(ctx context.Context, tx pgx.Tx, e *lore.Entry) error {
	err := checkEntryCategoryTx(ctx, tx, *e)
	var ie *lore.InvalidError
	if errors.As(err, &ie) && ie.Key == i18n.CategoryOtherBook {
		e.CategoryID = 0
		return nil
	}
	return err
}

// GetBookInfo returns a book's description and tags (collectionID for a
// Serverwide collection, else the persona lineage's book). A book whose
// info was never written has the description its file had (the kept
// source description, else a world info file's own top-level
// description field), no tags and a zero UpdatedAt.
func (s *Store) GetBookInfo(ctx context.Context, server string, lineage lore.Lineage, collectionID int64) (lore.BookInfo, error) {
	const op = "get book info"
	if err := checkBook(server, lineage, collectionID); err != nil {
		return lore.BookInfo{}, wrapErr(op, err)
	}
	info, found, err := getBookInfo(ctx, s.db, server, lineage, collectionID)
	if err != nil || found {
		return info, wrapErr(op, err)
	}
	src, err := s.GetBookSource(ctx, server, lineage, collectionID)
	if errors.Is(err, lore.ErrNotFound) {
		return lore.BookInfo{}, nil
	}
	if err != nil {
		return lore.BookInfo{}, err
	}
	info.Description = src.Description
	if raw, ok := src.Fields[lore.SourceDescriptionKey]; ok && info.Description == "" {
		info.Description = jsonString(raw)
	}
	return info, nil
}

// queryRower is a pool or a transaction.
type queryRower interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// getBookInfo reads a book's written info; found is false when it has
// none.
func getBookInfo(ctx context.Context, q queryRower, server string, lineage lore.Lineage, collectionID int64) (info lore.BookInfo, found bool, err error) {
	var row pgx.Row
	if collectionID != 0 {
		row = q.QueryRow(ctx, bookInfoGetLorebook, server, collectionID)
	} else {
		row = q.QueryRow(ctx, bookInfoGetLineage, server, int64(lineage))
	}
	err = row.Scan(&info.Description, &info.Tags, &info.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return lore.BookInfo{}, false, nil
	}
	info.Tags = nilIfEmpty(info.Tags)
	return info, err == nil, err
}

// ValidateBookInfo checks a description (at most
// lore.MaxBookDescriptionLen characters) and tags (at most
// lore.MaxBookTags, each 1..lore.MaxBookTagLen characters, no repeats
// ignoring case) and returns the tags trimmed.
func ValidateBookInfo(info lore.BookInfo) ([]string, error) {
	var fe lore.FieldErrors
	if err := lore.ValidateDescription(info.Description); err != nil {
		fe.Add(err)
	}
	tags := make([]string, 0, len(info.Tags))
	seen := map[string]bool{}
	for i, t := range info.Tags {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if err := lore.ValidateTag(fmt.Sprintf("tags[%d]", i), t); err != nil {
			fe.Add(err)
			continue
		}
		if seen[strings.ToLower(t)] {
			fe.Add(lore.Reject(fmt.Sprintf("tags[%d]", i), i18n.DuplicateTag, lore.Params{"value": t}))
			continue
		}
		seen[strings.ToLower(t)] = true
		tags = append(tags, t)
	}
	if len(tags) > lore.MaxBookTags {
		fe.Add(lore.Reject("tags", i18n.TooManyTags, lore.Params{"count": len(tags), "max": lore.MaxBookTags}))
	}
	return tags, fe.Err()
}

// UpdateBookInfo applies p to a book's description and tags under the
// server lock (collectionID for a Serverwide collection, else the persona
// lineage's book; the caller checks the lineage is known); exports write
// the written description in place of the file's. ErrInvalid as
// ValidateBookInfo; ErrNotFound for an unknown server or collection; a
// *lore.StaleError when p.ExpectedUpdatedAt is set and differs (zero
// while none was written).
func (s *Store) UpdateBookInfo(ctx context.Context, server string, lineage lore.Lineage, collectionID int64, p lore.BookInfoPatch) (lore.BookInfo, error) {
	const op = "update book info"
	if err := checkBook(server, lineage, collectionID); err != nil {
		return lore.BookInfo{}, wrapErr(op, err)
	}
	var out lore.BookInfo
	err := s.write(ctx, op, server, func(tx pgx.Tx) error {
		// Read under the lock: with no written info, the book's file
		// description (book_sources, which a re-import may change).
		cur, err := s.InTx(tx).GetBookInfo(ctx, server, lineage, collectionID)
		if err != nil {
			return err
		}
		if err := lore.CheckUpdatedAt("book", p.ExpectedUpdatedAt, cur.UpdatedAt); err != nil {
			return err
		}
		next := cur
		setIf(&next.Description, p.Description)
		if p.Tags != nil {
			next.Tags = slices.Clone(*p.Tags)
		}
		if next.Tags, err = ValidateBookInfo(next); err != nil {
			return err
		}
		if collectionID != 0 {
			err = tx.QueryRow(ctx, bookInfoUpsertLorebook, server, collectionID, next.Description, next.Tags).Scan(&next.UpdatedAt)
			if errors.Is(err, pgx.ErrNoRows) {
				return notFound("collection", collectionID)
			}
		} else {
			err = tx.QueryRow(ctx, bookInfoUpsertLineage, server, int64(lineage), next.Description, next.Tags).Scan(&next.UpdatedAt)
		}
		next.Tags = nilIfEmpty(next.Tags)
		out = next
		return err
	})
	return out, err
}

// jsonString is raw as a string when it is a JSON string, else "".
func jsonString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}
