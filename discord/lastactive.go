package discord

import (
	"context"
	"fmt"
	"loregate/graph/client"
	"loregate/graph/model"
	"time"
)

// lastActivation is when the panel's entry last entered a recorded turn of
// this channel's conversation (the persona's lineage in Persona scope,
// Serverwide lore only in Serverwide scope), looking back over the last
// 200 turns.
type lastActivation struct {
	// checked is set when the log was read; at is zero when the entry did
	// not enter any of those turns.
	checked bool
	at      time.Time
}

// loadLastActivation reads the activation log for the entry view. A
// failure leaves the view without the line (it is a hint, not state).
func (b *Bot) loadLastActivation(ctx context.Context, in *request, pn *panel) {
	if pn.entry == nil || in.i.ChannelID == "" {
		return
	}
	vars := map[string]any{"s": pn.guild, "c": in.i.ChannelID, "last": 200}
	if pn.persona && pn.lineage != 0 {
		vars["l"] = pn.lineage
	}
	var out struct {
		ActivationLog []model.ActivationLogEntry `json:"activationLog"`
	}
	if err := b.api.Do(ctx, in.p, client.OpActivationLog, vars, &out); err != nil {
		b.log.WarnContext(ctx, "discord: read activation log", "guild", pn.guild, "err", redact(err))
		return
	}
	pn.last.checked = true
	for _, turn := range out.ActivationLog {
		for _, e := range turn.Admitted {
			if e.ID == pn.entry.ID {
				pn.last.at = turn.At
				return
			}
		}
	}
}

// lastActivationText is the entry view's line: a Discord timestamp, which
// each member's client shows relative and in their own language.
func lastActivationText(t tr, l lastActivation) string {
	if !l.checked {
		return ""
	}
	if l.at.IsZero() {
		return t.S("Not activated in this channel's recorded turns.")
	}
	return t.S("Last activated in this channel: %s", fmt.Sprintf("<t:%d:R>", l.at.Unix()))
}
