package discord

import (
	"slices"
	"strconv"
	"strings"

	"github.com/bwmarrin/discordgo"

	"loregate/lore"
)

// A collection may name up to lore.MaxChannelIDs (100) channels, but a
// Discord select preselects at most 25 (default_values). The channel view
// therefore pages the collection's channels 25 at a time: page k preselects
// channels [25k, 25k+25) and a save from it replaces only those, keeping
// every channel of the other pages (docs/contract.md#panel).
// A list below 100 whose pages are all full gets one more, empty page, so
// there is always room to add a channel. The page travels in the action
// name ("lore-bc2", "lore-bcs2"), so the route's fields keep their meaning.

// channelPageSize is how many channels one page preselects.
const channelPageSize = maxSelectValues

// maxChannelPages is the page count of a full list.
const maxChannelPages = (lore.MaxChannelIDs + channelPageSize - 1) / channelPageSize

// channelPages is the page count of the channel view of n channels.
func channelPages(n int) int { return min(n/channelPageSize+1, maxChannelPages) }

// chanAction is action base on channel page k (base itself on page 0).
func chanAction(base string, k int) string {
	if k == 0 {
		return base
	}
	return base + strconv.Itoa(k)
}

// chanPageOf is the channel page an action of base names (0 for base
// itself or anything else).
func chanPageOf(action, base string) int {
	rest, ok := strings.CutPrefix(action, base)
	if !ok || rest == "" {
		return 0
	}
	k, err := strconv.Atoi(rest)
	if err != nil || k < 0 || k >= maxChannelPages {
		return 0
	}
	return k
}

// addChannelPageRoutes registers the channel view's page actions beyond
// page 0 in t.
func (b *Bot) addChannelPageRoutes(t map[string]handlerFunc) {
	for k := 1; k < maxChannelPages; k++ {
		t[chanAction(actBookChans, k)] = b.bookChannels
		t[chanAction(actBookChanSet, k)] = b.bookChannelSet
	}
}

// channelPageBounds are the indexes of page k of n channels.
func channelPageBounds(k, n int) (lo, hi int) {
	lo = min(k*channelPageSize, n)
	return lo, min(lo+channelPageSize, n)
}

// mergeChannelPage is current with page k replaced by chosen, in order and
// without repeats.
func mergeChannelPage(current []string, k int, chosen []string) []string {
	lo, hi := channelPageBounds(k, len(current))
	out := make([]string, 0, len(current)-(hi-lo)+len(chosen))
	for _, id := range slices.Concat(current[:lo], chosen, current[hi:]) {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// channelPageRow is the channel view's page buttons, nil on a single page.
func channelPageRow(p *panel) []discordgo.MessageComponent {
	pages := channelPages(len(p.channels))
	if pages < 2 {
		return nil
	}
	k := p.chanPage
	prev, next := p.route(chanAction(actBookChans, max(0, k-1))), p.route(chanAction(actBookChans, min(k+1, pages-1)))
	label := p.t.S("Channels %d/%d", k+1, pages)
	return []discordgo.MessageComponent{
		discordgo.Button{Label: "◀ " + label, Style: discordgo.SecondaryButton, CustomID: prev.encode(), Disabled: k == 0},
		discordgo.Button{Label: label + " ▶", Style: discordgo.SecondaryButton, CustomID: next.encode(), Disabled: k >= pages-1},
	}
}

// channelPageText says which channels the page shows, "" on a single page.
func channelPageText(p *panel) string {
	if channelPages(len(p.channels)) < 2 {
		return ""
	}
	lo, hi := channelPageBounds(p.chanPage, len(p.channels))
	if lo == hi {
		return p.t.S("This book appears in %d channels, shown on the other pages and kept when you save here. Pick channels to add.", len(p.channels))
	}
	return p.t.S("Channels %d–%d of %d are selected below; saving changes only these, the others are kept.", lo+1, hi, len(p.channels))
}
