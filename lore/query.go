package lore

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"loregate/lore/i18n"
)

// Listings for clients that page through a book or a caller's servers (the
// dashboard, docs/api.md "Operations"): one bounded SQL read per page.

// MaxEntrySearchLen is the longest EntryQuery.Search, in characters.
const MaxEntrySearchLen = 200

// EntryOrderField is the sort key of an entry listing; ties are broken by
// entry id in the same direction, so the order is total.
type EntryOrderField string

// The sort keys of EntryQuery.
const (
	// OrderTitle sorts by the lower-cased title.
	OrderTitle          EntryOrderField = "title"
	OrderInsertionOrder EntryOrderField = "insertion_order"
	OrderPriority       EntryOrderField = "priority"
	OrderUpdatedAt      EntryOrderField = "updated_at"
	OrderCreatedAt      EntryOrderField = "created_at"
)

// EntryOrder is a sort key and direction.
type EntryOrder struct {
	Field EntryOrderField
	Desc  bool
}

// String names the order, e.g. "title:asc" (cursors carry it).
func (o EntryOrder) String() string {
	if o.Desc {
		return string(o.Field) + ":desc"
	}
	return string(o.Field) + ":asc"
}

// EntryPosition is an entry's place in an EntryOrder: its sort key as the
// store renders it and its id. A page continues strictly after it.
type EntryPosition struct {
	Key string
	ID  int64
}

// EntryQuery selects one page of one book's entries.
type EntryQuery struct {
	Server  string
	Lineage Lineage
	// Collection names the Serverwide collection; required for Serverwide
	// scope, ErrInvalid for a persona lineage.
	Collection string
	// Search, when not empty, keeps the entries whose title, one key, one
	// secondary key or content contains it, case-insensitively, as literal
	// text (no wildcards, no regular expression); at most
	// MaxEntrySearchLen characters.
	Search string
	// EnabledOnly drops entries whose own enabled flag is off.
	EnabledOnly bool
	Order       EntryOrder
	// After, when set, is the position of the previous page's last entry
	// in the same Order.
	After *EntryPosition
	// Limit is the page size, 1 or more.
	Limit int
	// Count asks for EntryPage.Total.
	Count bool
}

// Validate checks the query's own fields (field names as the API spells
// them: "search", "orderBy", "first", "after").
func (q EntryQuery) Validate() error {
	if !utf8.ValidString(q.Search) || strings.IndexByte(q.Search, 0) >= 0 {
		return Reject("search", i18n.InvalidText, nil)
	}
	if n := utf8.RuneCountInString(q.Search); n > MaxEntrySearchLen {
		return Reject("search", i18n.TooLong, Params{"length": n, "max": MaxEntrySearchLen})
	}
	switch q.Order.Field {
	case OrderTitle, OrderInsertionOrder, OrderPriority, OrderUpdatedAt, OrderCreatedAt:
	default:
		return Reject("orderBy", i18n.UnknownSortField, Params{"value": ClipBytes(string(q.Order.Field), 24)})
	}
	if q.Limit < 1 {
		return Reject("first", i18n.AtLeast, Params{"min": 1})
	}
	if q.After != nil && !q.Order.Field.validKey(q.After.Key) {
		return Reject("after", i18n.NotAPosition, Params{"order": q.Order.String()})
	}
	return nil
}

// validKey reports whether key is a sort key of f as a store renders it
// (EntryPosition.Key): a 32-bit integer, a UTC time with microseconds
// ("2006-01-02T15:04:05.000000Z"), or text without NUL characters.
func (f EntryOrderField) validKey(key string) bool {
	switch f {
	case OrderInsertionOrder, OrderPriority:
		_, err := strconv.ParseInt(key, 10, 32)
		return err == nil
	case OrderUpdatedAt, OrderCreatedAt:
		_, err := time.Parse("2006-01-02T15:04:05.000000Z", key)
		return err == nil
	}
	return utf8.ValidString(key) && strings.IndexByte(key, 0) < 0
}

// EntryPage is one page of an EntryQuery.
type EntryPage struct {
	Entries []Entry
	// Positions[i] is Entries[i]'s position, for cursors.
	Positions []EntryPosition
	// HasMore says entries follow the page.
	HasMore bool
	// Total counts every entry the query's filters keep (all pages); -1
	// unless EntryQuery.Count.
	Total int
}

// ServerQuery selects one page of servers by name, then id.
type ServerQuery struct {
	// IDs restricts the listing to these servers unless All.
	IDs []string
	All bool
	// AfterName and AfterID, when AfterID is set, continue after that
	// server.
	AfterName, AfterID string
	// Limit is the page size, 1 or more.
	Limit int
}

// ServerPage is one page of a ServerQuery.
type ServerPage struct {
	Servers []Server
	HasMore bool
	// Total counts the servers the query's restriction keeps.
	Total int
}
