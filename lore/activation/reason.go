package activation

import (
	"cmp"
	"strconv"
	"strings"

	"loregate/lore"
)

// Reason returns the item's reason key and its params for the API and
// the CLI (docs/api.md "Reason keys"), so that a client renders the
// verdict in the member's language: the key is the verdict's name; the
// params hold pass always, score (two decimals) for a scored entry
// (docs/contract.md#semantic), and the numbers and names the verdict
// names, read from e, the traced entry (nil leaves them out):
//
//   - chance_failed: chance (percent)
//   - over_budget, over_entry_cap: priority
//   - gated_lineage: lineage; gated_collection: collection (its name)
//   - group_lost: group (the inclusion group's name)
//   - delayed: delay; cooldown: cooldown (chat messages)
//   - delayed_until_recursion: level
//   - filtered_generation_type: allowed (the entry's generation types)
//   - decorator_blocked: decorator (the line that blocked it, "@@name")
//
// lore/i18n has every verdict's texts.
func (t TraceItem) Reason(e *lore.Entry) (string, map[string]any) {
	params := map[string]any{"pass": t.Pass}
	if e != nil {
		entryParams(params, t, e)
	}
	gateParams(params, t)
	if t.Score != nil {
		params["score"] = strconv.FormatFloat(*t.Score, 'f', 2, 64)
	}
	return string(t.Verdict), params
}

// Verdicts returns every verdict of the engine, in the order of the
// pipeline's stages (a test of lore/i18n checks it against the constants).
func Verdicts() []Verdict {
	return []Verdict{VerdictAdmitted, VerdictSemanticMatch, VerdictDisabled, VerdictGatedServer, VerdictGatedLineage,
		VerdictGatedCollection, VerdictGatedChannel, VerdictFilteredCharacter, VerdictFilteredGenerationType,
		VerdictDecoratorBlocked, VerdictDelayed, VerdictCooldown, VerdictNoKeyMatch, VerdictSecondaryLogicFailed,
		VerdictRegexBudgetExhausted, VerdictExcludedFromRecursion, VerdictDelayedUntilRecursion, VerdictChanceFailed,
		VerdictGroupLost, VerdictBelowThreshold, VerdictOverSemanticCap, VerdictOverEntryCap, VerdictOverBudget}
}

// entryParams adds the params of t's verdict that come from its entry e.
func entryParams(params map[string]any, t TraceItem, e *lore.Entry) {
	switch t.Verdict {
	case VerdictChanceFailed:
		params["chance"] = e.Probability
	case VerdictOverBudget, VerdictOverEntryCap:
		params["priority"] = e.Priority
	case VerdictGatedLineage:
		params["lineage"] = int64(e.Lineage)
	case VerdictGatedCollection:
		params["collection"] = cmp.Or(e.Collection, lore.DefaultCollection)
	case VerdictGroupLost:
		params["group"] = e.Group
	case VerdictDelayed:
		params["delay"] = e.Delay
	case VerdictCooldown:
		params["cooldown"] = e.Cooldown
	case VerdictDelayedUntilRecursion:
		params["level"] = recursionLevel(t.Detail, e.DelayUntilRecursion)
	case VerdictFilteredGenerationType:
		allowed := make([]string, len(e.GenerationTypes))
		for i, g := range e.GenerationTypes {
			allowed[i] = string(g)
		}
		params["allowed"] = allowed
	case VerdictDecoratorBlocked:
		params["decorator"] = decoratorName(t.Detail)
	}
}

// gateParams reads the params of a gate verdict from its detail, which
// names them even when the entry is not at hand (a turn's snapshot leaves
// out the entries of disabled collections).
func gateParams(params map[string]any, t TraceItem) {
	switch t.Verdict {
	case VerdictGatedCollection:
		if i := strings.Index(t.Detail, "collection "); i >= 0 {
			if q, err := strconv.QuotedPrefix(t.Detail[i+len("collection "):]); err == nil {
				params["collection"], _ = strconv.Unquote(q)
			}
		}
	case VerdictGatedLineage:
		if n, ok := numberAfter(t.Detail, "persona lineage "); ok {
			params["lineage"] = int64(n)
		}
	}
}

// numberAfter reads the decimal number that follows marker in detail.
func numberAfter(detail, marker string) (int, bool) {
	i := strings.Index(detail, marker)
	if i < 0 {
		return 0, false
	}
	rest := detail[i+len(marker):]
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	v, err := strconv.Atoi(rest[:n])
	return v, err == nil
}

// recursionLevel is the level a delayed_until_recursion detail names
// ("waits for recursion level 2..."), else the entry's own.
func recursionLevel(detail string, entryLevel int) int {
	if v, ok := numberAfter(detail, "recursion level "); ok {
		return v
	}
	return entryLevel
}

// decoratorName is the decorator a decorator_blocked detail names: its
// first "@@name" ("@@dont_activate", "@@exclude_keys: ..."), or
// "@@decorator" when the detail names none.
func decoratorName(detail string) string {
	i := strings.Index(detail, "@@")
	if i < 0 {
		return "@@decorator"
	}
	rest := detail[i+2:]
	n := 0
	for n < len(rest) && (rest[n] == '_' || rest[n] >= 'a' && rest[n] <= 'z') {
		n++
	}
	return "@@" + rest[:n]
}
