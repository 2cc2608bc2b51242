package transfer

import (
	"context"
	"fmt"

	"loregate/lore"
	"loregate/lore/format"
	"loregate/lore/i18n"
	"loregate/lore/tokens"
)

// WarnAlwaysOn adds the always_on_budget_share notice (and its English
// warning) to rep when the enabled Always On entries of an imported book
// alone take more than half of server's budget (docs/authoring.md
// "Selection controls"): their contents counted in the server's unit,
// UTF-16 code units or the server's tokenizer's tokens, as the engine
// counts an entry (macros unresolved). book names the book in the
// notice. A server read failure is returned; a tokenizer failure skips
// the check.
func WarnAlwaysOn(ctx context.Context, st lore.Store, server, book string, entries []lore.Entry, rep *format.Report) error {
	var always []string
	for _, e := range entries {
		if e.Constant && e.Enabled {
			always = append(always, e.Content)
		}
	}
	if len(always) == 0 {
		return nil
	}
	sv, err := st.GetServer(ctx, server)
	if err != nil {
		return fmt.Errorf("always on budget check: %w", err)
	}
	set := sv.Settings
	count := lore.UTF16Len
	if set.Unit() == lore.BudgetTokens {
		c, err := tokens.New(set.TokenizerOrDefault())
		if err != nil {
			return nil
		}
		count = c.CountTokens
	}
	used, limit := 0, set.Limit()
	for _, s := range always {
		used += count(s)
	}
	if limit <= 0 || used*2 <= limit {
		return nil
	}
	params := map[string]any{"book": book, "used": used, "limit": limit, "percent": used * 100 / limit}
	rep.Notef(i18n.AlwaysOnBudgetShare, params)
	return nil
}
