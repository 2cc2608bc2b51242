// Package conv holds the types and helpers shared by the format codecs of
// loregate/lore/format: the converted Book, the conversion Report, the import
// Options with their limits, key cleaning and the extension naming scheme.
// Package format re-exports the public types as aliases.
package conv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"loregate/lore"
	"loregate/lore/i18n"
)

// Kind names a detected source format (docs/formats.md).
type Kind string

// The formats Import recognises. The string values are stable: they appear in
// reports and the GraphQL API.
const (
	KindSTWorldInfo   Kind = "st-worldinfo"   // SillyTavern world info file (docs/formats.md)
	KindChubHybrid    Kind = "chub-hybrid"    // Chub/Venus hybrid lorebook (docs/formats.md)
	KindV1Card        Kind = "v1-card"        // Character Card V1: never has a book (docs/formats.md)
	KindV2Card        Kind = "v2-card"        // chara_card_v2 (docs/formats.md)
	KindV3Card        Kind = "v3-card"        // chara_card_v3 (docs/formats.md)
	KindLorebookV3    Kind = "lorebook-v3"    // standalone {spec:"lorebook_v3"} (docs/formats.md)
	KindCharacterBook Kind = "character-book" // bare V2/V3 character_book object (docs/formats.md)
	KindNovelAI       Kind = "novelai"        // .lorebook, or the book in .scenario/.story (docs/formats.md)
	KindRisu          Kind = "risu"           // {type:"risu"} export (docs/formats.md)
	KindAgnai         Kind = "agnai"          // {kind:"memory"} book (docs/formats.md)
	KindWorldbook     Kind = "worldbook"      // Tavern Helper worldbook (docs/formats.md)
)

// Container names the carrier the JSON came in.
type Container string

// The carriers (JSON, PNG, CHARX; docs/formats.md).
const (
	ContainerJSON  Container = "json"
	ContainerPNG   Container = "png"
	ContainerCHARX Container = "charx"
)

// Book is a converted lorebook without scope: entries have ID 0, Lineage 0,
// Collection "" and Server "", and the caller assigns scope before storing.
type Book struct {
	// Name is the book name from the file, else the file name without its
	// extension (docs/contract.md#imports: name in the file, then file name).
	Name string `json:"name"`
	// Description is the book description when the format has one.
	Description string `json:"description,omitempty"`
	// Character is the character's name when the file is a character card
	// (set also when the card has no book), else "".
	Character string `json:"character,omitempty"`
	// Entries are the imported entries in source order.
	Entries []lore.Entry `json:"entries"`
	// Settings are the book's settings from the file (card character_book
	// scan_depth, token_budget and recursive_scanning, Agnai's, and the
	// SettingsKey object loregate writes); zero when it has none.
	Settings lore.BookSettings `json:"settings,omitzero"`
	// BudgetUnit is what Settings.BudgetLimit counts: tokens for every
	// format's native budget; "" when the book has no budget.
	BudgetUnit lore.BudgetUnit `json:"budgetUnit,omitempty"`
	// Extensions keeps book-level source fields that have no canonical home,
	// values verbatim, keys namespaced like entry extensions ("st/originalData",
	// "card/token_budget", ...), so the same-format export is lossless.
	Extensions map[string]json.RawMessage `json:"extensions,omitempty"`
	// NameFromFile reports that the file had no book name and Name is the
	// file name; exports then write no name where the source had none,
	// and other formats get no file name as the book's name.
	NameFromFile bool `json:"-"`
	// Card is the character card the book came in (nil for standalone
	// books), kept so that a card export returns the whole card with the
	// edited book inside.
	Card *SourceCard `json:"-"`
	// CharacterContext is the character of a V2/V3 card (its name, tags
	// and texts; set also when the card has no book), nil for other files.
	CharacterContext *lore.CharacterContext `json:"-"`
}

// SourceCard is the character card a book was imported from.
type SourceCard struct {
	// Container is the carrier: json, png or charx.
	Container Container
	// JSON is the card JSON (for a PNG, of the chunk that was read).
	JSON []byte
	// File is the original PNG or CHARX file (image, assets); nil for JSON.
	File []byte
}

// Skip is an entry that the importer could not use.
type Skip struct {
	// Index is the entry's 0-based position in source order.
	Index int `json:"index"`
	// Title is the entry title (possibly empty).
	Title string `json:"title"`
	// Reason says why, without file content.
	Reason string `json:"reason"`
}

// Inert is an imported entry that nothing can activate: no usable key, not
// constant and not vectorized (a vectorized entry is admitted by
// similarity, docs/contract.md#semantic).
type Inert struct {
	Index int    `json:"index"`
	Title string `json:"title"`
	// Reason says why no key can act: "no keys", or the problem of the
	// keys the file had (for example "keys are not text (a number)").
	Reason string `json:"reason"`
}

// UnsupportedKey is a key the engine cannot use: blank, over a limit, or a
// /regex/ that RE2 cannot compile (docs/contract.md#matching).
type UnsupportedKey struct {
	Index int    `json:"index"`
	Title string `json:"title"`
	// Key is the key, shortened to a short quoted snippet.
	Key    string `json:"key"`
	Reason string `json:"reason"`
}

// Split is an entry over the content limit that was imported as the parts
// of a split group (docs/formats.md "Long entries").
type Split struct {
	// Index is the entry's 0-based position in source order.
	Index int    `json:"index"`
	Title string `json:"title"`
	// Characters is the content length, UTF-16 code units.
	Characters int `json:"characters"`
	// Parts is the number of stored parts.
	Parts int `json:"parts"`
}

// Report is the conversion report of docs/contract.md#imports: entries added,
// skipped with reasons, inert entries, unsupported keys, settings with no
// destination (counted per name), collapsed placements, dropped entries and
// warnings. It never contains file content beyond short snippets.
type Report struct {
	Format    Kind      `json:"format"`
	Container Container `json:"container,omitempty"`
	// Entries is the number of entries in the converted book (= added).
	Entries int     `json:"entries"`
	Skipped []Skip  `json:"skipped"`
	Inert   []Inert `json:"inert"`
	// Split lists the entries over the content limit stored as several
	// parts (each part counts toward the scope limit).
	Split           []Split          `json:"split"`
	UnsupportedKeys []UnsupportedKey `json:"unsupported_keys"`
	// IgnoredSettings counts, per setting name, the entries (or books) that
	// set a value the canonical model has no destination for.
	IgnoredSettings map[string]int `json:"ignored_settings"`
	// CollapsedPlacements counts entries whose richer source position
	// (world info positions 2-7, depth) became "before".
	CollapsedPlacements int `json:"collapsed_placements"`
	// Dropped counts entries beyond the persona limit (Options.PersonaCard).
	Dropped  int      `json:"dropped"`
	Warnings []string `json:"warnings"`
	// Notices are the warnings that carry a reason key (lore/i18n) and
	// params, for clients that render them in the member's language;
	// each one's English text is also in Warnings.
	Notices []Notice `json:"notices,omitempty"`
}

// Notice is a report warning with a reason key and its params.
type Notice = i18n.Notice

// Notef appends a warning with a reason key (lore/i18n) and its params:
// a Notice, for clients that render it in the member's language, and its
// English text in Warnings. Every warning of a report is a notice
// (TestNoGenericReason refuses a warning appended another way).
func (r *Report) Notef(reason i18n.Key, params map[string]any) {
	if params == nil {
		params = map[string]any{} // a JSON object in the report, never null
	}
	r.Notices = append(r.Notices, Notice{Reason: reason, Params: params})
	r.Warnings = append(r.Warnings, i18n.Text(i18n.EN, reason, params))
}

// PrependNotices puts ns, with their English texts, before the report's
// own warnings (a container's notices before those of the card inside).
func (r *Report) PrependNotices(ns []Notice) {
	if len(ns) == 0 {
		return
	}
	texts := make([]string, len(ns))
	ns = slices.Clone(ns)
	for i, n := range ns {
		texts[i] = n.Text(i18n.EN)
		if n.Params == nil {
			ns[i].Params = map[string]any{}
		}
	}
	r.Notices = append(ns, r.Notices...)
	r.Warnings = append(texts, r.Warnings...)
}

// Ignore counts one occurrence of a setting with no destination.
func (r *Report) Ignore(name string) {
	if r.IgnoredSettings == nil {
		r.IgnoredSettings = map[string]int{}
	}
	r.IgnoredSettings[name]++
}

// Normalize replaces nil slices and maps with empty ones so the JSON form
// always has every field.
func (r *Report) Normalize() {
	if r.Skipped == nil {
		r.Skipped = []Skip{}
	}
	if r.Inert == nil {
		r.Inert = []Inert{}
	}
	if r.Split == nil {
		r.Split = []Split{}
	}
	if r.UnsupportedKeys == nil {
		r.UnsupportedKeys = []UnsupportedKey{}
	}
	if r.IgnoredSettings == nil {
		r.IgnoredSettings = map[string]int{}
	}
	if r.Warnings == nil {
		r.Warnings = []string{}
	}
}

// NotText names the JSON kind of raw when it is a value but not a string
// ("a number", "true or false", "a list", "an object"), else "" (a string,
// null or an absent field). Decoders use it to say why a text field was
// not read (BUG-62: content 42 is "not text", not "no content").
func NotText(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return ""
	}
	switch t[0] {
	case '"', 'n':
		return ""
	case 't', 'f':
		return "true or false"
	case '[':
		return "a list"
	case '{':
		return "an object"
	}
	return "a number"
}

// KeyProblem is a key removed or flagged by CleanKeys.
type KeyProblem struct {
	Key    string
	Reason string
}

// CleanKeys trims nothing (keys are kept as written: NovelAI leading spaces
// are meaningful) but removes blank keys and keys over lore.MaxKeyLen, keeps
// at most lore.MaxKeysPerEntry keys, and flags /regex/ keys RE2 cannot
// compile (kept: they never match). It returns the kept keys (never nil
// when keys is non-nil) and the problems found.
func CleanKeys(keys []string) ([]string, []KeyProblem) {
	if keys == nil {
		return nil, nil
	}
	kept := make([]string, 0, len(keys))
	var probs []KeyProblem
	for _, k := range keys {
		switch {
		case strings.TrimSpace(k) == "":
			probs = append(probs, KeyProblem{k, "empty key"})
			continue
		case !utf8.ValidString(k):
			probs = append(probs, KeyProblem{k, "not valid UTF-8"})
			continue
		case lore.UTF16Len(k) > lore.MaxKeyLen:
			probs = append(probs, KeyProblem{k, fmt.Sprintf("longer than %d characters", lore.MaxKeyLen)})
			continue
		case len(kept) >= lore.MaxKeysPerEntry:
			probs = append(probs, KeyProblem{k, fmt.Sprintf("more than %d keys in the entry", lore.MaxKeysPerEntry)})
			continue
		}
		if isRegex, problem := lore.CheckRegexKey(k); isRegex && problem != "" {
			probs = append(probs, KeyProblem{k, problem})
		}
		kept = append(kept, k)
	}
	return kept, probs
}

// SplitKeyString splits a key list stored as one string (RisuAI key and
// secondkey, Agnai text input) on , ， 、 ; ； and newlines, trimming each
// part and dropping empty parts (cases BUG-10).
func SplitKeyString(s string) []string {
	parts := strings.FieldsFunc(s, func(r rune) bool {
		switch r {
		case ',', '，', '、', ';', '；', '\n', '\r':
			return true
		}
		return false
	})
	out := make([]string, 0, len(parts))
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Title returns s cut to lore.MaxTitleLen UTF-16 code units and whether it
// was cut. Importers keep the full source value in extensions when it is.
func Title(s string) (string, bool) {
	if lore.UTF16Len(s) <= lore.MaxTitleLen {
		return s, false
	}
	n := 0
	for i, r := range s {
		w := 1
		if r > 0xFFFF {
			w = 2
		}
		if n+w > lore.MaxTitleLen {
			return s[:i], true
		}
		n += w
	}
	return s, false
}

// Snippet quotes at most 40 bytes of s for an error or report message.
func Snippet(s string) string {
	return fmt.Sprintf("%q", lore.ClipBytes(s, 40))
}

// SortedKeys returns the keys of m in sorted order.
func SortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// BaseName returns a file name without directory and extension, the
// default book name (docs/contract.md#imports: the name in the file, else the
// file name).
func BaseName(fileName string) string {
	fileName = strings.ReplaceAll(fileName, "\\", "/")
	if i := strings.LastIndexByte(fileName, '/'); i >= 0 {
		fileName = fileName[i+1:]
	}
	if i := strings.LastIndexByte(fileName, '.'); i > 0 {
		fileName = fileName[:i]
	}
	return fileName
}
