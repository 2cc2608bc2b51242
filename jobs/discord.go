package jobs

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"
)

// ChannelKind is the kind of a Discord channel for name matching.
type ChannelKind int

// Channel kinds, in tie-break order (legacy markers name text channels,
// so text channels come first, then active threads; docs/contract.md#channels).
const (
	// ChannelText: text, announcement, forum and media channels.
	ChannelText ChannelKind = iota
	// ChannelThread: an active thread.
	ChannelThread
	// ChannelVoice: voice and stage channels (they have a text chat).
	ChannelVoice
	// ChannelOther: categories, directories; never matched.
	ChannelOther
)

// Channel is a guild channel or thread as the backfill sees it.
type Channel struct {
	ID   string
	Name string
	Kind ChannelKind
}

// ChannelLister lists a guild's channels for the channel-name backfill.
// Implementations return *RateLimitError for a Discord 429 and
// *DiscordStatusError for other non-2xx answers.
type ChannelLister interface {
	// GuildChannels lists the guild's channels (no threads).
	GuildChannels(ctx context.Context, guildID string) ([]Channel, error)
	// ActiveThreads lists the guild's active threads.
	ActiveThreads(ctx context.Context, guildID string) ([]Channel, error)
}

// RateLimitError is a Discord 429: retry after RetryAfter.
type RateLimitError struct {
	RetryAfter time.Duration
}

func (e *RateLimitError) Error() string {
	return fmt.Sprintf("discord rate limit: retry after %s", e.RetryAfter)
}

// DiscordStatusError is a non-2xx Discord answer other than 429.
type DiscordStatusError struct {
	Status int
}

func (e *DiscordStatusError) Error() string {
	return fmt.Sprintf("discord answered HTTP %d", e.Status)
}

// DiscordREST is a ChannelLister on Discord's REST API through discordgo
// (v0.29.0, API v9): GET guilds/{id}/channels and
// guilds/{id}/threads/active. It never sleeps on a 429 and never retries
// by itself: the job snoozes or retries instead, so a rate limit or an
// outage never blocks a worker.
type DiscordREST struct {
	session *discordgo.Session
}

// DiscordOpts configure NewDiscordREST.
type DiscordOpts struct {
	// APIBase replaces https://discord.com/ (scheme, host and an optional
	// path prefix), e.g. a REST proxy or a fake Discord in tests. Requests
	// keep their /api/v9/... path below it.
	APIBase string
	// HTTPClient is the client to use (default: 20 s timeout).
	HTTPClient *http.Client
}

// NewDiscordREST returns a lister authenticated with the bot token (without
// the "Bot " prefix). An empty token is an error.
func NewDiscordREST(token string, opts DiscordOpts) (*DiscordREST, error) {
	if strings.TrimSpace(token) == "" {
		return nil, errors.New("jobs: a Discord bot token is required")
	}
	s, err := discordgo.New("Bot " + token)
	if err != nil {
		return nil, fmt.Errorf("jobs: discord session: %w", err)
	}
	client := opts.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: 20 * time.Second}
	}
	if opts.APIBase != "" {
		base, err := url.Parse(opts.APIBase)
		if err != nil || base.Scheme == "" || base.Host == "" {
			return nil, fmt.Errorf("jobs: Discord API base %q is not an absolute URL", opts.APIBase)
		}
		c := *client
		next := c.Transport
		if next == nil {
			next = http.DefaultTransport
		}
		c.Transport = rebase{base: base, next: next}
		client = &c
	}
	s.Client = client
	s.ShouldRetryOnRateLimit = false
	s.MaxRestRetries = 0
	return &DiscordREST{session: s}, nil
}

// rebase sends every request to base instead of discord.com.
type rebase struct {
	base *url.URL
	next http.RoundTripper
}

func (r rebase) RoundTrip(req *http.Request) (*http.Response, error) {
	out := req.Clone(req.Context())
	out.URL.Scheme, out.URL.Host = r.base.Scheme, r.base.Host
	out.URL.Path = strings.TrimSuffix(r.base.Path, "/") + req.URL.Path
	out.Host = r.base.Host
	return r.next.RoundTrip(out)
}

// GuildChannels implements ChannelLister.
func (d *DiscordREST) GuildChannels(ctx context.Context, guildID string) ([]Channel, error) {
	chs, err := d.session.GuildChannels(guildID, discordgo.WithContext(ctx), discordgo.WithRetryOnRatelimit(false), discordgo.WithRestRetries(0))
	if err != nil {
		return nil, discordError(err)
	}
	return convertChannels(chs), nil
}

// ActiveThreads implements ChannelLister.
func (d *DiscordREST) ActiveThreads(ctx context.Context, guildID string) ([]Channel, error) {
	list, err := d.session.GuildThreadsActive(guildID, discordgo.WithContext(ctx), discordgo.WithRetryOnRatelimit(false), discordgo.WithRestRetries(0))
	if err != nil {
		return nil, discordError(err)
	}
	if list == nil {
		return nil, nil
	}
	return convertChannels(list.Threads), nil
}

func convertChannels(chs []*discordgo.Channel) []Channel {
	out := make([]Channel, 0, len(chs))
	for _, c := range chs {
		if c == nil {
			continue
		}
		out = append(out, Channel{ID: c.ID, Name: c.Name, Kind: channelKind(c.Type)})
	}
	return out
}

func channelKind(t discordgo.ChannelType) ChannelKind {
	switch t {
	case discordgo.ChannelTypeGuildText, discordgo.ChannelTypeGuildNews, discordgo.ChannelTypeGuildForum, discordgo.ChannelTypeGuildMedia:
		return ChannelText
	case discordgo.ChannelTypeGuildPublicThread, discordgo.ChannelTypeGuildPrivateThread, discordgo.ChannelTypeGuildNewsThread:
		return ChannelThread
	case discordgo.ChannelTypeGuildVoice, discordgo.ChannelTypeGuildStageVoice:
		return ChannelVoice
	default:
		return ChannelOther
	}
}

// discordError maps discordgo's errors to RateLimitError and
// DiscordStatusError; network errors pass through.
func discordError(err error) error {
	var rl *discordgo.RateLimitError
	if errors.As(err, &rl) {
		after := time.Second
		if rl.RateLimit != nil && rl.TooManyRequests != nil && rl.RetryAfter > 0 {
			after = rl.RetryAfter
		}
		return &RateLimitError{RetryAfter: after}
	}
	var re *discordgo.RESTError
	if errors.As(err, &re) && re.Response != nil {
		return &DiscordStatusError{Status: re.Response.StatusCode}
	}
	return fmt.Errorf("discord request: %w", err)
}
