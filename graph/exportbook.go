package graph

import (
	"context"
	"encoding/json"
	"errors"
	"maps"

	"loregate/lore"
	"loregate/lore/format"
)

// withStoredBookFields gives book the book-level fields its source file
// had that no column keeps (lore.BookSource, migration 000082): world info
// `_meta` and `originalData`, a bare or card book's description and
// foreign fields, every format's alike, so that an export in any format
// writes what offline convert of the same file writes
// (docs/formats.md#rules-worth-knowing). The book's file-derived name stays
// file-derived while the book keeps that name; a persona book takes the
// name its file gave it (the card book's own name, else the card's
// character's), as convert writes it, not the persona's display name. A
// book with no kept fields (imported before 000082, or made by hand) is
// unchanged.
func (r *Resolver) withStoredBookFields(ctx context.Context, book *format.Book, server string, lineage lore.Lineage, collectionID int64) error {
	if err := r.withSourceFields(ctx, book, server, lineage, collectionID); err != nil {
		return err
	}
	return r.withBookInfo(ctx, book, server, lineage, collectionID)
}

// withBookInfo gives book the description a lore writer wrote
// (updateBookInfo; docs/workbench.md#categories) in place of its file's,
// in every format that has a book description: the book's own and a
// world info file's kept top-level description field alike.
func (r *Resolver) withBookInfo(ctx context.Context, book *format.Book, server string, lineage lore.Lineage, collectionID int64) error {
	if collectionID == 0 && lineage.IsServerwide() {
		return nil
	}
	info, err := r.Store.GetBookInfo(ctx, server, lineage, collectionID)
	if err != nil || info.UpdatedAt.IsZero() {
		return err
	}
	book.Description = info.Description
	if _, ok := book.Extensions[lore.SourceDescriptionKey]; ok {
		if info.Description == "" {
			delete(book.Extensions, lore.SourceDescriptionKey)
		} else {
			raw, _ := json.Marshal(info.Description)
			book.Extensions[lore.SourceDescriptionKey] = raw
		}
	}
	return nil
}

// withSourceFields is withStoredBookFields' part from lore.BookSource.
func (r *Resolver) withSourceFields(ctx context.Context, book *format.Book, server string, lineage lore.Lineage, collectionID int64) error {
	src, err := r.Store.GetBookSource(ctx, server, lineage, collectionID)
	if errors.Is(err, lore.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if book.Description == "" {
		book.Description = src.Description
	}
	if len(src.Fields) > 0 {
		if book.Extensions == nil {
			book.Extensions = make(map[string]json.RawMessage, len(src.Fields))
		}
		maps.Copy(book.Extensions, src.Fields)
	}
	if !lineage.IsServerwide() && src.Name != "" {
		book.Name = src.Name
	}
	book.NameFromFile = src.NameFromFile && book.Name == src.Name
	return nil
}

// withSourceBookFields gives book the book-level fields of the character
// card it was imported from (src; nil: none) that the store does not keep:
// the book's description, whether it had a name field, and its other
// card book fields (extensions included), as offline convert of the same
// card writes them (docs/formats.md#rules-worth-knowing). A persona book
// takes the card book's own name (its stored name is the persona's); a
// Serverwide collection keeps its collection name. Stored settings still
// win over the card's (the encoders write them last). A card that no
// longer reads changes nothing.
func withSourceBookFields(book *format.Book, src *format.SourceCard, persona bool) {
	if src == nil || len(src.JSON) == 0 {
		return
	}
	res, err := format.Import("card.json", src.JSON, format.Options{MaxJSONBytes: maxSourceCardBytes})
	if err != nil {
		return
	}
	sb := res.Book
	if book.Description == "" {
		book.Description = sb.Description
	}
	if len(sb.Extensions) > 0 && book.Extensions == nil {
		book.Extensions = make(map[string]json.RawMessage, len(sb.Extensions))
	}
	for k, v := range sb.Extensions {
		if _, ok := book.Extensions[k]; !ok {
			book.Extensions[k] = v
		}
	}
	if _, named := sb.Extensions["card/name"]; named && persona && sb.Name != "" {
		book.Name = sb.Name
	}
}

// maxSourceCardBytes bounds the stored card JSON read back for an export:
// the card JSON limit of a PNG or CHARX card (8 MiB).
const maxSourceCardBytes = 8 << 20
