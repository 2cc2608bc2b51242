package discord

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/graph/model"
)

// TestChannelViewPages: a collection of 100 channels (of a guild with 120)
// is edited in the panel's channel view, whose select preselects 25: each
// page preselects its 25, a save from page 0 unchanged keeps all 100, and a
// save from page 2 that drops one channel and adds another changes only
// those two. A collection of 25 channels gets an empty second page to add
// a 26th.
func TestChannelViewPages(t *testing.T) {
	h := newHarness(t)
	ids := make([]string, 120)
	for i := range ids {
		ids[i] = fmt.Sprintf("5100000000000%05d", i)
	}
	h.fake.setChannels(testGuild, ids...)
	h.registerServer()
	h.book("Lore", 1, ids[:100]...)
	defaults := func(sel wireComponent) []string {
		var out []string
		for _, d := range sel.DefaultValues {
			out = append(out, d.ID)
		}
		return out
	}

	view := h.click(permManager, h.need(h.open(permManager).panel(), actBookChans)).panel()
	sel := h.need(view, actBookChanSet)
	require.Equal(t, ids[:25], defaults(sel))
	require.Contains(t, view.text(), "Channels 1–25 of 100 are selected below")
	_, ok := view.find(chanAction(actBookChans, 4))
	require.False(t, ok, "100 channels are 4 pages")

	// Page 0 saved as shown keeps all 100.
	o := h.click(permManager, sel, ids[:25]...)
	require.NotContains(t, o.content(), "Not saved")
	require.Equal(t, ids[:100], h.books()[0].ChannelIds)

	// Pages 1 and 2 preselect their own 25.
	view = h.click(permManager, h.need(h.open(permManager).panel(), actBookChans)).panel()
	view = h.click(permManager, h.need(view, chanAction(actBookChans, 1))).panel()
	require.Equal(t, ids[25:50], defaults(h.need(view, chanAction(actBookChanSet, 1))))
	view = h.click(permManager, h.need(view, chanAction(actBookChans, 2))).panel()
	sel = h.need(view, chanAction(actBookChanSet, 2))
	require.Equal(t, ids[50:75], defaults(sel))
	require.Contains(t, view.text(), "Channels 51–75 of 100")

	// On page 2: drop ids[60], add ids[110]; the list stays at 100.
	chosen := slices.Concat(ids[50:60], ids[61:75], []string{ids[110]})
	h.click(permManager, sel, chosen...)
	want := slices.Concat(ids[:50], chosen, ids[75:100])
	got := h.books()[0].ChannelIds
	require.Equal(t, want, got)
	require.Len(t, got, 100)
	require.NotContains(t, got, ids[60])

	// 25 channels: page 2 is empty and takes a 26th.
	h.book("Small", 1, ids[:25]...)
	small := slices.IndexFunc(h.books(), func(b model.Collection) bool { return b.Name == "Small" })
	require.GreaterOrEqual(t, small, 0)
	view = h.click(permManager, h.need(h.open(permManager).panel(), actBookPick), h.books()[small].ID).panel()
	view = h.click(permManager, h.need(view, actBookChans)).panel()
	view = h.click(permManager, h.need(view, chanAction(actBookChans, 1))).panel()
	sel = h.need(view, chanAction(actBookChanSet, 1))
	require.Empty(t, sel.DefaultValues)
	require.Contains(t, view.text(), "This book appears in 25 channels")
	h.click(permManager, sel, ids[100])
	require.Equal(t, slices.Concat(ids[:25], ids[100:101]), h.books()[small].ChannelIds)
}

// TestMergeChannelPage: a page's choice replaces that page only, in place,
// without repeats.
func TestMergeChannelPage(t *testing.T) {
	cur := make([]string, 60)
	for i := range cur {
		cur[i] = fmt.Sprint(i)
	}
	tests := []struct {
		name   string
		page   int
		chosen []string
		want   []string
	}{
		{"page 0 as shown", 0, cur[:25], cur},
		{"page 1 emptied", 1, nil, slices.Concat(cur[:25], cur[50:])},
		{"last page, one added", 2, append(slices.Clone(cur[50:]), "x"), append(slices.Clone(cur), "x")},
		{"a channel of another page chosen again", 1, []string{"3", "y"}, slices.Concat(cur[:25], []string{"y"}, cur[50:])},
		{"page past the end adds", 3, []string{"z"}, append(slices.Clone(cur), "z")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, mergeChannelPage(cur, tc.page, tc.chosen))
		})
	}
	require.Equal(t, 1, channelPages(0))
	require.Equal(t, 2, channelPages(25))
	require.Equal(t, 4, channelPages(99))
	require.Equal(t, 4, channelPages(100))
	require.Equal(t, 0, chanPageOf(actBookChanAll, actBookChans))
	require.Equal(t, 3, chanPageOf("lore-bcs3", actBookChanSet))
	require.Equal(t, 0, chanPageOf("lore-bcs9", actBookChanSet))
}

// TestChannelSaveFromStaleView: two managers open the channel view of a
// 40-channel book at once; the first saves page 0 without five channels
// (the pages shift), the second then saves page 1 from the view it still
// shows: that save is refused with a receipt in the member's language and
// the first one's list stays (was: the last save won and replaced
// channels 25-39 of the new list). Opened again, the second save goes
// through.
func TestChannelSaveFromStaleView(t *testing.T) {
	h := newHarness(t)
	ids := make([]string, 40)
	for i := range ids {
		ids[i] = fmt.Sprintf("5200000000000%05d", i)
	}
	h.fake.setChannels(testGuild, ids...)
	h.registerServer()
	h.book("Lore", 1, ids...)
	open := func(page int) wireComponent {
		view := h.click(permManager, h.need(h.open(permManager).panel(), actBookChans)).panel()
		if page > 0 {
			view = h.click(permManager, h.need(view, chanAction(actBookChans, page))).panel()
		}
		return h.need(view, chanAction(actBookChanSet, page))
	}
	first, second := open(0), open(1)

	o := h.click(permManager, first, ids[5:25]...)
	require.NotContains(t, o.content(), "Not saved")
	afterFirst := ids[5:]
	require.Equal(t, afterFirst, h.books()[0].ChannelIds)

	o = h.click(permManager, second, ids[25:39]...) // drops ids[39] from what it showed
	require.Contains(t, o.content(), "Not saved: this book was changed since its channels were shown.")
	require.Equal(t, afterFirst, h.books()[0].ChannelIds, "the stale save wrote nothing")

	h.locale = "es-ES"
	o = h.click(permManager, second, ids[25:39]...)
	require.Contains(t, o.content(), "No guardado: este libro cambió")
	h.locale = "en-US"

	again := open(1) // page 1 of the 35 channels now: ids[30:40]
	o = h.click(permManager, again, ids[30:39]...)
	require.NotContains(t, o.content(), "Not saved")
	require.Equal(t, ids[5:39], h.books()[0].ChannelIds)
}
