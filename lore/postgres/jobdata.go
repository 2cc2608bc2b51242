package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"loregate/lore"
	"loregate/lore/backup"
	"loregate/lore/i18n"
)

// Blob, Artifact and JobReport are lore's job data types (lore/jobdata.go),
// named here too for the callers of this package.
type (
	Blob      = lore.Blob
	Artifact  = lore.Artifact
	JobReport = lore.JobReport
)

// Blob kinds (lore.BlobLorebook, lore.BlobBackup).
const (
	BlobLorebook = lore.BlobLorebook
	BlobBackup   = lore.BlobBackup
)

// PutBlob stores b (Server, Kind, FileName, Data, ExpiresAt; Size and
// SHA256 are computed) and returns it with its id. ErrNotFound for an
// unknown server; ErrInvalid for an unknown kind or a file name over 255
// characters.
func (s *Store) PutBlob(ctx context.Context, b Blob) (Blob, error) {
	const op = "put blob"
	if err := checkServerID(b.Server); err != nil {
		return Blob{}, wrapErr(op, err)
	}
	if b.Kind != BlobLorebook && b.Kind != BlobBackup {
		return Blob{}, wrapErr(op, lore.Reject("kind", i18n.NotOneOf, lore.Params{"value": lore.ClipBytes(string(b.Kind), 40), "allowed": []string{string(BlobLorebook), string(BlobBackup)}}))
	}
	b.Size, b.SHA256 = int64(len(b.Data)), sha256Hex(b.Data)
	if b.Data == nil {
		b.Data = []byte{}
	}
	meta := b.Meta
	if len(meta) == 0 {
		meta = json.RawMessage(`{}`)
	}
	err := s.db.QueryRow(ctx, blobInsert, b.Server, b.Kind, lore.TruncateRunes(b.FileName, 255), b.Size, b.SHA256, b.Data, b.ExpiresAt, meta).
		Scan(&b.ID, &b.CreatedAt)
	return b, wrapErr(op, err)
}

// GetBlob returns the blob with its data, or ErrNotFound.
func (s *Store) GetBlob(ctx context.Context, id int64) (Blob, error) {
	var b Blob
	err := s.db.QueryRow(ctx, blobGet, id).Scan(&b.ID, &b.Server, &b.Kind, &b.FileName, &b.Size, &b.SHA256, &b.Data, &b.CreatedAt, &b.ExpiresAt, &b.Meta)
	if errors.Is(err, pgx.ErrNoRows) {
		return Blob{}, wrapErr("get blob", notFound("blob", id))
	}
	return b, wrapErr("get blob", err)
}

// DeleteBlob removes a blob; a missing one is not an error (jobs delete
// their blob when done, and a retried job may find it gone).
func (s *Store) DeleteBlob(ctx context.Context, id int64) error {
	_, err := s.db.Exec(ctx, blobDelete, id)
	return wrapErr("delete blob", err)
}

// PutArtifact stores a (Server, JobID, Kind, FileName, ContentType, Data,
// ExpiresAt; Size and SHA256 computed). A second artifact for the same job
// is ErrDuplicateName.
func (s *Store) PutArtifact(ctx context.Context, a Artifact) (Artifact, error) {
	const op = "put artifact"
	if err := checkServerID(a.Server); err != nil {
		return Artifact{}, wrapErr(op, err)
	}
	a.Size, a.SHA256 = int64(len(a.Data)), sha256Hex(a.Data)
	err := s.db.QueryRow(ctx, artifactInsert, a.Server, a.JobID, a.Kind, lore.TruncateRunes(a.FileName, 255), a.ContentType, a.Size, a.SHA256, a.Data, a.ExpiresAt).
		Scan(&a.ID, &a.CreatedAt)
	return a, wrapErr(op, err)
}

func scanArtifact(row pgx.Row, withData bool) (Artifact, error) {
	var a Artifact
	dest := []any{&a.ID, &a.Server, &a.JobID, &a.Kind, &a.FileName, &a.ContentType, &a.Size, &a.SHA256, &a.CreatedAt, &a.ExpiresAt}
	if withData {
		dest = append(dest, &a.Data)
	}
	err := row.Scan(dest...)
	return a, err
}

// GetArtifactByJob returns the artifact a job produced, without data, or
// ErrNotFound.
func (s *Store) GetArtifactByJob(ctx context.Context, jobID int64) (Artifact, error) {
	a, err := scanArtifact(s.db.QueryRow(ctx, artifactGetByJob, jobID), false)
	if errors.Is(err, pgx.ErrNoRows) {
		return Artifact{}, wrapErr("get artifact", notFound("artifact of job", jobID))
	}
	return a, wrapErr("get artifact", err)
}

// GetArtifact returns an artifact's metadata without its data, or
// ErrNotFound, so that callers check access before reading the file.
func (s *Store) GetArtifact(ctx context.Context, id int64) (Artifact, error) {
	a, err := scanArtifact(s.db.QueryRow(ctx, artifactGet, id), false)
	if errors.Is(err, pgx.ErrNoRows) {
		return Artifact{}, wrapErr("get artifact", notFound("artifact", id))
	}
	return a, wrapErr("get artifact", err)
}

// GetArtifactData returns the artifact with its data, or ErrNotFound. The
// caller checks ExpiresAt and the reader's permission on Server.
func (s *Store) GetArtifactData(ctx context.Context, id int64) (Artifact, error) {
	a, err := scanArtifact(s.db.QueryRow(ctx, artifactGetData, id), true)
	if errors.Is(err, pgx.ErrNoRows) {
		return Artifact{}, wrapErr("get artifact", notFound("artifact", id))
	}
	return a, wrapErr("get artifact", err)
}

// PutJobReport records what job r.JobID did. A second report for the same
// job is ErrDuplicateName (a job completes once).
func (s *Store) PutJobReport(ctx context.Context, r JobReport) error {
	_, err := s.db.Exec(ctx, reportInsert, r.JobID, r.Server, r.Kind, r.Report)
	return wrapErr("put job report", err)
}

// GetJobReport returns the report of a job, or ErrNotFound.
func (s *Store) GetJobReport(ctx context.Context, jobID int64) (JobReport, error) {
	var r JobReport
	err := s.db.QueryRow(ctx, reportGet, jobID).Scan(&r.JobID, &r.Server, &r.Kind, &r.Report, &r.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return JobReport{}, wrapErr("get job report", notFound("report of job", jobID))
	}
	return r, wrapErr("get job report", err)
}

// CleanupCounts says what DeleteExpired removed.
type CleanupCounts struct {
	Blobs, Artifacts, Reports, IdempotencyKeys int64
}

// DeleteExpired deletes blobs and artifacts whose ExpiresAt is at or before
// now, reports created before reportsBefore (zero time: keep all) and
// idempotency keys older than IdempotencyTTL.
func (s *Store) DeleteExpired(ctx context.Context, now, reportsBefore time.Time) (CleanupCounts, error) {
	var c CleanupCounts
	tag, err := s.db.Exec(ctx, blobDeleteExpired, now)
	if err != nil {
		return c, wrapErr("delete expired", err)
	}
	c.Blobs = tag.RowsAffected()
	if tag, err = s.db.Exec(ctx, artifactDeleteExpired, now); err != nil {
		return c, wrapErr("delete expired", err)
	}
	c.Artifacts = tag.RowsAffected()
	if !reportsBefore.IsZero() {
		if tag, err = s.db.Exec(ctx, reportDeleteBefore, reportsBefore); err != nil {
			return c, wrapErr("delete expired", err)
		}
		c.Reports = tag.RowsAffected()
	}
	if c.IdempotencyKeys, err = s.DeleteExpiredIdempotencyKeys(ctx, now.Add(-IdempotencyTTL)); err != nil {
		return c, err
	}
	return c, nil
}

// Workspace is everything a workspace backup carries for one server, read
// in one consistent snapshot.
type Workspace struct {
	Server lore.Server
	// Personas is the registry, removed personas included, by id.
	Personas []lore.Persona
	// Collections are the Serverwide collections by name, with counts.
	Collections []lore.Collection
	// Entries are every entry of both scopes (Serverwide first, then by
	// lineage), each with its pending LegacyChannelTags.
	Entries []lore.Entry
	// Categories are the categories of every book of the server, by book
	// (collection, then lineage), each book's by sort order and name.
	Categories []lore.Category
	// BookInfo is the description and tags written for books (books
	// without a written one are not listed).
	BookInfo []WrittenBookInfo
	// PersonaBooks are the stored book settings of persona lineages (a
	// lineage without a row has none set).
	PersonaBooks map[lore.Lineage]lore.BookSettings
	// Workbench are the server's workbench settings (proposals switch,
	// proposal channel, lore editor role).
	Workbench lore.WorkbenchSettings
}

// WrittenBookInfo is the info a lore writer wrote for one book: a
// collection (CollectionID) or a persona lineage's book (CollectionID 0).
type WrittenBookInfo struct {
	CollectionID int64
	Lineage      lore.Lineage
	Info         lore.BookInfo
}

const (
	// categoryListServer reads every category of a server.
	categoryListServer = `SELECT ` + categoryColumns + ` FROM book_categories c WHERE c.server_id = $1
ORDER BY COALESCE(c.lorebook_id, 0), COALESCE(c.lineage_id, 0), c.sort_order, c.name, c.id`
	// bookInfoListServer reads the written info of every book of a server.
	bookInfoListServer = `SELECT COALESCE(lorebook_id, 0), COALESCE(lineage_id, 0), description, tags, updated_at
FROM book_info WHERE server_id = $1 ORDER BY 1, 2`
	// personaBookListServer reads the book settings of every persona
	// lineage of a server.
	personaBookListServer = `SELECT b.lineage_id, ` + bookSettingsColumns + ` FROM persona_books b WHERE b.server_id = $1`
)

// Books is the organisation of w's books (and the server's workbench
// settings) as backup.Build takes it.
func (w Workspace) Books() backup.BookData {
	d := backup.BookData{Categories: w.Categories, Info: make(map[backup.BookKey]lore.BookInfo, len(w.BookInfo)),
		PersonaSettings: w.PersonaBooks, Workbench: &w.Workbench}
	for _, b := range w.BookInfo {
		d.Info[backup.BookKey{CollectionID: b.CollectionID, Lineage: b.Lineage}] = b.Info
	}
	return d
}

// readPersonaBooksTx reads w's PersonaBooks.
func readPersonaBooksTx(ctx context.Context, tx pgx.Tx, server string, w *Workspace) error {
	rows, err := tx.Query(ctx, personaBookListServer, server)
	if err != nil {
		return err
	}
	defer rows.Close()
	w.PersonaBooks = map[lore.Lineage]lore.BookSettings{}
	for rows.Next() {
		var lin int64
		var r bookSettingsRow
		if err := rows.Scan(append([]any{&lin}, r.dests()...)...); err != nil {
			return err
		}
		w.PersonaBooks[lore.Lineage(lin)] = r.settings()
	}
	return rows.Err()
}

// readBookDataTx reads w's Categories, BookInfo and PersonaBooks.
func readBookDataTx(ctx context.Context, tx pgx.Tx, server string, w *Workspace) error {
	rows, err := tx.Query(ctx, categoryListServer, server)
	if err != nil {
		return err
	}
	if w.Categories, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (lore.Category, error) { return scanCategory(r) }); err != nil {
		return err
	}
	if rows, err = tx.Query(ctx, bookInfoListServer, server); err != nil {
		return err
	}
	w.BookInfo, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (WrittenBookInfo, error) {
		var b WrittenBookInfo
		var lin int64
		err := r.Scan(&b.CollectionID, &lin, &b.Info.Description, &b.Info.Tags, &b.Info.UpdatedAt)
		b.Lineage = lore.Lineage(lin)
		return b, err
	})
	if err != nil {
		return err
	}
	return readPersonaBooksTx(ctx, tx, server, w)
}

// ReadWorkspace reads a server's whole lore, its settings and workbench
// settings in one repeatable-read,
// read-only transaction (a workspace backup export sees one state even
// while writers run). ErrNotFound for an unknown server.
func (s *Store) ReadWorkspace(ctx context.Context, server string) (Workspace, error) {
	const op = "read workspace"
	if err := checkServerID(server); err != nil {
		return Workspace{}, wrapErr(op, err)
	}
	var w Workspace
	read := func(tx pgx.Tx) error {
		var err error
		if w.Server, err = scanServer(tx.QueryRow(ctx, serverGet, server)); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return notFound("server", server)
			}
			return err
		}
		rows, err := tx.Query(ctx, personaList, server)
		if err != nil {
			return err
		}
		if w.Personas, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (lore.Persona, error) { return scanPersona(r) }); err != nil {
			return err
		}
		if rows, err = tx.Query(ctx, lorebookList, server); err != nil {
			return err
		}
		if w.Collections, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (lore.Collection, error) { return scanCollection(r) }); err != nil {
			return err
		}
		if rows, err = tx.Query(ctx, entryListServer, server); err != nil {
			return err
		}
		if w.Entries, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (lore.Entry, error) { return scanEntry(r) }); err != nil {
			return err
		}
		if w.Workbench, err = scanWorkbenchSettings(tx.QueryRow(ctx, workbenchSettingsGet, server)); err != nil {
			return err
		}
		return readBookDataTx(ctx, tx, server, &w)
	}
	var err error
	if b, ok := s.db.(interface {
		BeginTx(context.Context, pgx.TxOptions) (pgx.Tx, error)
	}); ok {
		err = pgx.BeginTxFunc(ctx, b, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, read)
	} else {
		err = pgx.BeginFunc(ctx, s.db, read) // already in a caller's transaction
	}
	if err != nil {
		return Workspace{}, wrapErr(op, err)
	}
	return w, nil
}

// PendingTag is one unresolved legacy channel name of a persona entry.
type PendingTag struct {
	EntryID int64
	Lineage lore.Lineage
	Name    string
}

// PendingLegacyServers lists the servers whose persona entries carry
// pending legacy channel names, by id. Serverwide entries' names are not
// listed: a Serverwide entry has no channel ids of its own to resolve into
// (its collection's apply), so its names stay pending.
func (s *Store) PendingLegacyServers(ctx context.Context) ([]string, error) {
	rows, err := s.db.Query(ctx, tagPendingServers)
	if err != nil {
		return nil, wrapErr("pending legacy servers", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return out, wrapErr("pending legacy servers", err)
}

// PendingLegacyTags lists the pending legacy channel names of the server's
// persona entries, by entry id and name.
func (s *Store) PendingLegacyTags(ctx context.Context, server string) ([]PendingTag, error) {
	if err := checkServerID(server); err != nil {
		return nil, wrapErr("pending legacy tags", err)
	}
	rows, err := s.db.Query(ctx, tagPendingForServer, server)
	if err != nil {
		return nil, wrapErr("pending legacy tags", err)
	}
	var out []PendingTag
	var t PendingTag
	var lineage int64
	_, err = pgx.ForEachRow(rows, []any{&t.EntryID, &lineage, &t.Name}, func() error {
		t.Lineage = lore.Lineage(lineage)
		out = append(out, t)
		return nil
	})
	return out, wrapErr("pending legacy tags", err)
}

// TagResolution resolves one pending name of one entry into channel ids.
type TagResolution struct {
	EntryID int64
	Name    string
	// ChannelIDs are the channels the name denotes (snowflakes, >= 1).
	ChannelIDs []string
}

// ResolveLegacyTags applies resolutions in one transaction under the server
// lock: for each, the entry (a persona entry of server still carrying the
// name) gains the channel ids (a set union) and the name is deleted. A
// resolution whose entry or name is gone (edited meanwhile) is skipped, as
// is one that would take the entry past lore.MaxChannelIDs (the name stays
// pending). Returns how many names were resolved; lore_version is bumped
// when any was. Idempotent: resolving the same names again resolves none.
func (s *Store) ResolveLegacyTags(ctx context.Context, server string, resolutions []TagResolution) (int, error) {
	const op = "resolve legacy tags"
	for i, r := range resolutions {
		if len(r.ChannelIDs) == 0 {
			return 0, wrapErr(op, lore.Reject(fmt.Sprintf("resolutions[%d].channelIds", i), i18n.Empty, nil))
		}
		if err := lore.ValidateChannelIDs(fmt.Sprintf("resolutions[%d].channelIds", i), r.ChannelIDs); err != nil {
			return 0, wrapErr(op, err)
		}
	}
	if len(resolutions) == 0 {
		return 0, nil
	}
	resolved := 0
	err := s.write(ctx, op, server, func(tx pgx.Tx) error {
		resolved = 0
		for _, r := range resolutions {
			var channels []string
			err := tx.QueryRow(ctx, tagEntryLock, server, r.EntryID, r.Name).Scan(&channels)
			if errors.Is(err, pgx.ErrNoRows) {
				continue
			}
			if err != nil {
				return err
			}
			merged := slices.Clone(channels)
			for _, id := range r.ChannelIDs {
				if !slices.Contains(merged, id) {
					merged = append(merged, id)
				}
			}
			if len(merged) > lore.MaxChannelIDs {
				continue
			}
			if _, err := tx.Exec(ctx, tagEntrySetChannels, r.EntryID, merged); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, tagDeleteOne, r.EntryID, r.Name); err != nil {
				return err
			}
			resolved++
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return resolved, nil
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
