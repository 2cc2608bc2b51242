// Package format detects lorebook file formats and converts them to and
// from the canonical entries of package lore. One sub-package per format
// holds the codec (sillytavern, card, png, charx, novelai, risu, agnai,
// worldbook);
// this package detects the carrier and shape (docs/formats.md) and
// dispatches.
//
// Every import returns a Report (docs/contract.md#imports): entries added,
// skipped entries with a reason, inert entries, unsupported keys, settings
// with no destination, collapsed placements, dropped entries and warnings.
// Imported entries carry no scope (ID 0, Lineage 0, Collection "", Server
// ""); the caller assigns it. Source ids are kept in Extensions and never
// trusted: duplicate or missing ids never lose an entry.
package format

import (
	"errors"
	"fmt"

	"loregate/lore"
	"loregate/lore/format/internal/conv"
)

// Kind names a detected source format; see the Kind* constants.
type Kind = conv.Kind

// The detected formats (docs/formats.md).
const (
	KindSTWorldInfo   = conv.KindSTWorldInfo
	KindChubHybrid    = conv.KindChubHybrid
	KindV1Card        = conv.KindV1Card
	KindV2Card        = conv.KindV2Card
	KindV3Card        = conv.KindV3Card
	KindLorebookV3    = conv.KindLorebookV3
	KindCharacterBook = conv.KindCharacterBook
	KindNovelAI       = conv.KindNovelAI
	KindRisu          = conv.KindRisu
	KindAgnai         = conv.KindAgnai
	KindWorldbook     = conv.KindWorldbook
)

// Container names the carrier of the JSON: json, png or charx.
type Container = conv.Container

// The carriers.
const (
	ContainerJSON  = conv.ContainerJSON
	ContainerPNG   = conv.ContainerPNG
	ContainerCHARX = conv.ContainerCHARX
)

// Book is a converted book without scope; see conv.Book for the fields.
type Book = conv.Book

// Report is the conversion report; its JSON form has the fields format,
// container, entries, skipped, inert, unsupported_keys, ignored_settings,
// collapsed_placements, dropped and warnings.
type Report = conv.Report

// Skip, Inert and UnsupportedKey are report items.
type (
	Skip           = conv.Skip
	Inert          = conv.Inert
	UnsupportedKey = conv.UnsupportedKey
)

// Options bound an import; the zero value gives the documented defaults
// (JSON 2 MB, PNG 16 MiB, card JSON 8 MiB, CHARX 64 MiB, ...).
type Options = conv.Options

// LongEntries is the policy for entries over the content limit: LongSplit
// (default) or LongSkip.
type LongEntries = conv.LongEntries

// The long-entry policies.
const (
	LongSplit = conv.LongSplit
	LongSkip  = conv.LongSkip
)

// SourceCard is the character card a book came in (Book.Card).
type SourceCard = conv.SourceCard

// Notice is a report warning with a reason key (lore/i18n) and params.
type Notice = conv.Notice

// Split is a report item: an entry stored as the parts of a split group.
type Split = conv.Split

// Result is the outcome of Import.
type Result struct {
	// Format is the detected format.
	Format Kind `json:"format"`
	// Container is the carrier the format came in.
	Container Container `json:"container"`
	// Book is the converted book. Empty when err is ErrNoLorebook.
	Book Book `json:"book"`
	// Report is the conversion report (Format and Container repeated).
	Report Report `json:"report"`
}

// Sentinel errors of Import; match them with errors.Is.
var (
	// ErrNoLorebook: the file is a character card without a book (V1 cards
	// always; V2/V3 with no or a null character_book). Import still returns
	// the detected Format and Container. docs/contract.md#imports: a card without a book
	// keeps the selected book unchanged, so this is not a file failure.
	ErrNoLorebook = conv.ErrNoLorebook
	// ErrUnknownFormat: no detection rule matched. The error text names
	// what was recognised (PNG without a card chunk, JSON without entries...).
	ErrUnknownFormat = errors.New("unknown lorebook format")
	// ErrTooLarge: the file or a part of it is over a limit of Options; the
	// error names the limit.
	ErrTooLarge = conv.ErrTooLarge
	// ErrNotLorebookFile: the file is neither JSON, PNG nor a zip (CHARX):
	// plain text, a document, an image of another kind. It wraps
	// ErrUnknownFormat and its text lists Readable.
	ErrNotLorebookFile = fmt.Errorf("%w: this is not a lorebook file; loregate reads %s", ErrUnknownFormat, Readable)
)

// Readable lists the files Import reads, for messages that name them
// (docs/formats.md).
const Readable = "SillyTavern world info (JSON), Tavern Helper worldbooks (JSON), character cards (JSON, PNG, CHARX), " +
	"Character Card V3 lorebooks (JSON), NovelAI lorebooks, scenarios and stories, RisuAI exports and Agnai memory books (JSON)"

// DescribeSettings lists the set book settings of s for a report line, e.g.
// "scan depth 5, budget 2048 tokens, recursive true".
func DescribeSettings(s lore.BookSettings, unit lore.BudgetUnit) string {
	return conv.DescribeSettings(s, unit)
}
