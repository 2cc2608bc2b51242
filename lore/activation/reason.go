package activation

import (
	"cmp"
	"maps"
	"strconv"
	"strings"

	"loregate/lore"
)

// Reason returns the item's reason key and its params for the API and
// the CLI (docs/api.md "Reason keys"), so that a client renders the
// verdict in the member's language: the key is the verdict's name (for
// over_budget, over_budget_keyword_share, over_budget_semantic_share or
// over_budget_always_on when its params say which share of the budget it
// failed, docs/contract.md#semantic-budget); the
// params hold pass always, score (two decimals) for a scored entry
// (docs/contract.md#semantic), and the numbers and names the verdict
// names (t.Params, which the engine sets; for an item without them, read
// from e, the traced entry, when not nil):
//
//   - chance_failed: chance (percent)
//   - over_budget, over_entry_cap: priority; over_budget also share,
//     held and limit (a share held for similarity matches), or alwaysOn
//     and limit (what the Always On entries took first)
//   - gated_lineage: lineage; gated_collection: collection (its name);
//     gated_category: category (its name)
//   - group_lost: group (the inclusion group's name)
//   - delayed: delay; cooldown: cooldown (chat messages)
//   - delayed_until_recursion: level
//   - filtered_generation_type: allowed (the entry's generation types)
//   - decorator_blocked: decorator (the line that blocked it, "@@name")
//
// lore/i18n has every verdict's texts.
func (t TraceItem) Reason(e *lore.Entry) (string, map[string]any) {
	params := map[string]any{"pass": t.Pass}
	extra := t.Params
	if extra == nil && e != nil {
		extra = verdictParams(t.Verdict, e, t.Detail)
	}
	maps.Copy(params, extra)
	if t.Score != nil {
		params["score"] = strconv.FormatFloat(*t.Score, 'f', 2, 64)
	}
	if t.Verdict == VerdictOverBudget {
		return overBudgetKey(params), params
	}
	return string(t.Verdict), params
}

// Verdicts returns every verdict of the engine, in the order of the
// pipeline's stages (a test of lore/i18n checks it against the constants).
func Verdicts() []Verdict {
	return []Verdict{VerdictAdmitted, VerdictSemanticMatch, VerdictDisabled, VerdictGatedServer, VerdictGatedLineage,
		VerdictGatedCollection, VerdictGatedCategory, VerdictGatedChannel, VerdictFilteredCharacter, VerdictFilteredGenerationType,
		VerdictDecoratorBlocked, VerdictDelayed, VerdictCooldown, VerdictNoKeyMatch, VerdictSecondaryLogicFailed,
		VerdictRegexBudgetExhausted, VerdictExcludedFromRecursion, VerdictDelayedUntilRecursion, VerdictChanceFailed,
		VerdictGroupLost, VerdictBelowThreshold, VerdictOverSemanticCap, VerdictOverEntryCap, VerdictOverBudget}
}

// verdictParams returns the params of verdict v that come from its entry
// e (TraceItem.Params; detail is the item's, which names the blocking
// decorator), nil for a verdict without any.
func verdictParams(v Verdict, e *lore.Entry, detail string) lore.Params {
	switch v {
	case VerdictChanceFailed:
		return lore.Params{"chance": e.Probability}
	case VerdictOverBudget, VerdictOverEntryCap:
		return lore.Params{"priority": e.Priority}
	case VerdictGatedLineage:
		return lore.Params{"lineage": int64(e.Lineage)}
	case VerdictGatedCollection:
		return lore.Params{"collection": cmp.Or(e.Collection, lore.DefaultCollection)}
	case VerdictGatedCategory:
		// GateTrace sets the name; an item stored without it reads it
		// back from its detail (`category "X" is disabled`).
		return lore.Params{"category": quoted(detail)}
	case VerdictGroupLost:
		return lore.Params{"group": e.Group}
	case VerdictDelayed:
		return lore.Params{"delay": e.Delay}
	case VerdictCooldown:
		return lore.Params{"cooldown": e.Cooldown}
	case VerdictDelayedUntilRecursion:
		return lore.Params{"level": e.DelayUntilRecursion}
	case VerdictFilteredGenerationType:
		allowed := make([]string, len(e.GenerationTypes))
		for i, g := range e.GenerationTypes {
			allowed[i] = string(g)
		}
		return lore.Params{"allowed": allowed}
	case VerdictDecoratorBlocked:
		return lore.Params{"decorator": decoratorName(detail)}
	}
	return nil
}

// quoted is the first Go-quoted string in detail, "" when it has none.
func quoted(detail string) string {
	i := strings.IndexByte(detail, '"')
	if i < 0 {
		return ""
	}
	q, err := strconv.QuotedPrefix(detail[i:])
	if err != nil {
		return ""
	}
	name, _ := strconv.Unquote(q)
	return name
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
