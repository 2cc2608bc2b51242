package main

import (
	"context"
	"log/slog"
	"os"
	"time"

	"loregate/discord"
	"loregate/graph"
)

// startDiscord starts the Discord adapter when LOREGATE_DISCORD_TOKEN is
// set (LOREGATE_DISCORD_GUILD_ID registers the commands in one guild, for
// development). The bot calls the same resolvers as /graphql, in-process.
// A bot that cannot connect is logged and does not stop the HTTP service.
// The returned stop waits (bounded) for the session to close after ctx
// ends.
func startDiscord(ctx context.Context, resolver *graph.Resolver, metrics *graph.Metrics, logger *slog.Logger) (stop func(), err error) {
	token := os.Getenv("LOREGATE_DISCORD_TOKEN")
	if token == "" {
		logger.Info("discord: LOREGATE_DISCORD_TOKEN unset, the bot is off")
		return func() {}, nil
	}
	api := graph.NewServer(graph.Config{Resolver: resolver, Logger: logger, Metrics: metrics})
	bot, err := discord.New(discord.Config{
		Token:   token,
		API:     api,
		Logger:  logger,
		GuildID: os.Getenv("LOREGATE_DISCORD_GUILD_ID"),
	})
	if err != nil {
		return nil, usageError("%v", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := bot.Run(ctx); err != nil {
			logger.Error("discord: bot stopped", "err", err)
		}
	}()
	return func() {
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			logger.Warn("discord: session did not close in time")
		}
	}, nil
}
