package graph

import (
	"context"
	"strconv"

	"github.com/99designs/gqlgen/graphql"

	"loregate/graph/model"
	"loregate/lore"
	"loregate/lore/i18n"
)

// writableBook authorises a write to one book (docs/workbench.md#categories):
// collectionID for a Serverwide collection, else a persona lineage (> 0,
// known on the server). It returns the lineage (0 for a collection) and
// the collection id (0 for a persona book).
func (r *Resolver) writableBook(ctx context.Context, server string, collectionID graphql.Omittable[*string], lineageID graphql.Omittable[*int64]) (lore.Lineage, int64, error) {
	if c := collectionID.Value(); c != nil {
		id, err := r.writableCollection(ctx, server, *c)
		return lore.Serverwide, id, err
	}
	l := lineageID.Value()
	if l == nil || *l <= 0 {
		return 0, 0, lore.Reject("collectionId", i18n.CollectionRequired, nil)
	}
	lineage := lore.Lineage(*l)
	return lineage, 0, r.authorizeWrite(ctx, server, lineage)
}

// collectionInfo reads a collection's description and tags.
func (r *Resolver) collectionInfo(ctx context.Context, obj *model.Collection) (lore.BookInfo, error) {
	id, err := parseID("collection", obj.ID)
	if err != nil {
		return lore.BookInfo{}, err
	}
	return r.bookInfo(ctx, bookKey{server: obj.ServerID, collection: id})
}

// personaBookKey is the book of a PersonaBook.
func personaBookKey(obj *model.PersonaBook) bookKey {
	return bookKey{server: obj.ServerID, lineage: lore.Lineage(obj.LineageID)}
}

func categoryToModel(c lore.Category) *model.Category {
	return &model.Category{ID: strconv.FormatInt(c.ID, 10), Name: c.Name, SortOrder: c.SortOrder, Enabled: c.Enabled,
		CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
}

func categoryPayload(c lore.Category, err error) (*model.CategoryPayload, error) {
	if err != nil {
		return failure[model.CategoryPayload](err)
	}
	return &model.CategoryPayload{Category: categoryToModel(c)}, nil
}
