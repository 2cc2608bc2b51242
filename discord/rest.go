package discord

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"loregate/jobs"
)

// REST is a jobs.ChannelLister on Discord's REST API through discordgo
// (v0.29.0, API v9): GET guilds/{id}/channels and
// guilds/{id}/threads/active. It never sleeps on a 429 and never retries
// by itself: the job snoozes or retries instead, so a rate limit or an
// outage never blocks a worker.
type REST struct {
	session *discordgo.Session
}

// RESTOptions configure NewREST.
type RESTOptions struct {
	// APIBase replaces https://discord.com/ (scheme, host and an optional
	// path prefix), e.g. a REST proxy or a fake Discord in tests. Requests
	// keep their /api/v9/... path below it.
	APIBase string
	// HTTPClient is the client to use (default: 20 s timeout).
	HTTPClient *http.Client
}

// NewREST returns a lister authenticated with the bot token (without
// the "Bot " prefix). An empty token is an error.
func NewREST(token string, opts RESTOptions) (*REST, error) {
	if strings.TrimSpace(token) == "" {
		return nil, errors.New("discord: a bot token is required")
	}
	s, err := discordgo.New("Bot " + token)
	if err != nil {
		return nil, fmt.Errorf("discord: session: %w", err)
	}
	client := opts.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: 20 * time.Second}
	}
	if opts.APIBase != "" {
		base, err := url.Parse(opts.APIBase)
		if err != nil || base.Scheme == "" || base.Host == "" {
			return nil, fmt.Errorf("discord: API base %q is not an absolute URL", opts.APIBase)
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
	return &REST{session: s}, nil
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

// GuildChannels implements jobs.ChannelLister.
func (d *REST) GuildChannels(ctx context.Context, guildID string) ([]jobs.Channel, error) {
	chs, err := d.session.GuildChannels(guildID, discordgo.WithContext(ctx), discordgo.WithRetryOnRatelimit(false), discordgo.WithRestRetries(0))
	if err != nil {
		return nil, restError(err)
	}
	return restChannels(chs), nil
}

// ActiveThreads implements jobs.ChannelLister.
func (d *REST) ActiveThreads(ctx context.Context, guildID string) ([]jobs.Channel, error) {
	list, err := d.session.GuildThreadsActive(guildID, discordgo.WithContext(ctx), discordgo.WithRetryOnRatelimit(false), discordgo.WithRestRetries(0))
	if err != nil {
		return nil, restError(err)
	}
	if list == nil {
		return nil, nil
	}
	return restChannels(list.Threads), nil
}

func restChannels(chs []*discordgo.Channel) []jobs.Channel {
	out := make([]jobs.Channel, 0, len(chs))
	for _, c := range chs {
		if c == nil {
			continue
		}
		out = append(out, jobs.Channel{ID: c.ID, Name: c.Name, Kind: restChannelKind(c.Type)})
	}
	return out
}

func restChannelKind(t discordgo.ChannelType) jobs.ChannelKind {
	switch t {
	case discordgo.ChannelTypeGuildText, discordgo.ChannelTypeGuildNews, discordgo.ChannelTypeGuildForum, discordgo.ChannelTypeGuildMedia:
		return jobs.ChannelText
	case discordgo.ChannelTypeGuildPublicThread, discordgo.ChannelTypeGuildPrivateThread, discordgo.ChannelTypeGuildNewsThread:
		return jobs.ChannelThread
	case discordgo.ChannelTypeGuildVoice, discordgo.ChannelTypeGuildStageVoice:
		return jobs.ChannelVoice
	default:
		return jobs.ChannelOther
	}
}

// restError maps discordgo's errors to jobs.RateLimitError and
// jobs.DiscordStatusError; network errors pass through.
func restError(err error) error {
	var rl *discordgo.RateLimitError
	if errors.As(err, &rl) {
		after := time.Second
		if rl.RateLimit != nil && rl.TooManyRequests != nil && rl.RetryAfter > 0 {
			after = rl.RetryAfter
		}
		return &jobs.RateLimitError{RetryAfter: after}
	}
	var re *discordgo.RESTError
	if errors.As(err, &re) && re.Response != nil {
		return &jobs.DiscordStatusError{Status: re.Response.StatusCode}
	}
	return fmt.Errorf("discord request: %w", err)
}
