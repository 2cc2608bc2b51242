package discord

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/graph/client"
)

// TestStaleRoutes: a route naming a removed persona, a deleted collection
// or a deleted entry repaints a safe scope with a changed-state receipt
// and writes nothing.
func TestStaleRoutes(t *testing.T) {
	tests := map[string]struct {
		// prepare reaches a control as a manager, then makes it stale.
		prepare func(h *harness) func() outcome
		receipt string
		scope   string
	}{
		"removed persona": {
			prepare: func(h *harness) func() outcome {
				c := h.need(h.personaPanel(true), actEntryToggle)
				h.removePersona(1)
				return func() outcome { return h.click(permManager, c) }
			},
			receipt: "persona is no longer on this server", scope: "Lorebooks · Serverwide",
		},
		"deleted collection": {
			prepare: func(h *harness) func() outcome {
				c := h.need(h.open(permManager).panel(), actBookToggle)
				h.op(client.OpDeleteCollection, map[string]any{"in": map[string]any{"serverDiscordId": testGuild, "collectionId": h.books()[0].ID}}, nil)
				h.book("Other", 1)
				return func() outcome { return h.click(permManager, c) }
			},
			receipt: "lorebook was deleted", scope: "Lorebooks · Serverwide",
		},
		"deleted entry": {
			prepare: func(h *harness) func() outcome {
				m := h.click(permManager, h.need(h.serverwideEntry(), actEntryEdit)).modal()
				h.op(client.OpDeleteEntry, map[string]any{"in": map[string]any{"serverDiscordId": testGuild, "lineageId": 0, "entryId": h.scope(0, "Lore")[0].ID}}, nil)
				return func() outcome { return h.submit(permManager, m, map[string]string{fieldContent: "lost edit"}) }
			},
			receipt: "entry was deleted", scope: "Lorebooks · Serverwide",
		},
		"deleted entry, modal open": {
			prepare: func(h *harness) func() outcome {
				c := h.need(h.personaPanel(true), actEntryRules)
				h.op(client.OpDeleteEntry, map[string]any{"in": map[string]any{"serverDiscordId": testGuild, "lineageId": 7, "entryId": h.scope(7, "")[0].ID}}, nil)
				return func() outcome { return h.click(permManager, c) }
			},
			receipt: "entry was deleted", scope: "Lorebooks · Persona",
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			seedScopes(h)
			act := tt.prepare(h)
			before := h.snapshot()
			o := act()
			require.NotEqual(t, 9, o.callback().Type, "no modal for a stale target")
			require.Contains(t, o.content(), tt.receipt)
			require.Contains(t, o.content(), tt.scope)
			require.Equal(t, before, h.snapshot(), "nothing was written")
		})
	}
}

// TestOutdatedRoutes: custom ids of another wire version, an unknown
// action or malformed fields get a friendly repaint, never a crash.
func TestOutdatedRoutes(t *testing.T) {
	for _, id := range []string{
		"memories:v0:lore-bt:0:0",
		"memories:v1:lore-zz:0:0:0",
		"memories:v1:lore-bt:x:y:z",
		"memories:v2:lore-bt:0:0:0:0:1",
		"documents:v1:doc-open:0:0:0",
	} {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			seedScopes(h)
			o := h.clickID(permManager, id)
			require.Equal(t, 7, o.callback().Type)
			require.Contains(t, o.content(), msgOutdated)
			require.Contains(t, o.content(), "Lorebooks · Serverwide")
		})
	}
}

// TestForeignChannels: channel ids from another server, in the collection
// channel select or in a persona entry's channel field, are refused with a
// receipt and nothing is written; a deleted channel id too. The refusals
// write nothing, so they share one harness; the thread case writes last.
func TestForeignChannels(t *testing.T) {
	h := newHarness(t)
	seedScopes(h)
	t.Run("collection channel select", func(t *testing.T) {
		sel := h.need(h.click(permManager, h.need(h.open(permManager).panel(), actBookChans)).panel(), actBookChanSet)
		before := h.snapshot()
		o := h.click(permManager, sel, chanA, chanOther)
		require.Contains(t, o.content(), "is not a channel of this server")
		require.Contains(t, o.content(), chanOther)
		require.Equal(t, before, h.snapshot())
	})
	for name, value := range map[string]string{
		"persona entry, other server": chanOther,
		"persona entry, deleted":      "<#" + chanGone + ">",
		"persona entry, not an id":    "#general",
	} {
		t.Run(name, func(t *testing.T) {
			m := h.click(permManager, h.need(h.personaPanel(true), actEntryEdit)).modal()
			before := h.snapshot()
			o := h.submit(permManager, m, map[string]string{fieldChannels: chanA + ", " + value, fieldContent: "changed"})
			require.Contains(t, o.content(), "Not saved")
			require.Equal(t, before, h.snapshot())
		})
	}
	t.Run("threads are channels of the server", func(t *testing.T) {
		m := h.click(permManager, h.need(h.personaPanel(false), actEntryPick), valueAdd).modal()
		h.submit(permManager, m, map[string]string{fieldTitle: "T", fieldContent: "c", fieldChannels: threadA})
		require.Equal(t, []string{threadA}, byTitle(t, h.scope(7, ""), "T").ChannelIds)
	})
}

// TestChannelViewPrefill: the channel view preselects only channels that
// still exist in the guild.
func TestChannelViewPrefill(t *testing.T) {
	h := newHarness(t)
	h.registerServer()
	h.book("Lore", 1, chanA, chanGone)
	sel := h.need(h.click(permManager, h.need(h.open(permManager).panel(), actBookChans)).panel(), actBookChanSet)
	require.Len(t, sel.DefaultValues, 1)
	require.Equal(t, chanA, sel.DefaultValues[0].ID)
}

// TestRobustness: DMs, undecodable payloads and panicking handlers are
// answered politely and never crash the bot.
func TestRobustness(t *testing.T) {
	h := newHarness(t)
	seedScopes(h)

	o := h.run("dm_command.json", 0, nil)
	require.Contains(t, o.content(), "use `/memories` in a server")

	// Undecodable payloads are dropped without a call or a crash.
	n := h.fake.count()
	h.bot.HandleRaw(context.Background(), []byte(`{"type":5,"data":{"custom_id":1}}`))
	h.bot.HandleRaw(context.Background(), []byte(`not json`))
	require.Empty(t, h.fake.since(n))

	h.bot.routes["lore-boom"] = func(context.Context, *request) error { panic("boom") }
	o = h.clickID(permManager, route{action: "lore-boom"}.encode())
	require.Contains(t, o.content(), "Something went wrong")
	require.NotContains(t, o.content(), "boom")
}

// TestNonManagerReads: members without Manage Server read both scopes and
// entries.
func TestNonManagerReads(t *testing.T) {
	h := newHarness(t)
	seedScopes(h)
	p := h.open(permMember).panel()
	e := h.need(p, actEntryPick)
	p = h.click(permMember, e, e.Options[0].Value).panel()
	require.True(t, strings.Contains(p.text(), "Content of entry"))
	p = h.clickID(permMember, route{action: actPersona}.encode()).panel()
	require.Contains(t, p.text(), "Aria")
}

// TestBookAddIgnoresDeletedSelection: adding a book while the book the
// panel had selected was deleted meanwhile creates the new book.
func TestBookAddIgnoresDeletedSelection(t *testing.T) {
	h := newHarness(t)
	seedScopes(h)
	m := h.click(permManager, h.need(h.open(permManager).panel(), actBookPick), valueAdd).modal()
	h.op(client.OpDeleteCollection, map[string]any{"in": map[string]any{"serverDiscordId": testGuild, "collectionId": h.books()[0].ID}}, nil)
	o := h.submit(permManager, m, map[string]string{fieldName: "Atlas"})
	require.Contains(t, o.content(), "Created")
	names := []string{}
	for _, b := range h.books() {
		names = append(names, b.Name)
	}
	require.Contains(t, names, "Atlas")
}
