package lore

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"loregate/lore/i18n"
)

// Limits of the storage contract. Lengths are UTF-16 code units (see
// UTF16Len). docs/contract.md#limits fixes MaxEntriesPerScope and MaxContentLen;
// the rest are loregate's own bounds, chosen to admit every book in the
// reference corpus.
const (
	// MaxEntriesPerScope is the capacity of one scope: one persona lineage,
	// or all Serverwide collections of a server together (docs/contract.md#limits).
	MaxEntriesPerScope = 250
	// MaxContentLen is the longest entry content (docs/contract.md#limits: 4,000 UTF-16 units).
	MaxContentLen = 4000
	// MaxTitleLen is the longest entry title or persona name.
	MaxTitleLen = 200
	// MaxNoteLen is the longest creator note of an entry (Entry.Note).
	MaxNoteLen = 4000
	// MaxCategoryNameLen is the longest category name.
	MaxCategoryNameLen = 100
	// MaxBookDescriptionLen is the longest book description, in
	// characters.
	MaxBookDescriptionLen = 20000
	// MaxBookTags and MaxBookTagLen bound a book's tags.
	MaxBookTags   = 50
	MaxBookTagLen = 100
	// MaxKeysPerEntry bounds Keys and SecondaryKeys, each.
	MaxKeysPerEntry = 100
	// MaxKeyLen is the longest key, regex keys included.
	MaxKeyLen = 400
	// MaxCollectionNameLen is the longest collection name (Discord select
	// option labels hold 100 characters).
	MaxCollectionNameLen = 100
	// MaxChannelIDs bounds a channel id list and a legacy channel tag list.
	MaxChannelIDs = 100
	// MaxLegacyTagLen is the longest pending legacy channel name.
	MaxLegacyTagLen = 100
	// MinScanDepth and MaxScanDepth bound Entry.ScanDepth and
	// BookSettings.ScanDepth. An explicit 0 is a real value that scans no
	// chat message (docs/configuration.md extends the panel's 1-100 range to
	// 0-100).
	MinScanDepth = 0
	MaxScanDepth = 100
	// MaxExtensionsBytes bounds the JSON size of Entry.Extensions.
	MaxExtensionsBytes = 64 << 10
	// MaxCollectionsPerServer bounds the number of Serverwide collections.
	MaxCollectionsPerServer = 250
	// MaxGroupLen bounds Entry.Group (comma-separated group names).
	MaxGroupLen = MaxKeyLen
	// MaxGroupWeight bounds Entry.GroupWeight (0..MaxGroupWeight).
	MaxGroupWeight = 1_000_000
	// MaxDelayUntilRecursion bounds Entry.DelayUntilRecursion, a recursion
	// level (0 = no delay).
	MaxDelayUntilRecursion = 1000
	// MaxTimedEffect bounds Entry.Sticky, Cooldown and Delay, counted in
	// chat messages.
	MaxTimedEffect = 100_000
)

// UTF16Len returns the length of s in UTF-16 code units, the unit JavaScript's
// String.length counts and the unit of every length limit here. Invalid
// UTF-8 bytes count as one unit each (they become U+FFFD).
func UTF16Len(s string) int {
	// An ASCII byte is one unit: take eight at a time while they are.
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if (s[i]|s[i+1]|s[i+2]|s[i+3]|s[i+4]|s[i+5]|s[i+6]|s[i+7])&0x80 != 0 {
			break
		}
	}
	n := i
	for _, r := range s[i:] {
		n += utf16.RuneLen(r)
	}
	return n
}

// ValidSnowflake reports whether s has Discord snowflake syntax: 17 to 20
// ASCII digits without a leading zero. It checks syntax only; resolution
// against a guild is the caller's job (docs/contract.md#permissions).
func ValidSnowflake(s string) bool {
	if len(s) < 17 || len(s) > 20 || s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// ValidateChannelIDs checks a channel id list: at most MaxChannelIDs
// snowflakes, no duplicates. field names the list in the error; every
// failing id is reported (Others).
func ValidateChannelIDs(field string, ids []string) error {
	if len(ids) > MaxChannelIDs {
		return Reject(field, i18n.TooManyChannelIDs, Params{"count": len(ids), "max": MaxChannelIDs})
	}
	var fe FieldErrors
	seen := make(map[string]struct{}, len(ids))
	for i, id := range ids {
		if !ValidSnowflake(id) {
			fe.Add(Reject(indexField(field, i), i18n.NotSnowflake, Params{"value": clipForError(id)}))
			continue
		}
		if _, dup := seen[id]; dup {
			fe.Add(Reject(indexField(field, i), i18n.DuplicateChannel, Params{"value": id}))
		}
		seen[id] = struct{}{}
	}
	return fe.Err()
}

// ValidateCollectionName checks a Serverwide collection name: not blank,
// at most MaxCollectionNameLen UTF-16 code units, valid UTF-8, no control
// characters, no surrounding whitespace.
func ValidateCollectionName(name string) error {
	return validateName("name", name, MaxCollectionNameLen)
}

// ValidateCategoryName checks a category name like a collection name,
// with MaxCategoryNameLen.
func ValidateCategoryName(name string) error {
	return validateName("name", name, MaxCategoryNameLen)
}

// ValidateTag checks one book tag (named field in the error) like a
// collection name, with MaxBookTagLen.
func ValidateTag(field, tag string) error {
	return validateName(field, tag, MaxBookTagLen)
}

// ValidateDescription checks a book description: valid UTF-8 without NUL,
// at most MaxBookDescriptionLen UTF-16 code units; empty is allowed.
func ValidateDescription(d string) error {
	return validateText("description", d, MaxBookDescriptionLen, false)
}

// ValidatePersonaName checks a persona display name like a collection name,
// with MaxTitleLen.
func ValidatePersonaName(name string) error {
	return validateName("name", name, MaxTitleLen)
}

func validateName(field, name string, max int) error {
	switch {
	case strings.TrimSpace(name) == "":
		return Reject(field, i18n.Blank, nil)
	case !utf8.ValidString(name):
		return Reject(field, i18n.InvalidUTF8, nil)
	case strings.TrimSpace(name) != name:
		return Reject(field, i18n.SurroundingSpace, nil)
	case UTF16Len(name) > max:
		return Reject(field, i18n.TooLong, Params{"length": UTF16Len(name), "max": max})
	case strings.ContainsFunc(name, isControl):
		return Reject(field, i18n.HasControl, nil)
	}
	return nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// Validate checks e against the limits and shapes of the contract at the
// default Limits; see ValidateWith.
func (e *Entry) Validate() error { return e.ValidateWith(DefaultLimits()) }

// ValidateWith checks e against the limits and shapes of the contract, with
// the content length limit of lim (zero fields mean defaults), and returns
// an *InvalidError naming the first field that fails, with every other
// failing field in its Others (one error per field). It does not check
// scope capacity, which needs the store's lock. A Serverwide entry must
// have a valid Collection name and no ChannelIDs; a persona entry must have
// no Collection.
func (e *Entry) ValidateWith(lim Limits) error {
	lim = lim.WithDefaults()
	var fe FieldErrors
	fe.Add(e.validateScope())
	fe.Add(validateText("title", e.Title, MaxTitleLen, false))
	fe.Add(validateText("content", e.Content, lim.ContentChars, true))
	fe.Add(validateText("note", e.Note, MaxNoteLen, false))
	if e.CategoryID < 0 {
		fe.Add(Reject("categoryId", i18n.NotPositiveID, nil))
	}
	fe.Add(validateKeys("keys", e.Keys))
	fe.Add(validateKeys("secondaryKeys", e.SecondaryKeys))
	e.validateChoices(&fe)
	e.validateGroupAndTiming(&fe)
	e.validatePosition(&fe)
	fe.Add(ValidateChannelIDs("channelIds", e.ChannelIDs))
	fe.Add(e.validateLegacyTags())
	fe.Add(e.validateExtensions())
	return fe.Err()
}

// validateScope checks lineage, collection, channels and server.
func (e *Entry) validateScope() error {
	var fe FieldErrors
	if e.Lineage < 0 {
		fe.Add(Reject("lineage", i18n.BadLineage, nil))
	} else if e.Lineage.IsServerwide() {
		if err := ValidateCollectionName(e.Collection); err != nil {
			ie := err.(*InvalidError)
			fe.Add(&InvalidError{Field: "collection", Reason: ie.Reason, Key: ie.Key, Params: ie.Params})
		}
		if len(e.ChannelIDs) > 0 {
			fe.Add(Reject("channelIds", i18n.NoChannelsServerwide, nil))
		}
	} else if e.Collection != "" {
		fe.Add(Reject("collection", i18n.NoCollectionPersona, nil))
	}
	if e.Server != "" && !ValidSnowflake(e.Server) {
		fe.Add(Reject("server", i18n.NotSnowflake, Params{"value": clipForError(e.Server)}))
	}
	return fe.Err()
}

// validateText checks a title or content: valid UTF-8, no NUL, at most max
// UTF-16 units, and not blank when required.
func validateText(field, v string, max int, required bool) error {
	switch {
	case !utf8.ValidString(v):
		return Reject(field, i18n.InvalidUTF8, nil)
	case strings.IndexByte(v, 0) >= 0:
		return Reject(field, i18n.HasNUL, nil)
	case required && strings.TrimSpace(v) == "":
		return Reject(field, i18n.Empty, nil)
	}
	if n := UTF16Len(v); n > max {
		return Reject(field, i18n.TooLong, Params{"length": n, "max": max})
	}
	return nil
}

// validateChoices checks the enumerations and numeric fields of the
// activation rules.
func (e *Entry) validateChoices(fe *FieldErrors) {
	if e.Logic != "" && !e.Logic.Valid() {
		fe.Add(Reject("selectiveLogic", i18n.NotOneOf, Params{"value": clipForError(string(e.Logic)), "allowed": "AND_ANY, AND_ALL, NOT_ANY, NOT_ALL"}))
	}
	if e.ScanDepth != nil && (*e.ScanDepth < MinScanDepth || *e.ScanDepth > MaxScanDepth) {
		fe.Add(outOfRange("scanDepth", *e.ScanDepth, MinScanDepth, MaxScanDepth))
	}
	if e.Order < math.MinInt32 || e.Order > math.MaxInt32 {
		fe.Add(Reject("insertionOrder", i18n.Not32Bit, Params{"value": e.Order}))
	}
	if e.Priority < math.MinInt32 || e.Priority > math.MaxInt32 {
		fe.Add(Reject("priority", i18n.Not32Bit, Params{"value": e.Priority}))
	}
	if e.Probability < 0 || e.Probability > 100 {
		fe.Add(outOfRange("probability", e.Probability, 0, 100))
	}
	if !e.Placement.Valid() {
		fe.Add(Reject("placement", i18n.NotOneOf, Params{"value": clipForError(string(e.Placement)), "allowed": "before, after"}))
	}
	if e.Role != "" && !e.Role.Valid() {
		fe.Add(Reject("role", i18n.NotOneOf, Params{"value": clipForError(string(e.Role)), "allowed": "system, user, assistant"}))
	}
}

// outOfRange is the error of a number outside lo-hi.
func outOfRange(field string, v, lo, hi int) error {
	return Reject(field, i18n.OutOfRange, Params{"value": v, "min": lo, "max": hi})
}

// validateLegacyTags checks the pending legacy channel names.
func (e *Entry) validateLegacyTags() error {
	if len(e.LegacyChannelTags) > MaxChannelIDs {
		return Reject("legacyChannelTags", i18n.TooManyNames, Params{"count": len(e.LegacyChannelTags), "max": MaxChannelIDs})
	}
	var fe FieldErrors
	for i, tag := range e.LegacyChannelTags {
		if strings.TrimSpace(tag) == "" || !utf8.ValidString(tag) || UTF16Len(tag) > MaxLegacyTagLen || strings.IndexByte(tag, 0) >= 0 {
			fe.Add(Reject(indexField("legacyChannelTags", i), i18n.BadLegacyTag, Params{"max": MaxLegacyTagLen}))
		}
	}
	return fe.Err()
}

// validateExtensions checks the source-format fields: valid JSON without
// NUL (stored as jsonb, which cannot hold U+0000), at most
// MaxExtensionsBytes together.
func (e *Entry) validateExtensions() error {
	size := 0
	for k, v := range e.Extensions {
		size += len(k) + len(v)
		if !json.Valid(v) {
			return Reject("extensions", i18n.ExtensionNotJSON, Params{"name": clipForError(k)})
		}
		if strings.IndexByte(k, 0) >= 0 || bytes.Contains(v, []byte(`\u0000`)) {
			return Reject("extensions", i18n.ExtensionHasNUL, Params{"name": clipForError(k)})
		}
	}
	if size > MaxExtensionsBytes {
		return Reject("extensions", i18n.TooManyBytes, Params{"size": size, "max": MaxExtensionsBytes})
	}
	return nil
}

// validateGroupAndTiming checks the inclusion-group, recursion and timed
// effect fields.
func (e *Entry) validateGroupAndTiming(fe *FieldErrors) {
	switch {
	case !utf8.ValidString(e.Group):
		fe.Add(Reject("group", i18n.InvalidUTF8, nil))
	case strings.IndexByte(e.Group, 0) >= 0:
		fe.Add(Reject("group", i18n.HasNUL, nil))
	case UTF16Len(e.Group) > MaxGroupLen:
		fe.Add(Reject("group", i18n.TooLong, Params{"length": UTF16Len(e.Group), "max": MaxGroupLen}))
	}
	ranges := []struct {
		field string
		v, hi int
	}{
		{"groupWeight", e.GroupWeight, MaxGroupWeight},
		{"delayUntilRecursion", e.DelayUntilRecursion, MaxDelayUntilRecursion},
		{"sticky", e.Sticky, MaxTimedEffect},
		{"cooldown", e.Cooldown, MaxTimedEffect},
		{"delay", e.Delay, MaxTimedEffect},
	}
	for _, r := range ranges {
		if r.v < 0 || r.v > r.hi {
			fe.Add(outOfRange(r.field, r.v, 0, r.hi))
		}
	}
}

func validateKeys(field string, keys []string) error {
	if len(keys) > MaxKeysPerEntry {
		return Reject(field, i18n.TooManyKeys, Params{"count": len(keys), "max": MaxKeysPerEntry})
	}
	var fe FieldErrors
	for i, k := range keys {
		f := indexField(field, i)
		switch {
		case !utf8.ValidString(k):
			fe.Add(Reject(f, i18n.InvalidUTF8, nil))
		case strings.IndexByte(k, 0) >= 0:
			fe.Add(Reject(f, i18n.HasNUL, nil))
		case UTF16Len(k) > MaxKeyLen:
			fe.Add(Reject(f, i18n.TooLong, Params{"length": UTF16Len(k), "max": MaxKeyLen}))
		}
	}
	return fe.Err()
}

func indexField(field string, i int) string {
	return field + "[" + strconv.Itoa(i) + "]"
}

// clipForError shortens user input quoted in an error message.
func clipForError(s string) string { return ClipBytes(s, 40) }

// CheckLineage refuses a negative lineage for field (bad_lineage): 0 is
// Serverwide, a positive lineage a persona's book.
func CheckLineage(field string, l Lineage) error {
	if l < 0 {
		return Reject(field, i18n.BadLineage, nil)
	}
	return nil
}

// CheckSnowflake refuses v for field when it is not a Discord snowflake
// (not_snowflake, quoting v clipped to 40 bytes).
func CheckSnowflake(field, v string) error {
	if !ValidSnowflake(v) {
		return Reject(field, i18n.NotSnowflake, Params{"value": clipForError(v)})
	}
	return nil
}
