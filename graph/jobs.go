package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"loregate/graph/auth"
	"loregate/graph/model"
	"loregate/jobs"
	"loregate/lore"
	"loregate/lore/backup"
	"loregate/lore/postgres"
)

// DefaultInlineImportBytes is the default Jobs.InlineImportBytes: uploads
// up to 1 MiB are imported inside the request, larger ones by a job.
const DefaultInlineImportBytes = 1 << 20

// JobClient is what the API needs of River's client (*river.Client[pgx.Tx]
// implements it): enqueue inside the caller's transaction, and read a job.
type JobClient interface {
	InsertTx(ctx context.Context, tx pgx.Tx, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	JobGet(ctx context.Context, id int64) (*rivertype.JobRow, error)
}

// Jobs connects the API to the background jobs (package jobs). With nil
// Resolver.Jobs every import runs inline and the job query and backup
// mutations report that jobs are unavailable.
type Jobs struct {
	// Store writes blobs and reads reports and artifacts (required).
	Store *postgres.Store
	// Client enqueues and reads jobs (required).
	Client JobClient
	// InlineImportBytes: an import upload larger than this many bytes is
	// stored as a blob and imported by a job (0: DefaultInlineImportBytes).
	InlineImportBytes int
	// BlobTTL is how long an upload or a backup preview waits (0:
	// jobs.DefaultBlobTTL).
	BlobTTL time.Duration
	// NowFunc returns the current time (default time.Now).
	NowFunc func() time.Time
}

func (j *Jobs) inlineLimit() int {
	if j.InlineImportBytes > 0 {
		return j.InlineImportBytes
	}
	return DefaultInlineImportBytes
}

func (j *Jobs) now() time.Time {
	if j.NowFunc != nil {
		return j.NowFunc()
	}
	return time.Now()
}

func (j *Jobs) blobExpiry() time.Time {
	ttl := j.BlobTTL
	if ttl <= 0 {
		ttl = jobs.DefaultBlobTTL
	}
	return j.now().Add(ttl)
}

// errJobsUnavailable is returned when the API runs without Jobs.
var errJobsUnavailable = fmt.Errorf("background jobs are not configured on this server: %w", lore.ErrUnavailable)

// enqueueImport stores an upload as a blob and inserts its import job in
// one transaction, returning the job at once.
func (r *Resolver) enqueueImport(ctx context.Context, args jobs.ImportArgs, fileName string, data []byte) (*model.Job, error) {
	var row *rivertype.JobRow
	err := r.Jobs.Store.WithTx(ctx, func(ctx context.Context, tx pgx.Tx, st *postgres.Store) error {
		b, err := st.PutBlob(ctx, postgres.Blob{Server: args.ServerID, Kind: postgres.BlobLorebook, FileName: fileName, Data: data, ExpiresAt: r.Jobs.blobExpiry()})
		if err != nil {
			return err
		}
		args.BlobID = b.ID
		res, err := r.Jobs.Client.InsertTx(ctx, tx, args, nil)
		if err != nil {
			return fmt.Errorf("enqueue import: %w", err)
		}
		row = res.Job
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.Logger.InfoContext(ctx, "lorebook import queued", "request_id", RequestID(ctx), "job_id", row.ID, "server", args.ServerID, "bytes", len(data))
	return jobToModel(row), nil
}

// jobServer returns the server a job's args name ("" when none).
func jobServer(row *rivertype.JobRow) string {
	var a struct {
		ServerID string `json:"server_id"`
	}
	_ = json.Unmarshal(row.EncodedArgs, &a)
	return a.ServerID
}

var jobStates = map[rivertype.JobState]model.JobState{
	rivertype.JobStatePending: model.JobStatePending, rivertype.JobStateScheduled: model.JobStateScheduled,
	rivertype.JobStateAvailable: model.JobStateAvailable, rivertype.JobStateRunning: model.JobStateRunning,
	rivertype.JobStateRetryable: model.JobStateRetryable, rivertype.JobStateCompleted: model.JobStateCompleted,
	rivertype.JobStateCancelled: model.JobStateCancelled, rivertype.JobStateDiscarded: model.JobStateDiscarded,
}

func jobToModel(row *rivertype.JobRow) *model.Job {
	m := &model.Job{
		ID: strconv.FormatInt(row.ID, 10), Kind: row.Kind, State: jobStates[row.State],
		Attempt: row.Attempt, MaxAttempts: row.MaxAttempts, CreatedAt: row.CreatedAt, FinalizedAt: row.FinalizedAt,
	}
	if s := jobServer(row); s != "" {
		m.ServerDiscordID = &s
	}
	switch row.State {
	case rivertype.JobStateRunning:
		m.Progress = 0.5
	case rivertype.JobStateCompleted, rivertype.JobStateCancelled, rivertype.JobStateDiscarded:
		m.Progress = 1
	}
	if n := len(row.Errors); n > 0 {
		// A cancellation carries a user-facing reason (jobs' outcome maps
		// contract errors with lore.Explain), stored by River as
		// "JobCancelError: <reason>". Any other error is internal (SQL,
		// Discord URLs): clients get a generic line, the log has the rest.
		msg := "the job hit an internal error and will be retried; see the service log"
		switch row.State {
		case rivertype.JobStateCancelled:
			msg = strings.TrimPrefix(row.Errors[n-1].Error, "JobCancelError: ")
		case rivertype.JobStateDiscarded:
			msg = "the job failed after every retry; see the service log"
		}
		m.Error = &msg
	}
	return m
}

// job answers the job query: the job when the caller may read its server.
func (r *Resolver) job(ctx context.Context, id string) (*model.Job, error) {
	if r.Jobs == nil {
		return nil, errJobsUnavailable
	}
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= 0 {
		return nil, nil
	}
	row, err := r.Jobs.Client.JobGet(ctx, n)
	if errors.Is(err, river.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read job: %w: %w", lore.ErrUnavailable, err)
	}
	server := jobServer(row)
	p := auth.FromContext(ctx)
	if server == "" {
		if p == nil || p.Kind != auth.Service {
			return nil, nil // server-less jobs (maintenance) are for services only
		}
	} else if !p.CanRead(server) {
		return nil, nil
	}
	m := jobToModel(row)
	if row.State != rivertype.JobStateCompleted {
		return m, nil
	}
	rep, err := r.Jobs.Store.GetJobReport(ctx, row.ID)
	switch {
	case err == nil:
		var obj map[string]any
		if json.Unmarshal(rep.Report, &obj) == nil {
			m.Report = obj
		}
	case errors.Is(err, lore.ErrNotFound):
		if out := row.Output(); len(out) > 0 {
			var obj map[string]any
			if json.Unmarshal(out, &obj) == nil {
				m.Report = obj
			}
		}
	default:
		return nil, err
	}
	switch row.Kind {
	case jobs.ImportArgs{}.Kind():
		if err == nil {
			m.ImportResult = r.importResult(ctx, server, rep.Report)
		}
	case jobs.BackupExportArgs{}.Kind():
		a, err := r.Jobs.Store.GetArtifactByJob(ctx, row.ID)
		if err == nil && a.ExpiresAt.After(r.Jobs.now()) {
			m.Artifact = &model.Artifact{ID: strconv.FormatInt(a.ID, 10), FileName: a.FileName, SizeBytes: int(a.Size),
				Sha256: a.SHA256, ExpiresAt: a.ExpiresAt, URL: ArtifactPath(a.ID)}
		} else if err != nil && !errors.Is(err, lore.ErrNotFound) {
			return nil, err
		}
	}
	return m, nil
}

// importResult rebuilds an ImportPayload from an import job's report.
func (r *Resolver) importResult(ctx context.Context, server string, raw []byte) *model.ImportPayload {
	var rep jobs.ImportReport
	if err := json.Unmarshal(raw, &rep); err != nil {
		return nil
	}
	out := &model.ImportPayload{Added: rep.Added, Duplicates: rep.Duplicates, Replaced: rep.Replaced, Report: reportToModel(&rep.Conversion)}
	if rep.CollectionID != 0 {
		if c, err := r.Store.GetCollection(ctx, server, rep.CollectionID); err == nil {
			m := collectionToModel(c)
			out.Collection = &m
		}
	}
	return out
}

// ArtifactPath is the download path of an artifact.
func ArtifactPath(id int64) string { return "/artifacts/" + strconv.FormatInt(id, 10) }

func jobPayload(row *model.Job, err error) (*model.JobPayload, error) {
	if err != nil {
		me, err := classify(err)
		return &model.JobPayload{Error: me}, err
	}
	return &model.JobPayload{Job: row}, nil
}

// exportWorkspaceBackup queues the export job of a server (managers only:
// a backup holds every scope).
func (r *Resolver) exportWorkspaceBackup(ctx context.Context, in *model.ExportWorkspaceBackupInput) (*model.JobPayload, error) {
	if r.Jobs == nil {
		return jobPayload(nil, errJobsUnavailable)
	}
	if err := r.authorizeWrite(ctx, in.ServerDiscordID, lore.Serverwide); err != nil {
		return jobPayload(nil, err)
	}
	var row *rivertype.JobRow
	err := r.Jobs.Store.WithTx(ctx, func(ctx context.Context, tx pgx.Tx, _ *postgres.Store) error {
		res, err := r.Jobs.Client.InsertTx(ctx, tx, jobs.BackupExportArgs{ServerID: in.ServerDiscordID}, nil)
		if err != nil {
			return fmt.Errorf("enqueue backup export: %w", err)
		}
		row = res.Job
		return nil
	})
	if err != nil {
		return jobPayload(nil, err)
	}
	return jobPayload(jobToModel(row), nil)
}

// previewMeta is stored with a backup preview's upload.
type previewMeta struct {
	LineageMap []jobs.LineageMapping `json:"lineageMap,omitempty"`
}

func lineageMap(in []*model.LineageMappingInput) ([]jobs.LineageMapping, map[lore.Lineage]lore.Lineage) {
	list := make([]jobs.LineageMapping, 0, len(in))
	m := make(map[lore.Lineage]lore.Lineage, len(in))
	for _, p := range in {
		if p == nil {
			continue
		}
		list = append(list, jobs.LineageMapping{From: p.From, To: p.To})
		m[lore.Lineage(p.From)] = lore.Lineage(p.To)
	}
	return list, m
}

// previewWorkspaceBackup stores the uploaded backup as a blob and returns
// the import plan's counts; nothing is written to lore.
func (r *Resolver) previewWorkspaceBackup(ctx context.Context, in *model.PreviewWorkspaceBackupInput) (*model.BackupPreviewPayload, error) {
	fail := func(err error) (*model.BackupPreviewPayload, error) {
		me, err := classify(err)
		return &model.BackupPreviewPayload{Error: me}, err
	}
	if r.Jobs == nil {
		return fail(errJobsUnavailable)
	}
	server := in.ServerDiscordID
	if err := r.authorizeWrite(ctx, server, lore.Serverwide); err != nil {
		return fail(err)
	}
	data, err := io.ReadAll(io.LimitReader(in.File.File, MaxUploadBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read upload: %w", err)
	}
	if len(data) > MaxUploadBytes {
		return fail(lore.Invalid("file", "is larger than %d bytes", MaxUploadBytes))
	}
	list, mapping := lineageMap(in.LineageMap.Value())
	plan, err := jobs.PlanBackup(ctx, r.Store, server, data, mapping)
	if err != nil {
		if errors.Is(err, backup.ErrNotBackup) {
			err = &lore.InvalidError{Field: "file", Reason: err.Error()}
		}
		return fail(err)
	}
	meta, err := json.Marshal(previewMeta{LineageMap: list})
	if err != nil {
		return nil, fmt.Errorf("encode preview mapping: %w", err)
	}
	b, err := r.Jobs.Store.PutBlob(ctx, postgres.Blob{Server: server, Kind: postgres.BlobBackup, FileName: in.File.Filename, Data: data, ExpiresAt: r.Jobs.blobExpiry(), Meta: meta})
	if err != nil {
		return fail(err)
	}
	return &model.BackupPreviewPayload{Preview: previewToModel(b, plan)}, nil
}

func previewToModel(b postgres.Blob, plan backup.ImportPlan) *model.BackupPreview {
	p := &model.BackupPreview{PreviewID: strconv.FormatInt(b.ID, 10), ExpiresAt: b.ExpiresAt, Scopes: []*model.ScopePreview{}}
	for _, s := range plan.Scopes {
		sp := &model.ScopePreview{Included: s.Included, Incoming: s.Incoming, Current: s.Current, Converted: s.Converted}
		if !s.Lineage.IsServerwide() {
			l := int64(s.Lineage)
			sp.LineageID = &l
		}
		p.Scopes = append(p.Scopes, sp)
	}
	mr := plan.Memories
	p.Memories = model.MemoryConversion{Total: mr.Total, Converted: mr.Converted, ChannelOnly: mr.ChannelOnly,
		Untagged: mr.Untagged, ServerwideChannelsDropped: mr.ServerwideChannelsDropped, NotConverted: []*model.NotConvertedMemory{}}
	for _, n := range mr.NotConverted {
		p.Memories.NotConverted = append(p.Memories.NotConverted, &model.NotConvertedMemory{Source: n.Source, Reason: n.Reason})
	}
	return p
}

// importWorkspaceBackup queues the commit of a previewed backup.
func (r *Resolver) importWorkspaceBackup(ctx context.Context, in *model.ImportWorkspaceBackupInput) (*model.JobPayload, error) {
	if r.Jobs == nil {
		return jobPayload(nil, errJobsUnavailable)
	}
	server := in.ServerDiscordID
	if err := r.authorizeWrite(ctx, server, lore.Serverwide); err != nil {
		return jobPayload(nil, err)
	}
	id, err := parseID("previewId", in.PreviewID)
	if err != nil {
		return jobPayload(nil, err)
	}
	given, setMap := in.LineageMap.ValueOK()
	var row *rivertype.JobRow
	err = r.Jobs.Store.WithTx(ctx, func(ctx context.Context, tx pgx.Tx, st *postgres.Store) error {
		b, err := st.GetBlob(ctx, id)
		if err != nil || b.Server != server || b.Kind != postgres.BlobBackup || !b.ExpiresAt.After(r.Jobs.now()) {
			if err != nil && !errors.Is(err, lore.ErrNotFound) {
				return err
			}
			return fmt.Errorf("preview %d (expired, already imported or of another server): %w", id, lore.ErrNotFound)
		}
		// The commit applies exactly the mapping the preview showed.
		var pm previewMeta
		_ = json.Unmarshal(b.Meta, &pm)
		list := pm.LineageMap
		if setMap {
			if sent, _ := lineageMap(given); !slices.Equal(sent, list) {
				return lore.Invalid("lineageMap", "differs from the mapping this preview was made with; preview again with the new mapping")
			}
		}
		res, err := r.Jobs.Client.InsertTx(ctx, tx, jobs.BackupImportArgs{BlobID: id, ServerID: server, Mapping: list}, nil)
		if err != nil {
			return fmt.Errorf("enqueue backup import: %w", err)
		}
		row = res.Job
		return nil
	})
	if err != nil {
		return jobPayload(nil, err)
	}
	return jobPayload(jobToModel(row), nil)
}
