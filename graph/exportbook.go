package graph

import (
	"encoding/json"

	"loregate/lore/format"
)

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
