package transfer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"loregate/lore"
	"loregate/lore/backup"
	"loregate/lore/i18n"
)

// LegacyMemory is one server memory of a legacy bot, the input of a
// migration (docs/legacy-migration.md gives the shape): a JSON object per
// line, or the memories of a workspace backup bundle.
type LegacyMemory struct {
	// ServerID is the guild snowflake the memory belongs to.
	ServerID string `json:"server_id"`
	// Memory carries id (required: recorded so a rerun skips it),
	// persona_lineage_id (null: Serverwide), content, keyword_tags (or
	// tags; "#name" tags are legacy channel markers), channel_disc_ids and
	// created_at.
	backup.Memory
}

// SourceID is the memory's id as text (a JSON string or number).
func (m LegacyMemory) SourceID() string {
	return strings.Trim(strings.TrimSpace(string(m.ID)), `"`)
}

// MaxMigrationBytes bounds a migration input (one file or query result).
const MaxMigrationBytes = 256 << 20

// ParseMemories reads a migration input: JSON lines of LegacyMemory, or a
// workspace backup bundle (its server's memories: server_memories and the
// buckets' memories, with the bucket's lineage). Blank lines are skipped.
// A malformed line, a missing id or server is lore.ErrInvalid naming the
// line; nothing is returned then.
func ParseMemories(data []byte) ([]LegacyMemory, error) {
	if len(data) > MaxMigrationBytes {
		return nil, lore.Reject("input", i18n.TooManyBytes, lore.Params{"size": len(data), "max": MaxMigrationBytes})
	}
	// A bundle is one JSON document with the backup format marker; JSON
	// lines never decode as one (a second object follows the first).
	if doc, err := backup.Decode(bytes.TrimSpace(data)); err == nil {
		ms := bundleMemories(doc)
		for i, m := range ms {
			if err := checkMemory(m); err != nil {
				return nil, lore.WithFieldPrefix(fmt.Sprintf("memory %d of the bundle", i+1), err)
			}
		}
		return ms, nil
	}
	var out []LegacyMemory
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var m LegacyMemory
		dec := json.NewDecoder(bytes.NewReader(line))
		if err := dec.Decode(&m); err != nil {
			return nil, lore.Reject(fmt.Sprintf("line %d", n), i18n.NotAMemoryObject, lore.Params{"detail": err.Error()})
		}
		if err := checkMemory(m); err != nil {
			return nil, lore.WithFieldPrefix(fmt.Sprintf("line %d", n), err)
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		return nil, lore.Reject("input", i18n.NotJSONLines, lore.Params{"detail": err.Error()})
	}
	return out, nil
}

func checkMemory(m LegacyMemory) error {
	if !lore.ValidSnowflake(m.ServerID) {
		return lore.Reject("server_id", i18n.NotSnowflake, lore.Params{"value": lore.ClipBytes(m.ServerID, 40)})
	}
	if id := m.SourceID(); id == "" || len(id) > 200 {
		return lore.Reject("id", i18n.MemoryIDRequired, nil)
	}
	if m.PersonaLineageID != nil && *m.PersonaLineageID < 0 {
		return lore.Reject("persona_lineage_id", i18n.NullOrPositiveLineage, nil)
	}
	return nil
}

func bundleMemories(doc backup.Document) []LegacyMemory {
	var out []LegacyMemory
	for _, b := range doc.Personas {
		for _, m := range b.Memories {
			l := b.LineageID
			m.PersonaLineageID = &l
			out = append(out, LegacyMemory{ServerID: doc.Server.DiscordID, Memory: m})
		}
	}
	for _, m := range doc.ServerMemories {
		out = append(out, LegacyMemory{ServerID: doc.Server.DiscordID, Memory: m})
	}
	return out
}

// MigrateOptions control a migration run.
type MigrateOptions struct {
	// Apply writes; false previews (every block runs and is rolled back,
	// so the preview is exactly what an apply would do now).
	Apply bool
	// Actor, SourceName and SourceSHA256 are recorded in the history.
	Actor, SourceName, SourceSHA256 string
	// Progress, when set, is called after each server's block with the
	// servers done and the total.
	Progress func(done, total int)
}

// ServerMigration is what a migration did (or would do) on one server.
type ServerMigration struct {
	Server string `json:"server"`
	// ImportID is the server block's history record (0: preview, failed
	// or nothing to write).
	ImportID int64 `json:"import_id,omitempty"`
	// Read memories of this server; AlreadyMigrated were skipped as
	// recorded by an earlier run; Converted became entries, of which Added
	// were written and Duplicates already present.
	Read            int `json:"read"`
	AlreadyMigrated int `json:"already_migrated"`
	Converted       int `json:"converted"`
	Added           int `json:"added"`
	Duplicates      int `json:"duplicates"`
	// ChannelOnly and Untagged memories stay out (NotConverted names the
	// first 100).
	ChannelOnly  int                   `json:"channel_only"`
	Untagged     int                   `json:"untagged"`
	NotConverted []backup.NotConverted `json:"not_converted,omitempty"`
	// Error is why the block was aborted (nothing of it was written).
	Error string `json:"error,omitempty"`
}

// MigrationReport is a migration run's report.
type MigrationReport struct {
	Apply   bool              `json:"apply"`
	Servers []ServerMigration `json:"servers"`
	// Totals over the servers; Failed counts aborted blocks.
	Read            int `json:"read"`
	AlreadyMigrated int `json:"already_migrated"`
	Added           int `json:"added"`
	Duplicates      int `json:"duplicates"`
	ChannelOnly     int `json:"channel_only"`
	Untagged        int `json:"untagged"`
	Failed          int `json:"failed"`
}

// MigrateMemories migrates legacy keyword memories into lore with the
// mapping of lore/backup.ConvertMemory (docs/contract.md "Legacy keyword
// memories"): only memories with a nonempty cleaned keyword tag become
// entries (channel-only and untagged ones stay out and are reported);
// entries scan five messages, keep server, lineage, content, channel ids,
// legacy #channel markers (never keys) and the source id and timestamp,
// go to the General collection (Serverwide), and are Always On when the
// server's memory tagging is off.
//
// Each server is one atomic block under its lock: memories a previous run
// recorded are skipped, the rest are validated (a memory over a limit
// aborts the block, naming it; nothing is truncated), appended to their
// scopes (duplicates skipped) and recorded in the history with their source
// ids, so a rerun skips them and undoImport rolls the block back. A server
// unknown to loregate, or a block that fails, is reported and the others go
// on. The memories are only read.
func MigrateMemories(ctx context.Context, st lore.HistoryStore, memories []LegacyMemory, opts MigrateOptions) (MigrationReport, error) {
	byServer := map[string][]LegacyMemory{}
	var servers []string
	for _, m := range memories {
		if _, ok := byServer[m.ServerID]; !ok {
			servers = append(servers, m.ServerID)
		}
		byServer[m.ServerID] = append(byServer[m.ServerID], m)
	}
	slices.Sort(servers)
	rep := MigrationReport{Apply: opts.Apply, Servers: []ServerMigration{}}
	for i, s := range servers {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		sm, err := migrateServer(ctx, st, s, byServer[s], opts)
		if err != nil {
			if _, ok := lore.Explain(err); !ok || errors.Is(err, lore.ErrUnavailable) {
				return rep, err // the database failed: stop, a rerun resumes
			}
			msg, _ := lore.Explain(err)
			if errors.Is(err, lore.ErrNotFound) {
				msg = "the server is not registered in loregate (or was deleted): skipped"
			}
			sm = ServerMigration{Server: s, Read: len(byServer[s]), Error: msg}
			rep.Failed++
		}
		rep.Servers = append(rep.Servers, sm)
		rep.Read += sm.Read
		rep.AlreadyMigrated += sm.AlreadyMigrated
		rep.Added += sm.Added
		rep.Duplicates += sm.Duplicates
		rep.ChannelOnly += sm.ChannelOnly
		rep.Untagged += sm.Untagged
		if opts.Progress != nil {
			opts.Progress(i+1, len(servers))
		}
	}
	return rep, nil
}

func migrateServer(ctx context.Context, st lore.HistoryStore, server string, ms []LegacyMemory, opts MigrateOptions) (ServerMigration, error) {
	var out ServerMigration
	err := st.Atomic(ctx, server, func(ctx context.Context, st lore.HistoryStore) error {
		out = ServerMigration{Server: server, Read: len(ms)}
		sv, err := st.GetServer(ctx, server)
		if err != nil {
			return err
		}
		srcIDs := make([]string, len(ms))
		for i, m := range ms {
			srcIDs[i] = m.SourceID()
		}
		known, err := st.MigratedSources(ctx, server, srcIDs)
		if err != nil {
			return err
		}
		lim := st.Limits()
		conv := map[lore.Lineage][]lore.Entry{}
		var sources []string
		seen := map[string]bool{}
		for _, m := range ms {
			id := m.SourceID()
			if known[id] || seen[id] {
				out.AlreadyMigrated++
				continue
			}
			seen[id] = true
			lineage := lore.Serverwide
			if m.PersonaLineageID != nil && *m.PersonaLineageID > 0 {
				lineage = lore.Lineage(*m.PersonaLineageID)
			}
			e, outcome := backup.ConvertMemory(m.Memory, server, lineage, !sv.Settings.MemoryTagging)
			switch outcome {
			case backup.Converted:
				if err := e.ValidateWith(lim); err != nil {
					return lore.WithFieldPrefix("memory "+lore.ClipBytes(id, 64), err)
				}
				out.Converted++
				conv[lineage] = append(conv[lineage], e)
				sources = append(sources, id)
				continue
			case backup.ChannelOnly:
				out.ChannelOnly++
			default:
				out.Untagged++
			}
			if len(out.NotConverted) < 100 {
				out.NotConverted = append(out.NotConverted, backup.NotConverted{Source: lore.ClipBytes(id, 64), Reason: outcome.String()})
			}
		}
		if len(sources) == 0 {
			return nil
		}
		before, err := st.ListServerEntries(ctx, server)
		if err != nil {
			return err
		}
		newGeneral, err := missingCollection(ctx, st, server, lore.DefaultCollection, len(conv[lore.Serverwide]) > 0)
		if err != nil {
			return err
		}
		lineages := make([]lore.Lineage, 0, len(conv))
		for l := range conv {
			lineages = append(lineages, l)
		}
		slices.Sort(lineages)
		for _, l := range lineages {
			res, err := appendConverted(ctx, st, server, l, conv[l])
			if err != nil {
				return err
			}
			out.Added += res.Added
			out.Duplicates += res.Duplicates
		}
		after, err := st.ListServerEntries(ctx, server)
		if err != nil {
			return err
		}
		created, _ := diff(before, after)
		report, err := json.Marshal(out)
		if err != nil {
			return fmt.Errorf("encode migration report: %w", err)
		}
		rec, err := st.RecordHistory(ctx, lore.HistoryRecord{Server: server, Kind: lore.HistoryMigration, Actor: opts.Actor,
			SourceName: opts.SourceName, SourceSHA256: opts.SourceSHA256, Mode: "append",
			Target: lore.HistoryTarget{Whole: true}, Report: report, CreatedIDs: ids(created), SourceIDs: sources,
			CreatedCollection: newGeneral})
		if err != nil {
			return err
		}
		out.ImportID = rec.ID
		if !opts.Apply {
			return errPreview
		}
		return nil
	})
	if errors.Is(err, errPreview) {
		out.ImportID = 0
		err = nil
	}
	return out, err
}

// missingCollection returns name when the server has no collection of that
// name and the caller is about to create it (when), else "".
func missingCollection(ctx context.Context, st lore.Store, server, name string, when bool) (string, error) {
	if !when {
		return "", nil
	}
	_, err := st.GetCollectionByName(ctx, server, name)
	switch {
	case errors.Is(err, lore.ErrNotFound):
		return name, nil
	case err != nil:
		return "", err
	}
	return "", nil
}
