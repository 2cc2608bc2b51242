package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"loregate/cmd/internal/cli"
	"loregate/discord"
	"loregate/graph/client"
)

// startDiscord starts the Discord adapter when LOREGATE_DISCORD_TOKEN is
// set (LOREGATE_DISCORD_GUILD_ID registers the commands in one guild, for
// development). The bot calls the same resolvers as /graphql, in-process,
// through api (the typed client the dashboard uses too); its channel
// events refresh channels, the directory behind Server.channels.
// A bot that cannot connect retries with backoff and does not stop the
// HTTP service; a rejected token stops the bot only. gateway (nil when the
// bot is off) reports the connection state for /healthz. The returned stop
// waits (bounded) for the session to close after ctx ends.
func startDiscord(ctx context.Context, cfg *config, api *client.Client, channels *discord.ChannelDirectory, reg prometheus.Registerer, logger *slog.Logger) (gateway discord.GatewayReporter, stop func(), err error) {
	token := cfg.DiscordToken
	if token == "" {
		logger.Info("discord: LOREGATE_DISCORD_TOKEN unset, the bot is off")
		return nil, func() {}, nil
	}
	bot, err := discord.New(discord.Config{
		Token:      token,
		API:        api,
		Logger:     logger,
		GuildID:    cfg.DiscordGuildID,
		Registerer: reg,
		Channels:   channels,
		// The bot downloads a JSON attachment up to the deployment's limit.
		MaxJSONBytes: cfg.Limits.WithDefaults().JSONBytes,
	})
	if err != nil {
		return nil, nil, cli.Usagef("%v", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := bot.Run(ctx); err != nil {
			logger.Error("discord: bot stopped", "err", err)
		}
	}()
	return bot, func() {
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			logger.Warn("discord: session did not close in time")
		}
	}, nil
}
