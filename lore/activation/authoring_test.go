package activation_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/activation"
)

// authoringExample is the worked example of docs/authoring.md: one book
// with its own settings, recursion, an inclusion group, decorators, a
// macro key and a priority eviction. It returns the report the page shows.
func authoringExample() (string, error) {
	mk := func(id int64, title string, keys []string, content string, order int) lore.Entry {
		e := lore.NewEntry()
		e.ID, e.Title, e.Keys, e.Content, e.Order = id, title, keys, content, order
		e.Collection = "Harbor town"
		return e
	}
	world := mk(1, "World", nil, "The world is a chain of islands.", 1)
	world.Constant = true
	newcomer := mk(2, "Newcomer", []string{"{{user}}"}, "{{user}} arrived on the last ship.", 5)
	harbor := mk(3, "Harbor", []string{"harbor"}, "The harbor of Vel is ruled by the Tide Guild.", 10)
	guild := mk(4, "Tide Guild", []string{"Tide Guild"}, "The Tide Guild keeps the lighthouse.", 20)
	light := mk(5, "Lighthouse", []string{"lighthouse"}, "@@depth 2\n@@role assistant\nThe lighthouse has been dark for a year.", 30)
	smugglers := mk(6, "Rumour: smugglers", []string{"harbor"}, "Smugglers use the north pier.", 40)
	ghost := mk(7, "Rumour: ghost", []string{"harbor"}, "A ghost walks the docks.", 41)
	smugglers.Group, smugglers.GroupWeight = "rumour", 25
	ghost.Group, ghost.GroupWeight = "rumour", 75
	secret := mk(8, "Secret", []string{"harbor"}, "@@dont_activate\nThe guild master is a smuggler.", 50)
	history := mk(9, "Long history", []string{"harbor"}, strings.Repeat("Centuries of trade and war shaped the harbor. ", 3), 60)
	history.Priority = 10

	on, steps, budget := true, 3, 250
	in := activation.Input{
		Entries: []lore.Entry{world, newcomer, harbor, guild, light, smugglers, ghost, secret, history},
		Collections: map[string]lore.Collection{"Harbor town": {Name: "Harbor town", Enabled: true,
			Settings: lore.BookSettings{Recursive: &on, MaxRecursionSteps: &steps, BudgetLimit: &budget}}},
		Messages: []string{"Mira steps off the ship.", "Where is the harbor?"},
	}
	res, err := activation.Activate(context.Background(), in, activation.Options{
		UserName: "Mira",
		Random:   func() float64 { return 0.5 },
	})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "budget: %d of %d %s, %d passes\n", res.Budget.Used, res.Budget.Limit, res.Budget.Unit, res.Passes)
	for _, a := range res.Admitted() {
		from := ""
		if a.TriggeredBy != 0 {
			from = fmt.Sprintf(" from #%d", a.TriggeredBy)
		}
		role := a.Entry.Role // @@role applied is in the position of an AT_DEPTH entry
		if a.Position.Role != nil {
			role = *a.Position.Role
		}
		fmt.Fprintf(&b, "+ %s (pass %d%s, %s, %s, %d): %s\n", a.Entry.Title, a.Pass, from, a.Placement, role, a.Cost, a.Content)
	}
	for _, t := range res.Trace {
		if t.Verdict != activation.VerdictAdmitted {
			fmt.Fprintf(&b, "- %s: %s (%s)\n", t.Title, t.Verdict, t.Detail)
		}
	}
	return b.String(), nil
}

func Example_authoring() {
	out, err := authoringExample()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(out)
	// Output:
	// budget: 207 of 250 utf16, 3 passes
	// + World (pass 1, after, system, 32): The world is a chain of islands.
	// + Newcomer (pass 1, after, system, 30): Mira arrived on the last ship.
	// + Harbor (pass 1, after, system, 45): The harbor of Vel is ruled by the Tide Guild.
	// + Tide Guild (pass 2 from #3, after, system, 36): The Tide Guild keeps the lighthouse.
	// + Lighthouse (pass 3 from #4, before, assistant, 40): The lighthouse has been dark for a year.
	// + Rumour: ghost (pass 1, after, system, 24): A ghost walks the docks.
	// - Rumour: smugglers: group_lost (group "rumour": lost to #7 "Rumour: ghost" (weighted draw 0.5))
	// - Secret: decorator_blocked (@@dont_activate)
	// - Long history: over_budget (priority 10: needs 138 utf16, 119 of 250 left)
}

// TestAuthoringDoc checks that docs/authoring.md shows exactly the output
// of the worked example.
func TestAuthoringDoc(t *testing.T) {
	out, err := authoringExample()
	require.NoError(t, err)
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "authoring.md"))
	require.NoError(t, err)
	require.Contains(t, string(doc), "```text\n"+out+"```\n", "docs/authoring.md must show the example's output")
}
