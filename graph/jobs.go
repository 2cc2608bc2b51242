package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"loregate/graph/auth"
	"loregate/graph/model"
	"loregate/lore"
	"loregate/lore/backup"
	"loregate/lore/transfer"
)

// DefaultInlineImportBytes is the default Jobs.InlineImportBytes: uploads
// up to 1 MiB are imported inside the request, larger ones by a job.
const DefaultInlineImportBytes = 1 << 20

// JobQueue is what the API needs of the background jobs; jobs.Queue
// implements it (enqueueing stores a job's input and inserts the job in one
// transaction). Errors wrap lore's sentinels.
type JobQueue interface {
	// EnqueueImport stores req's file and queues its import.
	EnqueueImport(ctx context.Context, req transfer.Request) (*rivertype.JobRow, error)
	// EnqueueBackupExport queues the export of server's workspace backup.
	EnqueueBackupExport(ctx context.Context, server string) (*rivertype.JobRow, error)
	// StoreBackupPreview keeps an uploaded backup and the mapping it was
	// previewed with until its commit or expiry.
	StoreBackupPreview(ctx context.Context, server, fileName string, data []byte, mapping []backup.LineageMapping) (lore.Blob, error)
	// EnqueueBackupImport queues the commit of a preview; mapping, when
	// non-nil, must equal the preview's.
	EnqueueBackupImport(ctx context.Context, server string, previewID int64, mapping *[]backup.LineageMapping, actor string) (*rivertype.JobRow, error)
	// EnqueueEmbed queues the embed job of server (force: every
	// candidate again).
	EnqueueEmbed(ctx context.Context, server string, force bool) (*rivertype.JobRow, error)
	// Progress is a running job's own measure of progress in [0, 1] (ok
	// false when its kind has none: a legacy memory migration has one).
	Progress(ctx context.Context, row *rivertype.JobRow) (progress float64, ok bool, err error)
	// StoreArtifact stores a file for download that no job made (a card
	// export), expiring like an upload unless its ExpiresAt is set.
	StoreArtifact(ctx context.Context, a lore.Artifact) (lore.Artifact, error)
	// Job reads a job (river.ErrNotFound when unknown).
	Job(ctx context.Context, id int64) (*rivertype.JobRow, error)
	// JobReport reads a finished job's report (lore.ErrNotFound).
	JobReport(ctx context.Context, jobID int64) (lore.JobReport, error)
	// ArtifactByJob, Artifact and ArtifactData read a job's artifact
	// (lore.ErrNotFound); only ArtifactData reads the file.
	ArtifactByJob(ctx context.Context, jobID int64) (lore.Artifact, error)
	Artifact(ctx context.Context, id int64) (lore.Artifact, error)
	ArtifactData(ctx context.Context, id int64) (lore.Artifact, error)
}

// Jobs connects the API to the background jobs (package jobs). With nil
// Resolver.Jobs every import runs inline and the job query and backup
// mutations report that jobs are unavailable.
type Jobs struct {
	// Queue enqueues jobs and reads their data (required).
	Queue JobQueue
	// InlineImportBytes: an import upload larger than this many bytes is
	// stored as a blob and imported by a job (0: DefaultInlineImportBytes).
	InlineImportBytes int
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

// errJobsUnavailable is returned when the API runs without Jobs.
var errJobsUnavailable = fmt.Errorf("background jobs are not configured on this server: %w", lore.ErrUnavailable)

// enqueueImport stores an upload and queues its import job (one
// transaction), returning the job at once.
func (r *Resolver) enqueueImport(ctx context.Context, req transfer.Request) (*model.Job, error) {
	row, err := r.Jobs.Queue.EnqueueImport(ctx, req)
	if err != nil {
		return nil, err
	}
	r.Logger.InfoContext(ctx, "lorebook import queued", "request_id", RequestID(ctx), "job_id", row.ID, "server", req.Target.Server, "bytes", len(req.Data))
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
	m.Error = jobError(row)
	return m
}

// jobError is Job.error: nil for a job without failed attempts and for a
// completed one (an attempt that failed before a retry, or before the job
// was rescued from a dead process, no longer matters once it completed).
// A cancellation carries a user-facing reason (jobs' outcome maps contract
// errors with lore.Explain), stored by River as "JobCancelError: <reason>".
// Any other error is internal (SQL, Discord URLs): clients get a generic
// line naming the attempt, the log has the rest.
func jobError(row *rivertype.JobRow) *string {
	n := len(row.Errors)
	if n == 0 || row.State == rivertype.JobStateCompleted {
		return nil
	}
	msg := fmt.Sprintf("attempt %d hit an internal error; the job is retried (see the service log)", row.Errors[n-1].Attempt)
	switch row.State {
	case rivertype.JobStateCancelled:
		msg = strings.TrimPrefix(row.Errors[n-1].Error, "JobCancelError: ")
	case rivertype.JobStateDiscarded:
		msg = "the job failed after every retry; see the service log"
	}
	return &msg
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
	row, err := r.Jobs.Queue.Job(ctx, n)
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
	if row.State == rivertype.JobStateRunning {
		if p, ok, err := r.Jobs.Queue.Progress(ctx, row); err != nil {
			return nil, err
		} else if ok {
			m.Progress = p
		}
	}
	if row.State != rivertype.JobStateCompleted {
		return m, nil
	}
	rep, err := r.Jobs.Queue.JobReport(ctx, row.ID)
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
	case transfer.JobImport:
		if err == nil {
			m.ImportResult = r.importResult(ctx, server, rep.Report)
		}
	case transfer.JobBackupExport:
		a, err := r.Jobs.Queue.ArtifactByJob(ctx, row.ID)
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
	var rep transfer.Result
	if err := json.Unmarshal(raw, &rep); err != nil {
		return nil
	}
	out := importPayload(rep)
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
		return failure[model.JobPayload](err)
	}
	return &model.JobPayload{Job: row}, nil
}

// exportWorkspaceBackup queues the export job of a server (managers only:
// a backup holds every scope).
func (r *Resolver) exportWorkspaceBackup(ctx context.Context, in *model.ExportWorkspaceBackupInput) (*model.JobPayload, error) {
	if err := r.authorizeSettings(ctx, in.ServerDiscordID); err != nil {
		return jobPayload(nil, err)
	}
	if r.Jobs == nil {
		return jobPayload(nil, errJobsUnavailable)
	}
	row, err := r.Jobs.Queue.EnqueueBackupExport(ctx, in.ServerDiscordID)
	if err != nil {
		return jobPayload(nil, err)
	}
	return jobPayload(jobToModel(row), nil)
}

func lineageMap(in []*model.LineageMappingInput) ([]backup.LineageMapping, map[lore.Lineage]lore.Lineage) {
	list := make([]backup.LineageMapping, 0, len(in))
	m := make(map[lore.Lineage]lore.Lineage, len(in))
	for _, p := range in {
		if p == nil {
			continue
		}
		list = append(list, backup.LineageMapping{From: p.From, To: p.To})
		m[lore.Lineage(p.From)] = lore.Lineage(p.To)
	}
	return list, m
}

// previewWorkspaceBackup stores the uploaded backup as a blob and returns
// the import plan's counts; nothing is written to lore.
func (r *Resolver) previewWorkspaceBackup(ctx context.Context, in *model.PreviewWorkspaceBackupInput) (*model.BackupPreviewPayload, error) {
	fail := failure[model.BackupPreviewPayload]
	server := in.ServerDiscordID
	// Managers only, as the server's settings are: a backup carries them.
	if err := r.authorizeSettings(ctx, server); err != nil {
		return fail(err)
	}
	if r.Jobs == nil {
		return fail(errJobsUnavailable)
	}
	data, err := readUpload(in.File)
	if err != nil {
		return fail(err)
	}
	list, mapping := lineageMap(in.LineageMap.Value())
	plan, err := transfer.PlanBackup(ctx, r.Store, server, data, mapping)
	if err != nil {
		return fail(err)
	}
	b, err := r.Jobs.Queue.StoreBackupPreview(ctx, server, in.File.Filename, data, list)
	if err != nil {
		return fail(err)
	}
	return &model.BackupPreviewPayload{Preview: previewToModel(b, plan)}, nil
}

func previewToModel(b lore.Blob, plan backup.ImportPlan) *model.BackupPreview {
	p := &model.BackupPreview{PreviewID: strconv.FormatInt(b.ID, 10), ExpiresAt: b.ExpiresAt, Scopes: []*model.ScopePreview{}}
	for _, s := range plan.Scopes {
		sp := &model.ScopePreview{Included: s.Included, Incoming: s.Incoming, Current: s.Current, Converted: s.Converted}
		if !s.Lineage.IsServerwide() {
			l := int64(s.Lineage)
			sp.LineageID = &l
		}
		p.Scopes = append(p.Scopes, sp)
	}
	sp := plan.Settings
	p.ServerSettings = model.BackupSettingsPreview{Included: sp.Included, Workbench: sp.Workbench, SameServer: sp.SameServer,
		Skipped: append([]string{}, sp.Skipped...), SkippedReasons: []*model.BackupSettingSkip{}}
	for _, k := range sp.SkippedReasons {
		reason := model.BackupSkipReasonOtherServer
		if k.Reason == backup.SkipKeepsLoreLocal {
			reason = model.BackupSkipReasonKeepsLoreLocal
		}
		p.ServerSettings.SkippedReasons = append(p.ServerSettings.SkippedReasons, &model.BackupSettingSkip{Setting: k.Setting, Reason: reason})
	}
	p.OtherServerChannels = model.BackupOtherChannels{Collections: plan.OtherServerChannels.Collections, Entries: plan.OtherServerChannels.Entries}
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
	server := in.ServerDiscordID
	// Managers only, checked again at the commit: the import replaces
	// every included scope and the server's settings.
	if err := r.authorizeSettings(ctx, server); err != nil {
		return jobPayload(nil, err)
	}
	if r.Jobs == nil {
		return jobPayload(nil, errJobsUnavailable)
	}
	id, err := parseID("previewId", in.PreviewID)
	if err != nil {
		return jobPayload(nil, err)
	}
	var mapping *[]backup.LineageMapping
	if given, set := in.LineageMap.ValueOK(); set {
		list, _ := lineageMap(given)
		mapping = &list
	}
	row, err := r.Jobs.Queue.EnqueueBackupImport(ctx, server, id, mapping, actor(ctx))
	if err != nil {
		return jobPayload(nil, err)
	}
	return jobPayload(jobToModel(row), nil)
}
