package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"golang.org/x/text/cases"

	"loregate/lore"
	"loregate/lore/postgres"
)

// BackfillArgs resolves one server's pending legacy #channel names into
// channel ids (docs/contract.md#channels: the periodic
// backfill resolves them into channel ids).
type BackfillArgs struct {
	ServerID string `json:"server_id"`
}

// Kind is "channel_name_backfill".
func (BackfillArgs) Kind() string { return "channel_name_backfill" }

// InsertOpts: unique per server while queued or running, many attempts
// (Discord may be unreachable for a while; markers keep admitting every
// channel meanwhile).
func (BackfillArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 10, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: pendingStates()}}
}

// BackfillReport is the backfill job's report.
type BackfillReport struct {
	// Pending is the number of names found, Resolved those written as
	// channel ids, Unknown those matching no channel (they stay pending),
	// Ambiguous those matching several channels of the best kind (all of
	// them are written).
	Pending   int `json:"pending"`
	Resolved  int `json:"resolved"`
	Unknown   int `json:"unknown"`
	Ambiguous int `json:"ambiguous"`
}

// BackfillWorker works BackfillArgs: list the guild's channels and active
// threads (Discord REST), match every pending name as users write it (see
// ChannelNameKey), and resolve the matches in one transaction under the
// server lock (postgres.Store.ResolveLegacyTags). Unmatched names stay
// pending. A 429 snoozes the job for Discord's retry-after; a 5xx or a
// network failure is retried; 401, 403 and 404 (bad token, no access, the
// bot left the guild) cancel it. Running it again changes nothing.
type BackfillWorker struct {
	river.WorkerDefaults[BackfillArgs]
	Deps
}

// Timeout is 0: an attempt is bounded by the client's JobTimeout (default
// DefaultJobTimeout, room for two Discord calls of at most 20 s each),
// which the rescue delay follows.
func (w *BackfillWorker) Timeout(*river.Job[BackfillArgs]) time.Duration { return 0 }

// Work runs the backfill of one server.
func (w *BackfillWorker) Work(ctx context.Context, job *river.Job[BackfillArgs]) error {
	if w.Discord == nil {
		return river.JobCancel(errors.New("no Discord token configured (LOREGATE_DISCORD_TOKEN): channel names cannot be resolved"))
	}
	server := job.Args.ServerID
	pending, err := w.Store.PendingLegacyTags(ctx, server)
	if err != nil {
		return outcome(err)
	}
	rep := BackfillReport{Pending: len(pending)}
	if len(pending) == 0 {
		_ = river.RecordOutput(ctx, rep)
		w.Logger.InfoContext(ctx, "channel backfill: nothing pending", "job_id", job.ID, "server", server)
		return nil
	}
	channels, err := w.Discord.GuildChannels(ctx, server)
	if err != nil {
		return discordOutcome(err)
	}
	threads, err := w.Discord.ActiveThreads(ctx, server)
	if err != nil {
		return discordOutcome(err)
	}
	index := indexChannels(append(channels, threads...))
	var res []postgres.TagResolution
	for _, p := range pending {
		ids, ambiguous := index.match(p.Name)
		switch {
		case len(ids) == 0:
			rep.Unknown++
			continue
		case ambiguous:
			rep.Ambiguous++
		}
		res = append(res, postgres.TagResolution{EntryID: p.EntryID, Name: p.Name, ChannelIDs: ids})
	}
	n, err := w.Store.ResolveLegacyTags(ctx, server, res)
	if err != nil {
		return outcome(err)
	}
	rep.Resolved = n
	if err := river.RecordOutput(ctx, rep); err != nil {
		return fmt.Errorf("record backfill output: %w", err)
	}
	w.Logger.InfoContext(ctx, "channel backfill done", "job_id", job.ID, "server", server,
		"pending", rep.Pending, "resolved", rep.Resolved, "unknown", rep.Unknown, "ambiguous", rep.Ambiguous)
	return nil
}

func discordOutcome(err error) error {
	var rl *RateLimitError
	if errors.As(err, &rl) {
		return river.JobSnooze(rl.RetryAfter)
	}
	var st *DiscordStatusError
	if errors.As(err, &st) {
		switch st.Status {
		case 401, 403, 404:
			return river.JobCancel(err)
		}
	}
	return err
}

// ChannelNameKey is how a channel name is compared with a legacy #channel
// marker, as Discord users write names: a leading '#' and surrounding space
// dropped, Unicode case folded, and runs of spaces, '-' and '_' treated
// alike (Discord turns spaces into '-' in text channel names), so
// "#General Chat", "general-chat" and "GENERAL_CHAT" match the channel
// "general-chat".
func ChannelNameKey(name string) string {
	name = strings.TrimSpace(name)
	name = strings.TrimSpace(strings.TrimLeft(name, "#"))
	name = cases.Fold().String(name)
	var b strings.Builder
	sep := false
	for _, r := range name {
		if r == ' ' || r == '-' || r == '_' || r == '\t' {
			sep = true
			continue
		}
		if sep && b.Len() > 0 {
			b.WriteByte('-')
		}
		sep = false
		b.WriteRune(r)
	}
	return b.String()
}

// exactName is a channel name as written, '#' and surrounding space dropped
// and case folded, without ChannelNameKey's separator folding.
func exactName(name string) string {
	return cases.Fold().String(strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(name), "#")))
}

type channelIndex map[string][]Channel

func indexChannels(chs []Channel) channelIndex {
	idx := channelIndex{}
	for _, c := range chs {
		if c.Kind == ChannelOther || !lore.ValidSnowflake(c.ID) {
			continue
		}
		k := ChannelNameKey(c.Name)
		if k != "" {
			idx[k] = append(idx[k], c)
		}
	}
	return idx
}

// match returns the ids of the channels of the best kind named name, and
// whether there were several.
func (idx channelIndex) match(name string) ([]string, bool) {
	cands := idx[ChannelNameKey(name)]
	// A channel whose name is exactly the one written (case folded, '#'
	// dropped) wins over ones that only match loosely: "general_chat" must
	// not also resolve to "general-chat".
	exact := exactName(name)
	var same []Channel
	for _, c := range cands {
		if exactName(c.Name) == exact {
			same = append(same, c)
		}
	}
	if len(same) > 0 {
		cands = same
	}
	best := ChannelOther
	for _, c := range cands {
		best = min(best, c.Kind)
	}
	var ids []string
	for _, c := range cands {
		if c.Kind == best && len(ids) < lore.MaxChannelIDs {
			ids = append(ids, c.ID)
		}
	}
	return ids, len(ids) > 1
}

// BackfillScheduleArgs is the periodic job (and the start-up run) that
// enqueues one BackfillArgs per server with pending names. River inserts it
// from the elected leader only.
type BackfillScheduleArgs struct{}

// Kind is "channel_name_backfill_schedule".
func (BackfillScheduleArgs) Kind() string { return "channel_name_backfill_schedule" }

// BackfillScheduleWorker works BackfillScheduleArgs.
type BackfillScheduleWorker struct {
	river.WorkerDefaults[BackfillScheduleArgs]
	Deps
}

// Work enqueues the per-server backfills (unique per server, so a server
// whose backfill is still queued or snoozed gets no second one).
func (w *BackfillScheduleWorker) Work(ctx context.Context, job *river.Job[BackfillScheduleArgs]) error {
	servers, err := w.Store.PendingLegacyServers(ctx)
	if err != nil {
		return err
	}
	if len(servers) == 0 {
		return nil
	}
	client := river.ClientFromContext[pgx.Tx](ctx)
	params := make([]river.InsertManyParams, len(servers))
	for i, s := range servers {
		params[i] = river.InsertManyParams{Args: BackfillArgs{ServerID: s}}
	}
	if _, err := client.InsertMany(ctx, params); err != nil {
		return fmt.Errorf("enqueue backfills: %w", err)
	}
	w.Logger.InfoContext(ctx, "channel backfill scheduled", "job_id", job.ID, "servers", len(servers))
	return nil
}
