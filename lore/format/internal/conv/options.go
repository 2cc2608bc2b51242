package conv

import "fmt"

// Options bound an import. The zero value means every default. Limits are
// bytes unless noted; a file over a limit fails with an error wrapping
// ErrTooLarge that names the limit.
type Options struct {
	// MaxJSONBytes bounds a JSON upload. Default 2 MB (2,000,000 bytes; seed
	// 000 "imports/": "Parsing is limited to 2 MB"; seed 002 "Importando").
	MaxJSONBytes int64
	// MaxPNGBytes bounds a PNG card file. Default 16 MiB, which admits the
	// corpus's 4.08 MB PNG with room to spare (formats.md 4.1 gives no limit).
	MaxPNGBytes int64
	// MaxCardBytes bounds the card JSON taken out of a PNG text chunk (after
	// base64 and inflation) or a CHARX card.json. Default 8 MiB (Risu caps a
	// card chunk at 5 MiB; formats.md 4.1, 4.3).
	MaxCardBytes int64
	// MaxCHARXBytes bounds a CHARX archive file. Default 64 MiB (Risu skips
	// members over 50 MiB; formats.md 4.2).
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
	// PersonaCard keeps only the first lore.MaxEntriesPerScope (250)
	// entries and reports the rest as dropped (seed 000 "Import and
	// export": persona card conversion keeps the first 250).
	PersonaCard bool
}

// Default limits (see Options).
const (
	DefaultMaxJSONBytes       = 2_000_000
	DefaultMaxPNGBytes        = 16 << 20
	DefaultMaxCardBytes       = 8 << 20
	DefaultMaxCHARXBytes      = 64 << 20
	DefaultMaxCHARXEntries    = 4096
	DefaultMaxCHARXTotalBytes = 256 << 20
	DefaultMaxCHARXRatio      = 200
)

// WithDefaults returns o with every zero limit replaced by its default.
func (o Options) WithDefaults() Options {
	if o.MaxJSONBytes <= 0 {
		o.MaxJSONBytes = DefaultMaxJSONBytes
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
// 2000000 bytes". limitName (the Options field) is kept for callers'
// documentation but not shown: users see values, not Go names.
func TooLarge(what string, size int64, limitName string, limit int64) error {
	_ = limitName
	return fmt.Errorf("%s is %w: %d bytes, over the limit of %d bytes", what, ErrTooLarge, size, limit)
}

// ErrNoLorebook: the file is a character card without a book.
var ErrNoLorebook = fmt.Errorf("no lorebook in this card")
