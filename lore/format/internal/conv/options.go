package conv

import (
	"fmt"

	"loregate/lore"
)

// LongEntries says what an import does with an entry whose content is over
// the content limit (Options.Limits.ContentChars).
type LongEntries string

// The two long-entry policies.
const (
	// LongSplit (the default) splits the content at paragraph, then
	// sentence boundaries into parts of a split group (lore.KeySplit), each
	// part one stored entry.
	LongSplit LongEntries = "split"
	// LongSkip skips the entry and reports it.
	LongSkip LongEntries = "skip"
)

// Options bound an import. The zero value means every default. Limits are
// bytes unless noted; a file over a limit fails with an error wrapping
// ErrTooLarge that names the limit.
type Options struct {
	// Limits are the deployment's limits (zero fields: defaults): content
	// length (long entries are split or skipped, see LongEntries), the
	// scope capacity (persona card conversion keeps that many entries) and
	// the JSON size (the default of MaxJSONBytes).
	Limits lore.Limits
	// LongEntries is the policy for content over Limits.ContentChars;
	// "" means LongSplit.
	LongEntries LongEntries
	// MaxJSONBytes bounds a JSON upload. Default Limits.JSONBytes (2 MB,
	// 2,000,000 bytes; docs/api.md "Limits").
	MaxJSONBytes int64
	// MaxPNGBytes bounds a PNG card file. Default 16 MiB, which admits the
	// corpus's 4.08 MB PNG with room to spare (docs/formats.md gives no limit).
	MaxPNGBytes int64
	// MaxCardBytes bounds the card JSON taken out of a PNG text chunk (after
	// base64 and inflation) or a CHARX card.json. Default 8 MiB (Risu caps a
	// card chunk at 5 MiB; docs/formats.md).
	MaxCardBytes int64
	// MaxCHARXBytes bounds a CHARX archive file. Default 64 MiB (Risu skips
	// members over 50 MiB; docs/formats.md).
	MaxCHARXBytes int64
	// MaxCHARXEntries bounds the number of members of a CHARX archive
	// (count). Default 4096.
	MaxCHARXEntries int
	// MaxCHARXTotalBytes bounds the declared uncompressed size of all CHARX
	// members together. Default 256 MiB. Only card.json is ever inflated.
	MaxCHARXTotalBytes int64
	// MaxCHARXRatio bounds the compression ratio (uncompressed/compressed)
	// of a member. Default 200.
	MaxCHARXRatio int64
	// PersonaCard keeps only the first Limits.ScopeEntries (250) entries,
	// counted after splitting and never cutting a split group, and reports
	// the rest as dropped (docs/formats.md: persona card conversion keeps
	// the first 250).
	PersonaCard bool
}

// Default limits (see Options).
const (
	DefaultMaxPNGBytes        = 16 << 20
	DefaultMaxCardBytes       = 8 << 20
	DefaultMaxCHARXBytes      = 64 << 20
	DefaultMaxCHARXEntries    = 4096
	DefaultMaxCHARXTotalBytes = 256 << 20
	DefaultMaxCHARXRatio      = 200
)

// WithDefaults returns o with every zero limit replaced by its default.
func (o Options) WithDefaults() Options {
	o.Limits = o.Limits.WithDefaults()
	if o.LongEntries == "" {
		o.LongEntries = LongSplit
	}
	if o.MaxJSONBytes <= 0 {
		o.MaxJSONBytes = o.Limits.JSONBytes
	}
	if o.MaxPNGBytes <= 0 {
		o.MaxPNGBytes = DefaultMaxPNGBytes
	}
	if o.MaxCardBytes <= 0 {
		o.MaxCardBytes = DefaultMaxCardBytes
	}
	if o.MaxCHARXBytes <= 0 {
		o.MaxCHARXBytes = DefaultMaxCHARXBytes
	}
	if o.MaxCHARXEntries <= 0 {
		o.MaxCHARXEntries = DefaultMaxCHARXEntries
	}
	if o.MaxCHARXTotalBytes <= 0 {
		o.MaxCHARXTotalBytes = DefaultMaxCHARXTotalBytes
	}
	if o.MaxCHARXRatio <= 0 {
		o.MaxCHARXRatio = DefaultMaxCHARXRatio
	}
	return o
}

// ErrTooLarge is wrapped by every "over a limit" error.
var ErrTooLarge = fmt.Errorf("too large")

// TooLarge returns an error wrapping ErrTooLarge that names what and the
// limit, e.g. "json file is too large: 3507913 bytes, over the limit of
// 2000000 bytes". setting, when not empty, is the deployment setting that
// raises the limit (lore.EnvMaxJSONBytes) and is named in the message.
func TooLarge(what string, size int64, setting string, limit int64) error {
	if setting != "" {
		return fmt.Errorf("%s is %w: %d bytes, %d over the limit of %d bytes (an operator raises it with %s)",
			what, ErrTooLarge, size, size-limit, limit, setting)
	}
	return fmt.Errorf("%s is %w: %d bytes, over the limit of %d bytes", what, ErrTooLarge, size, limit)
}

// ErrNoLorebook: the file is a character card without a book.
var ErrNoLorebook = fmt.Errorf("no lorebook in this card")
