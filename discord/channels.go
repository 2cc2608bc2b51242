package discord

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"loregate/graph/model"
)

// Bounds of a ChannelDirectory (docs/discord.md "Channel names").
const (
	// ChannelTTL is how long a guild's listing is served from memory
	// before it is read again (channel events drop it sooner).
	ChannelTTL = 5 * time.Minute
	// MaxChannelGuilds bounds the guilds held; the least recently read
	// listing goes first.
	MaxChannelGuilds = 1000
	// MaxGuildChannels bounds one guild's listing (channels first, then
	// threads).
	MaxGuildChannels = 1000
	// channelFetchTimeout bounds one read of a guild from Discord.
	channelFetchTimeout = 5 * time.Second
)

// ChannelDirectory answers graph.ChannelSource from Discord's REST API
// with the bot token: a guild's channels and active public threads
// (private threads are left out: their names are not every member's to
// see). Listings are cached per guild for ChannelTTL, at most
// MaxChannelGuilds guilds; the bot's gateway drops a guild's listing on
// every channel or thread event (Invalidate), so a rename shows at once.
// Concurrent reads of one guild share one request. Safe for concurrent
// use.
type ChannelDirectory struct {
	rest *REST
	now  func() time.Time

	mu     sync.Mutex
	guilds map[string]*guildChannels
}

type guildChannels struct {
	ready   chan struct{} // closed when the read finished
	list    []*model.DiscordChannel
	err     error
	fetched time.Time
	used    time.Time
}

// NewChannelDirectory returns a directory reading through rest.
func NewChannelDirectory(rest *REST) *ChannelDirectory {
	return &ChannelDirectory{rest: rest, now: time.Now, guilds: map[string]*guildChannels{}}
}

// GuildChannels returns guild's channels and active public threads,
// categories first as Discord orders them; an error when Discord cannot be
// read (the last listing is served while it is younger than ChannelTTL).
func (d *ChannelDirectory) GuildChannels(ctx context.Context, guild string) ([]*model.DiscordChannel, error) {
	d.mu.Lock()
	now := d.now()
	g := d.guilds[guild]
	if g != nil {
		select {
		case <-g.ready:
			if g.err != nil || now.Sub(g.fetched) >= ChannelTTL {
				g = nil
			}
		default:
		}
	}
	if g == nil {
		g = &guildChannels{ready: make(chan struct{})}
		d.evictLocked()
		d.guilds[guild] = g
		go d.fetch(guild, g)
	}
	g.used = now
	d.mu.Unlock()
	select {
	case <-g.ready:
		return g.list, g.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Invalidate drops guild's listing: the next read asks Discord.
func (d *ChannelDirectory) Invalidate(guild string) {
	d.mu.Lock()
	delete(d.guilds, guild)
	d.mu.Unlock()
}

// evictLocked makes room for one more guild (d.mu held).
func (d *ChannelDirectory) evictLocked() {
	for len(d.guilds) >= MaxChannelGuilds {
		oldest, at := "", time.Time{}
		for id, g := range d.guilds {
			if oldest == "" || g.used.Before(at) {
				oldest, at = id, g.used
			}
		}
		delete(d.guilds, oldest)
	}
}

// fetch reads guild from Discord into g (its own timeout: the listing is
// shared by every waiting request).
func (d *ChannelDirectory) fetch(guild string, g *guildChannels) {
	ctx, cancel := context.WithTimeout(context.Background(), channelFetchTimeout)
	defer cancel()
	g.list, g.err = d.read(ctx, guild)
	g.fetched = d.now()
	close(g.ready)
}

func (d *ChannelDirectory) read(ctx context.Context, guild string) ([]*model.DiscordChannel, error) {
	opts := []discordgo.RequestOption{discordgo.WithContext(ctx), discordgo.WithRetryOnRatelimit(false), discordgo.WithRestRetries(0)}
	chs, err := d.rest.session.GuildChannels(guild, opts...)
	if err != nil {
		return nil, fmt.Errorf("guild channels: %w", restError(err))
	}
	threads, err := d.rest.session.GuildThreadsActive(guild, opts...)
	if err != nil {
		return nil, fmt.Errorf("guild threads: %w", restError(err))
	}
	all := chs
	if threads != nil {
		all = append(all, threads.Threads...)
	}
	out := make([]*model.DiscordChannel, 0, min(len(all), MaxGuildChannels))
	for _, c := range all {
		if c == nil || c.Type == discordgo.ChannelTypeGuildPrivateThread || len(out) == MaxGuildChannels {
			continue
		}
		m := &model.DiscordChannel{ID: c.ID, Name: c.Name, Kind: channelTypeName(c.Type)}
		if c.ParentID != "" {
			p := c.ParentID
			m.ParentID = &p
		}
		out = append(out, m)
	}
	return out, nil
}

// channelTypeNames are Discord's names of its channel types.
var channelTypeNames = map[discordgo.ChannelType]string{
	discordgo.ChannelTypeGuildText: "GUILD_TEXT", discordgo.ChannelTypeDM: "DM", discordgo.ChannelTypeGuildVoice: "GUILD_VOICE",
	discordgo.ChannelTypeGroupDM: "GROUP_DM", discordgo.ChannelTypeGuildCategory: "GUILD_CATEGORY",
	discordgo.ChannelTypeGuildNews: "GUILD_ANNOUNCEMENT", discordgo.ChannelTypeGuildStore: "GUILD_STORE",
	discordgo.ChannelTypeGuildNewsThread: "ANNOUNCEMENT_THREAD", discordgo.ChannelTypeGuildPublicThread: "PUBLIC_THREAD",
	discordgo.ChannelTypeGuildPrivateThread: "PRIVATE_THREAD", discordgo.ChannelTypeGuildStageVoice: "GUILD_STAGE_VOICE",
	discordgo.ChannelTypeGuildDirectory: "GUILD_DIRECTORY", discordgo.ChannelTypeGuildForum: "GUILD_FORUM",
	discordgo.ChannelTypeGuildMedia: "GUILD_MEDIA",
}

func channelTypeName(t discordgo.ChannelType) string {
	if s, ok := channelTypeNames[t]; ok {
		return s
	}
	return fmt.Sprintf("TYPE_%d", int(t))
}

// watchChannels drops a guild's directory listing on every channel and
// thread event of the gateway; the returned func removes the handlers.
func (b *Bot) watchChannels(s *discordgo.Session) func() {
	if b.channels == nil {
		return func() {}
	}
	drop := b.channels.Invalidate
	removers := []func(){
		s.AddHandler(func(_ *discordgo.Session, e *discordgo.ChannelCreate) { drop(e.GuildID) }),
		s.AddHandler(func(_ *discordgo.Session, e *discordgo.ChannelUpdate) { drop(e.GuildID) }),
		s.AddHandler(func(_ *discordgo.Session, e *discordgo.ChannelDelete) { drop(e.GuildID) }),
		s.AddHandler(func(_ *discordgo.Session, e *discordgo.ThreadCreate) { drop(e.GuildID) }),
		s.AddHandler(func(_ *discordgo.Session, e *discordgo.ThreadUpdate) { drop(e.GuildID) }),
		s.AddHandler(func(_ *discordgo.Session, e *discordgo.ThreadDelete) { drop(e.GuildID) }),
		s.AddHandler(func(_ *discordgo.Session, e *discordgo.ThreadListSync) { drop(e.GuildID) }),
	}
	return func() {
		for _, r := range removers {
			r()
		}
	}
}
