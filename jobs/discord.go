package jobs

import (
	"context"
	"fmt"
	"time"
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
// discord.REST implements it on Discord's REST API. Implementations return *RateLimitError for a Discord 429 and
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
