package discord

import (
	"context"
	"fmt"
	"time"

	"github.com/bwmarrin/discordgo"

	"loregate/graph/client"
	"loregate/graph/model"
)

// watchMembership follows the bot's guild membership (docs/servers.md): a
// GUILD_DELETE marks the server left unless Discord says the guild is only
// unavailable (an outage marks nothing), and READY marks left the member
// servers of this shard that it does not list. The lore stays for the
// retention; GUILD_CREATE (registerServer) restores it. It returns the
// function that removes the handlers.
func (b *Bot) watchMembership(ctx context.Context) func() {
	removeDelete := b.session.AddHandler(func(_ *discordgo.Session, g *discordgo.GuildDelete) {
		if g.Guild == nil || g.Unavailable {
			return
		}
		gctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		e, err := refused(b.api.Mutate(gctx, servicePrincipal(), client.OpMarkServerLeft, map[string]any{"serverDiscordId": g.ID}, nil))
		if err == nil && e != nil {
			err = fmt.Errorf("%s: %w", e.Code, errUnavailable)
		}
		if err != nil {
			b.log.WarnContext(gctx, "discord: mark guild left", "guild", g.ID, "err", redact(err))
			return
		}
		b.log.InfoContext(gctx, "discord: removed from guild; server marked left", "guild", g.ID)
	})
	removeReady := b.session.AddHandler(func(_ *discordgo.Session, r *discordgo.Ready) {
		present := make([]string, 0, len(r.Guilds))
		for _, g := range r.Guilds {
			if g != nil {
				present = append(present, g.ID)
			}
		}
		shard, shards := 0, 1
		if r.Shard != nil {
			shard, shards = r.Shard[0], r.Shard[1]
		}
		gctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		var out model.ReconcileServersPayload
		e, err := refused(b.api.Mutate(gctx, servicePrincipal(), client.OpReconcileServers,
			map[string]any{"presentServerDiscordIds": present, "shardId": shard, "shardCount": shards}, &out))
		if err == nil && e != nil {
			err = fmt.Errorf("%s: %w", e.Code, errUnavailable)
		}
		if err != nil {
			b.log.WarnContext(gctx, "discord: reconcile guilds", "guilds", len(present), "err", redact(err))
			return
		}
		if n := len(out.MarkedLeft); n > 0 {
			b.log.WarnContext(gctx, "discord: guilds missing from READY marked left", "count", n, "guilds", len(present))
		}
	})
	return func() { removeDelete(); removeReady() }
}
