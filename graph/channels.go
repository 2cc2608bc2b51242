package graph

import (
	"context"
	"fmt"

	"loregate/graph/model"
	"loregate/lore"
)

// ChannelSource lists the channels and threads of a Discord guild for
// Server.channels. discord.ChannelDirectory implements it on Discord's
// REST API with the bot token. Errors are failures to read Discord.
type ChannelSource interface {
	GuildChannels(ctx context.Context, guild string) ([]*model.DiscordChannel, error)
}

// serverChannels answers Server.channels: null without a ChannelSource, an
// UNAVAILABLE error when Discord cannot be read. The server was resolved
// (and its visibility checked) by the parent field.
func (r *Resolver) serverChannels(ctx context.Context, server string) ([]*model.DiscordChannel, error) {
	if r.Channels == nil {
		return nil, nil
	}
	chs, err := r.Channels.GuildChannels(ctx, server)
	if err != nil {
		r.Logger.WarnContext(ctx, "discord channels unavailable", "request_id", RequestID(ctx), "server", server, "err", err)
		return nil, fmt.Errorf("the server's Discord channels could not be read: %w", lore.ErrUnavailable)
	}
	return chs, nil
}
