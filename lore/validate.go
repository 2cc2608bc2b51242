package lore

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
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
	n := 0
	for _, r := range s {
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
// snowflakes, no duplicates. field names the list in the error.
func ValidateChannelIDs(field string, ids []string) error {
	if len(ids) > MaxChannelIDs {
		return Invalid(field, "%d channel ids, at most %d allowed", len(ids), MaxChannelIDs)
	}
	seen := make(map[string]struct{}, len(ids))
	for i, id := range ids {
		if !ValidSnowflake(id) {
			return Invalid(indexField(field, i), "%q is not a Discord snowflake", clipForError(id))
		}
		if _, dup := seen[id]; dup {
			return Invalid(indexField(field, i), "duplicate channel id %s", id)
		}
		seen[id] = struct{}{}
	}
	return nil
}

// ValidateCollectionName checks a Serverwide collection name: not blank,
// at most MaxCollectionNameLen UTF-16 code units, valid UTF-8, no control
// characters, no surrounding whitespace.
func ValidateCollectionName(name string) error {
	return validateName("name", name, MaxCollectionNameLen)
}

// ValidatePersonaName checks a persona display name like a collection name,
// with MaxTitleLen.
func ValidatePersonaName(name string) error {
	return validateName("name", name, MaxTitleLen)
}

func validateName(field, name string, max int) error {
	switch {
	case strings.TrimSpace(name) == "":
		return Invalid(field, "must not be blank")
	case !utf8.ValidString(name):
		return Invalid(field, "is not valid UTF-8")
	case strings.TrimSpace(name) != name:
		return Invalid(field, "must not start or end with whitespace")
	case UTF16Len(name) > max:
		return Invalid(field, "is %d characters long, at most %d allowed", UTF16Len(name), max)
	case strings.ContainsFunc(name, isControl):
		return Invalid(field, "must not contain control characters")
	}
	return nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// Validate checks e against the limits and shapes of the contract at the
// default Limits; see ValidateWith.
func (e *Entry) Validate() error { return e.ValidateWith(DefaultLimits()) }

// ValidateWith checks e against the limits and shapes of the contract, with
// the content length limit of lim (zero fields mean defaults), and returns
// an *InvalidError naming the first field that fails. It does not check
// scope capacity, which needs the store's lock. A Serverwide entry must
// have a valid Collection name and no ChannelIDs; a persona entry must have
// no Collection.
func (e *Entry) ValidateWith(lim Limits) error {
	lim = lim.WithDefaults()
	if e.Lineage < 0 {
		return Invalid("lineage", "must be 0 (Serverwide) or a positive lineage id")
	}
	if e.Lineage.IsServerwide() {
		if err := ValidateCollectionName(e.Collection); err != nil {
			return &InvalidError{Field: "collection", Reason: err.(*InvalidError).Reason}
		}
		if len(e.ChannelIDs) > 0 {
			return Invalid("channelIds", "Serverwide entries use their collection's channels")
		}
	} else if e.Collection != "" {
		return Invalid("collection", "persona entries have no collection")
	}
	if e.Server != "" && !ValidSnowflake(e.Server) {
		return Invalid("server", "%q is not a Discord snowflake", clipForError(e.Server))
	}
	if !utf8.ValidString(e.Title) {
		return Invalid("title", "is not valid UTF-8")
	}
	for field, v := range map[string]string{"title": e.Title, "content": e.Content} {
		if strings.IndexByte(v, 0) >= 0 {
			return Invalid(field, "must not contain NUL characters")
		}
	}
	if n := UTF16Len(e.Title); n > MaxTitleLen {
		return Invalid("title", "is %d characters long, at most %d allowed", n, MaxTitleLen)
	}
	if !utf8.ValidString(e.Content) {
		return Invalid("content", "is not valid UTF-8")
	}
	if strings.TrimSpace(e.Content) == "" {
		return Invalid("content", "must not be empty")
	}
	if n := UTF16Len(e.Content); n > lim.ContentChars {
		return Invalid("content", "is %d characters long, at most %d allowed", n, lim.ContentChars)
	}
	if err := validateKeys("keys", e.Keys); err != nil {
		return err
	}
	if err := validateKeys("secondaryKeys", e.SecondaryKeys); err != nil {
		return err
	}
	if e.Logic != "" && !e.Logic.Valid() {
		return Invalid("selectiveLogic", "%q is not one of AND_ANY, AND_ALL, NOT_ANY, NOT_ALL", clipForError(string(e.Logic)))
	}
	if e.ScanDepth != nil && (*e.ScanDepth < MinScanDepth || *e.ScanDepth > MaxScanDepth) {
		return Invalid("scanDepth", "%d is outside %d-%d", *e.ScanDepth, MinScanDepth, MaxScanDepth)
	}
	if e.Order < math.MinInt32 || e.Order > math.MaxInt32 {
		return Invalid("insertionOrder", "%d is outside the 32-bit range", e.Order)
	}
	if e.Priority < math.MinInt32 || e.Priority > math.MaxInt32 {
		return Invalid("priority", "%d is outside the 32-bit range", e.Priority)
	}
	if e.Probability < 0 || e.Probability > 100 {
		return Invalid("probability", "%d is outside 0-100", e.Probability)
	}
	if !e.Placement.Valid() {
		return Invalid("placement", "%q is not before or after", clipForError(string(e.Placement)))
	}
	if e.Role != "" && !e.Role.Valid() {
		return Invalid("role", "%q is not system, user or assistant", clipForError(string(e.Role)))
	}
	if err := e.validateGroupAndTiming(); err != nil {
		return err
	}
	if err := ValidateChannelIDs("channelIds", e.ChannelIDs); err != nil {
		return err
	}
	if len(e.LegacyChannelTags) > MaxChannelIDs {
		return Invalid("legacyChannelTags", "%d names, at most %d allowed", len(e.LegacyChannelTags), MaxChannelIDs)
	}
	for i, tag := range e.LegacyChannelTags {
		if strings.TrimSpace(tag) == "" || !utf8.ValidString(tag) || UTF16Len(tag) > MaxLegacyTagLen || strings.IndexByte(tag, 0) >= 0 {
			return Invalid(indexField("legacyChannelTags", i), "must be a non-blank name of at most %d characters", MaxLegacyTagLen)
		}
	}
	size := 0
	for k, v := range e.Extensions {
		size += len(k) + len(v)
		// Stored as jsonb: valid JSON, and no NUL anywhere (Postgres text and
		// jsonb cannot hold U+0000).
		if !json.Valid(v) {
			return Invalid("extensions", "value of %q is not valid JSON", clipForError(k))
		}
		if strings.IndexByte(k, 0) >= 0 || bytes.Contains(v, []byte(`\u0000`)) {
			return Invalid("extensions", "%q must not contain NUL characters", clipForError(k))
		}
	}
	if size > MaxExtensionsBytes {
		return Invalid("extensions", "%d bytes, at most %d allowed", size, MaxExtensionsBytes)
	}
	return nil
}

// validateGroupAndTiming checks the inclusion-group, recursion and timed
// effect fields.
func (e *Entry) validateGroupAndTiming() error {
	if !utf8.ValidString(e.Group) || strings.IndexByte(e.Group, 0) >= 0 {
		return Invalid("group", "must be valid UTF-8 without NUL characters")
	}
	if n := UTF16Len(e.Group); n > MaxGroupLen {
		return Invalid("group", "is %d characters long, at most %d allowed", n, MaxGroupLen)
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
			return Invalid(r.field, "%d is outside 0-%d", r.v, r.hi)
		}
	}
	return nil
}

func validateKeys(field string, keys []string) error {
	if len(keys) > MaxKeysPerEntry {
		return Invalid(field, "%d keys, at most %d allowed", len(keys), MaxKeysPerEntry)
	}
	for i, k := range keys {
		if !utf8.ValidString(k) {
			return Invalid(indexField(field, i), "is not valid UTF-8")
		}
		if strings.IndexByte(k, 0) >= 0 {
			return Invalid(indexField(field, i), "must not contain NUL characters")
		}
		if n := UTF16Len(k); n > MaxKeyLen {
			return Invalid(indexField(field, i), "is %d characters long, at most %d allowed", n, MaxKeyLen)
		}
	}
	return nil
}

func indexField(field string, i int) string {
	return field + "[" + strconv.Itoa(i) + "]"
}

// clipForError shortens user input quoted in an error message.
func clipForError(s string) string { return ClipBytes(s, 40) }
