package activation

import (
	"strconv"

	"loregate/lore"
)

// Reason returns the item's reason key and its params for the API and
// the CLI (docs/api.md "Reason keys"): the key is the verdict's name, the
// params hold pass always, chance (percent) for chance_failed and
// priority for over_budget and over_entry_cap, read from e, and score (two
// decimals) for a scored entry (docs/contract.md#semantic); e is the
// traced entry (nil leaves
// them out). lore/i18n has every verdict's texts.
func (t TraceItem) Reason(e *lore.Entry) (string, map[string]any) {
	params := map[string]any{"pass": t.Pass}
	switch {
	case e == nil:
	case t.Verdict == VerdictChanceFailed:
		params["chance"] = e.Probability
	case t.Verdict == VerdictOverBudget || t.Verdict == VerdictOverEntryCap:
		params["priority"] = e.Priority
	}
	if t.Score != nil {
		params["score"] = strconv.FormatFloat(*t.Score, 'f', 2, 64)
	}
	return string(t.Verdict), params
}
