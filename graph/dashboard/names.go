package dashboard

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"loregate/graph/client"
	"loregate/graph/model"
	"loregate/lore"
)

// Pages name what the API gives as ids (docs/dashboard.md "Names"): an
// entry of a trace or of the activation log by its title, its book and a
// link to its editor (one EntryNames call per page), and a channel by its
// Discord name (one ServerChannels call, cached by the API; ids only when
// no bot token is configured).

// entryName is an entry as a page names it.
type entryName struct {
	ID, Title string
	// Book is the entry's book name; URL its editor ("" when the entry is
	// gone: then Title is "#id").
	Book, BookRef, URL string
}

// entryNames names the entries with ids (at most lore.MaxEntriesByID;
// more are named by id): title, book and editor link. An entry that no
// longer exists is "#id" without a link.
func (d *Dashboard) entryNames(rq *req, ids []string) (map[string]entryName, error) {
	uniq := make([]string, 0, len(ids))
	seen := map[string]bool{}
	for _, id := range ids {
		if !seen[id] && len(uniq) < lore.MaxEntriesByID {
			seen[id] = true
			uniq = append(uniq, id)
		}
	}
	out := make(map[string]entryName, len(uniq))
	for _, id := range ids {
		out[id] = entryName{ID: id, Title: "#" + id}
	}
	if len(uniq) == 0 {
		return out, nil
	}
	var data client.ServerData
	if err := d.api.Do(rq.ctx(), rq.p, client.OpEntryNames, map[string]any{"s": rq.sid, "ids": uniq}, &data); err != nil {
		return nil, err
	}
	if data.Server == nil {
		return out, nil
	}
	collections := map[string]string{}
	for _, b := range rq.srv.CollectionBooks() {
		collections[b.Name] = b.Ref
	}
	personas := rq.srv.PersonaBookNames()
	for _, e := range data.Server.EntriesByID {
		n := entryName{ID: e.ID, Title: e.Title}
		if n.Title == "" {
			n.Title = "#" + e.ID
		}
		switch {
		case e.Collection != nil:
			n.Book, n.BookRef = *e.Collection, collections[*e.Collection]
		case e.LineageID != nil:
			n.Book, n.BookRef = personas[*e.LineageID], "p"+strconv.FormatInt(*e.LineageID, 10)
			if n.Book == "" {
				n.Book = "#" + strconv.FormatInt(*e.LineageID, 10)
			}
		}
		if n.BookRef != "" {
			n.URL = fmt.Sprintf("/dashboard/s/%s/b/%s/e/%s", rq.sid, n.BookRef, e.ID)
		}
		out[e.ID] = n
	}
	return out, nil
}

// channelOption is one channel of a picker.
type channelOption struct {
	ID string
	// Label is "#name" for a channel, "#parent › name" for a thread.
	Label string
	// Group is the category's name ("" for none).
	Group string
}

// channelList is a server's channels for the pickers; Known is false when
// the API has no channel names (no bot token, or Discord could not be
// read): pickers then take ids.
type channelList struct {
	Known   bool
	Options []channelOption
	names   map[string]string
}

// Name is the label of channel id, or the id itself when it is unknown.
func (c *channelList) Name(id string) string {
	if c != nil {
		if n, ok := c.names[id]; ok {
			return n
		}
	}
	return id
}

// Names labels a list of channel ids.
func (c *channelList) Names(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = c.Name(id)
	}
	return out
}

// Selected reports whether id is among ids (for a picker's options).
func (c *channelList) Selected(id string, ids []string) bool { return slices.Contains(ids, id) }

// Unknown returns the ids of ids that are not one of the channels (a
// deleted channel, or one the bot cannot see), kept so a save does not
// drop them.
func (c *channelList) Unknown(ids []string) []string {
	var out []string
	for _, id := range ids {
		if _, ok := c.names[id]; !ok {
			out = append(out, id)
		}
	}
	return out
}

// pickable are the channel kinds where a conversation happens (the
// pickers list them; categories group them).
var pickable = map[string]bool{
	"GUILD_TEXT": true, "GUILD_ANNOUNCEMENT": true, "GUILD_FORUM": true, "GUILD_MEDIA": true, "GUILD_VOICE": true,
	"GUILD_STAGE_VOICE": true, "PUBLIC_THREAD": true, "PRIVATE_THREAD": true, "ANNOUNCEMENT_THREAD": true,
}

// loadChannels reads the server's channels for the pickers. A failure
// (Discord unreachable) is logged and answers the ids-only list: a page
// never fails for want of channel names.
func (d *Dashboard) loadChannels(rq *req) *channelList {
	var data client.ServerData
	if err := d.api.Do(rq.ctx(), rq.p, client.OpServerChannels, map[string]any{"s": rq.sid}, &data); err != nil {
		d.log.WarnContext(rq.ctx(), "dashboard channel names unavailable", "server", rq.sid, "err", err)
		return &channelList{}
	}
	if data.Server == nil || data.Server.Channels == nil {
		return &channelList{}
	}
	return newChannelList(data.Server.Channels)
}

// newChannelList orders chs for a picker: by category, then channels in
// Discord's order, each thread after its channel.
func newChannelList(chs []model.DiscordChannel) *channelList {
	c := &channelList{Known: true, names: map[string]string{}}
	byID := map[string]model.DiscordChannel{}
	for _, ch := range chs {
		byID[ch.ID] = ch
	}
	parent := func(ch model.DiscordChannel) (model.DiscordChannel, bool) {
		if ch.ParentID == nil {
			return model.DiscordChannel{}, false
		}
		p, ok := byID[*ch.ParentID]
		return p, ok
	}
	var threads []model.DiscordChannel
	for _, ch := range chs {
		if !pickable[ch.Kind] {
			continue
		}
		if strings.HasSuffix(ch.Kind, "_THREAD") {
			threads = append(threads, ch)
			continue
		}
		o := channelOption{ID: ch.ID, Label: "#" + ch.Name}
		if p, ok := parent(ch); ok && p.Kind == "GUILD_CATEGORY" {
			o.Group = p.Name
		}
		c.Options = append(c.Options, o)
		c.names[ch.ID] = o.Label
	}
	for _, th := range threads {
		o := channelOption{ID: th.ID, Label: "#" + th.Name}
		at := len(c.Options)
		if p, ok := parent(th); ok {
			o.Label = "#" + p.Name + " › " + th.Name
			if i := slices.IndexFunc(c.Options, func(x channelOption) bool { return x.ID == p.ID }); i >= 0 {
				o.Group = c.Options[i].Group
				at = i + 1
				for at < len(c.Options) && c.Options[at].Group == o.Group && strings.HasPrefix(c.Options[at].Label, c.Options[i].Label+" › ") {
					at++
				}
			}
		}
		c.Options = slices.Insert(c.Options, at, o)
		c.names[th.ID] = o.Label
	}
	// Channels without a category first, then by category in Discord's
	// order.
	order := map[string]int{"": -1}
	for i, ch := range chs {
		if _, ok := order[ch.Name]; !ok && ch.Kind == "GUILD_CATEGORY" {
			order[ch.Name] = i
		}
	}
	slices.SortStableFunc(c.Options, func(a, b channelOption) int { return order[a.Group] - order[b.Group] })
	return c
}
