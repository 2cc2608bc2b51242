package discord

import (
	"context"
	"strconv"
	"strings"

	"github.com/bwmarrin/discordgo"

	"loregate/graph/client"
	"loregate/graph/model"
	"loregate/lore"
)

// Book settings (per collection or persona book) and the server's budget:
// managers edit them in forms; blank fields inherit the layer below
// (docs/authoring.md).

// Form field ids and select values of the settings forms.
const (
	fieldBudget     = "budget"
	fieldUnit       = "unit"
	fieldTokenizer  = "tokenizer"
	fieldRecursive  = "recursive"
	fieldSteps      = "steps"
	fieldWholeWords = "wholewords"
	valueInherit    = "inherit"
	valueOn         = "on"
	valueOff        = "off"
)

// tokenizers are the tokenizers a token budget can count with.
var tokenizers = [...]string{"o200k_base", "cl100k_base"}

// budgetText describes a budget in a unit.
func budgetText(t tr, limit int, unit model.BudgetUnit, tokenizer string) string {
	if unit == model.BudgetUnitTokens {
		return t.S("%d tokens (%s)", limit, tokenizer)
	}
	return t.S("%d characters", limit)
}

// bookSettingsText summarises a book's settings.
func bookSettingsText(t tr, s model.BookSettings) string {
	var parts []string
	if s.ScanDepth != nil {
		parts = append(parts, t.S("scan depth %d", *s.ScanDepth))
	}
	if s.BudgetLimit != nil {
		parts = append(parts, t.S("budget %d", *s.BudgetLimit))
	}
	if s.Recursive != nil {
		if *s.Recursive {
			parts = append(parts, t.S("recursion on"))
		} else {
			parts = append(parts, t.S("recursion off"))
		}
	}
	if s.MaxRecursionSteps != nil {
		parts = append(parts, t.S("at most %d passes", *s.MaxRecursionSteps))
	}
	if s.WholeWords != nil {
		if *s.WholeWords {
			parts = append(parts, t.S("whole words"))
		} else {
			parts = append(parts, t.S("substrings"))
		}
	}
	if len(parts) == 0 {
		return t.S("Book settings: all inherited from the server")
	}
	return t.S("Book settings: %s", strings.Join(parts, " · "))
}

// settingsButton opens the selected book's settings form.
func settingsButton(p *panel) discordgo.Button {
	return discordgo.Button{Label: p.t.S("Book Settings"), Style: discordgo.SecondaryButton, CustomID: p.route(actBookSet).encode()}
}

// triSelect is an inherit/on/off select inside a label.
func triSelect(t tr, id, text, on, off string, v *bool) label {
	opts := []discordgo.SelectMenuOption{
		{Label: t.S("Inherit"), Value: valueInherit, Default: v == nil},
		{Label: on, Value: valueOn, Default: v != nil && *v},
		{Label: off, Value: valueOff, Default: v != nil && !*v},
	}
	return label{Label: lore.ClipRunes(text, maxLabelText), Component: modalSelect{CustomID: id, Options: opts}}
}

func intText(v *int) string {
	if v == nil {
		return ""
	}
	return strconv.Itoa(*v)
}

// bookSettingsModal is the form of a book's settings.
func bookSettingsModal(t tr, r route, name string, s model.BookSettings) discordgo.InteractionResponseData {
	return modal(r, lore.ClipRunes(t.S("Settings: %s", name), maxModalTitle),
		input(fieldDepth, t.S("Scan depth, 0-100 (blank = inherit)"), intText(s.ScanDepth), discordgo.TextInputShort, false, 3),
		input(fieldBudget, t.S("Budget in the server's unit (blank = inherit)"), intText(s.BudgetLimit), discordgo.TextInputShort, false, 7),
		triSelect(t, fieldRecursive, t.S("Recursion: lore can activate lore"), t.S("On"), t.S("Off"), s.Recursive),
		input(fieldSteps, t.S("Passes 0-10 (1 = none; blank = inherit)"), intText(s.MaxRecursionSteps), discordgo.TextInputShort, false, 2),
		triSelect(t, fieldWholeWords, t.S("Keyword matching"), t.S("Whole words"), t.S("Substrings"), s.WholeWords),
	)
}

// budgetModal is the form of the server's budget.
func budgetModal(t tr, s model.ServerSettings) discordgo.InteractionResponseData {
	unit := []discordgo.SelectMenuOption{
		{Label: t.S("Characters"), Value: string(model.BudgetUnitCharacters), Default: s.BudgetUnit != model.BudgetUnitTokens},
		{Label: t.S("Tokens"), Value: string(model.BudgetUnitTokens), Default: s.BudgetUnit == model.BudgetUnitTokens},
	}
	var toks []discordgo.SelectMenuOption
	for _, tk := range tokenizers {
		toks = append(toks, discordgo.SelectMenuOption{Label: tk, Value: tk, Default: tk == s.Tokenizer})
	}
	return modal(route{action: modalBudget}, t.S("Lore budget"),
		label{Label: t.S("Unit"), Component: modalSelect{CustomID: fieldUnit, Options: unit}},
		input(fieldBudget, t.S("Budget (0 = the unit's default)"), strconv.Itoa(s.BudgetLimit), discordgo.TextInputShort, true, 7),
		label{Label: t.S("Tokenizer (token budgets)"), Component: modalSelect{CustomID: fieldTokenizer, Options: toks}},
	)
}

// optionalInt parses a blank-or-number field into an explicit value (nil
// clears the setting: inherit).
func optionalInt(s string, lo, hi int) (any, bool) {
	if s = strings.TrimSpace(s); s == "" {
		return nil, true
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return nil, false
	}
	return n, true
}

func triValue(v string) any {
	switch v {
	case valueOn:
		return true
	case valueOff:
		return false
	}
	return nil
}

// submitBookSettings saves a book's settings form (managers; the API
// re-checks permission and ranges).
func (b *Bot) submitBookSettings(ctx context.Context, in *request) error {
	o := loadOpts{persona: in.rt.lineage != 0}
	return b.write(ctx, in, o, func(p *panel) bool { return p.persona && p.lineage != 0 || hasBook(p) }, func(p *panel) (route, loadOpts, string, error) {
		t := in.t
		depth, ok1 := optionalInt(in.fields[fieldDepth], 0, lore.MaxScanDepth)
		budget, ok2 := optionalInt(in.fields[fieldBudget], 1, 2_000_000)
		steps, ok3 := optionalInt(in.fields[fieldSteps], 0, 10)
		switch {
		case !ok1:
			return in.rt, o, t.S("Not saved: scan depth must be a whole number from 0 to 100, or blank to inherit."), nil
		case !ok2:
			return in.rt, o, t.S("Not saved: the budget must be a positive whole number, or blank to inherit."), nil
		case !ok3:
			return in.rt, o, t.S("Not saved: passes must be a whole number from 0 to 10, or blank to inherit."), nil
		}
		settings := map[string]any{"scanDepth": depth, "budgetLimit": budget, "maxRecursionSteps": steps,
			"recursive": triValue(first(in.modal.Values[fieldRecursive])), "wholeWords": triValue(first(in.modal.Values[fieldWholeWords]))}
		op, input := client.OpUpdateCollectionSettings, map[string]any{"serverDiscordId": in.guild, "settings": settings}
		name := ""
		if p.persona {
			op = client.OpUpdatePersonaBookSettings
			input["lineageId"] = p.lineage
			for _, g := range p.groups {
				if g.lineage == p.lineage {
					name = g.label()
				}
			}
		} else {
			input["collectionId"] = p.book.ID
			name = p.book.Name
		}
		e, err := b.mutate(ctx, in.p, op, input, nil)
		if err != nil || e != nil {
			return in.rt, o, receiptOf(t, e), err
		}
		return in.rt, o, t.S("Saved the settings of **%s**.", escape(name)), nil
	})
}

// submitBudget saves the server's budget form.
func (b *Bot) submitBudget(ctx context.Context, in *request) error {
	o := loadOpts{view: viewSettings}
	in.rt = route{action: in.rt.action}
	return b.write(ctx, in, o, nil, func(p *panel) (route, loadOpts, string, error) {
		t := in.t
		limit, err := strconv.Atoi(strings.TrimSpace(in.fields[fieldBudget]))
		if err != nil || limit < 0 {
			return in.rt, o, t.S("Not saved: the budget must be a whole number (0 for the unit's default)."), nil
		}
		input := map[string]any{"serverDiscordId": in.guild, "budgetLimit": limit}
		if u := model.BudgetUnit(first(in.modal.Values[fieldUnit])); u.IsValid() {
			input["budgetUnit"] = u
		}
		if tk := first(in.modal.Values[fieldTokenizer]); tk != "" {
			input["tokenizer"] = tk
		}
		e, err := b.mutate(ctx, in.p, client.OpUpdateServerSettings, input, nil)
		if err != nil || e != nil {
			return in.rt, o, receiptOf(t, e), err
		}
		return in.rt, o, t.S("Saved the budget."), nil
	})
}
