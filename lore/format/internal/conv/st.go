package conv

import (
	"encoding/json"
	"strings"
)

// Extension key prefixes. Every codec keeps the source fields the canonical
// entry has no field for (and the raw source value of a canonical field
// when the canonical value is a lossy reading of it) under
// "<prefix><source field name>", value verbatim.
const (
	// PrefixST: SillyTavern world info entry fields in their camelCase
	// world-info spelling ("st/depth", "st/uid"), and ST book fields.
	PrefixST = "st/"
	// PrefixCard: top-level card book entry fields ("card/id", "card/use_regex").
	PrefixCard = "card/"
	// PrefixCardExt: keys of a card entry's extensions object, spelled as in
	// the source ("card/extensions/display_index").
	PrefixCardExt = "card/extensions/"
	// PrefixNovelAI, PrefixRisu, PrefixAgnai: native fields of those formats.
	PrefixNovelAI = "novelai/"
	PrefixRisu    = "risu/"
	PrefixAgnai   = "agnai/"
)

// stCardNames maps SillyTavern world info field names to the key ST writes
// in a card entry's extensions (docs/formats.md). Note the two
// camelCase ones, selectiveLogic and useProbability.
var stCardNames = [...][2]string{
	{"position", "position"},
	{"excludeRecursion", "exclude_recursion"},
	{"preventRecursion", "prevent_recursion"},
	{"delayUntilRecursion", "delay_until_recursion"},
	{"displayIndex", "display_index"},
	{"probability", "probability"},
	{"useProbability", "useProbability"},
	{"depth", "depth"},
	{"selectiveLogic", "selectiveLogic"},
	{"group", "group"},
	{"groupOverride", "group_override"},
	{"groupWeight", "group_weight"},
	{"scanDepth", "scan_depth"},
	{"caseSensitive", "case_sensitive"},
	{"matchWholeWords", "match_whole_words"},
	{"useGroupScoring", "use_group_scoring"},
	{"automationId", "automation_id"},
	{"role", "role"},
	{"vectorized", "vectorized"},
	{"sticky", "sticky"},
	{"cooldown", "cooldown"},
	{"delay", "delay"},
	{"outletName", "outlet_name"},
	{"triggers", "triggers"},
	{"ignoreBudget", "ignore_budget"},
	{"matchPersonaDescription", "match_persona_description"},
	{"matchCharacterDescription", "match_character_description"},
	{"matchCharacterPersonality", "match_character_personality"},
	{"matchCharacterDepthPrompt", "match_character_depth_prompt"},
	{"matchScenario", "match_scenario"},
	{"matchCreatorNotes", "match_creator_notes"},
}

// KeyWorldInfo is the member of a card book's (or card entry's) extensions
// object that keeps the world info fields a card has no field for (entry
// fields such as characterFilter, top-level fields such as _meta and
// originalData), so that world info -> CCv3 -> world info gives the same
// file (the V2/V3 rule: never destroy extensions).
const KeyWorldInfo = "loregate_world_info"

// KeyCard is KeyWorldInfo's twin in world info: the member of the
// top-level extensions object (and of an entry) that keeps the card book
// fields world info has no field for (the book's description, foreign
// fields and extensions; an entry's name, foreign fields and field order),
// so that card -> world info -> card gives the same book (docs/formats.md
// "Rules worth knowing").
const KeyCard = "loregate_card"

// CardExtName returns the card extensions key ST writes for a world info
// field, and false when ST does not carry that field in cards.
func CardExtName(wiName string) (string, bool) {
	for _, p := range stCardNames {
		if p[0] == wiName {
			return p[1], true
		}
	}
	return "", false
}

// WIName returns the world info field for a card extensions key. Both the
// spelling ST writes and the other casing are accepted (issue 5: read both
// spellings), so "selective_logic" and "matchWholeWords" resolve too.
// One map lookup: a card entry's every extensions key goes through it
// (docs/benchmarks.md "Import of a large card").
func WIName(cardName string) (string, bool) {
	wi, ok := wiNames[cardName]
	return wi, ok
}

// wiNames maps every accepted spelling of a card extensions key (the one ST
// writes, the world info one and its snake_case form) to the world info
// field, built once from stCardNames.
var wiNames = func() map[string]string {
	m := make(map[string]string, 3*len(stCardNames))
	for i := len(stCardNames) - 1; i >= 0; i-- { // the first row wins, as a scan in order would
		p := stCardNames[i]
		m[snake(p[0])] = p[0]
		m[p[0]] = p[0]
		m[p[1]] = p[0]
	}
	return m
}()

func snake(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// IgnoredSTSetting returns the report name of a SillyTavern entry setting
// (world info spelling) that has no canonical destination when raw holds a
// non-default value, or "" (counted in the report; the value is kept in
// extensions). Groups, recursion flags, timed effects, positions, match
// flags, triggers and the character filter have canonical fields (STFields)
// and are not reported.
func IgnoredSTSetting(wiName string, raw json.RawMessage) string {
	nonEmpty := func() bool {
		if s, ok := String(raw); ok {
			return strings.TrimSpace(s) != ""
		}
		if a, ok := Strings(raw); ok {
			return len(a) > 0
		}
		return false
	}
	switch wiName {
	case "automationId":
		if nonEmpty() {
			return "automation"
		}
	}
	return ""
}
