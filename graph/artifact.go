package graph

import (
	"context"
	"errors"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"

	"loregate/graph/auth"
	"loregate/graph/model"
	"loregate/lore"
)

// artifactHandler serves GET /artifacts/{id}: the file a job produced (a
// workspace backup), to a caller who manages the artifact's server (a
// backup holds every scope), until it expires. Unknown, expired and
// invisible artifacts are all 404, so ids leak nothing. The response carries
// the checksum (X-Checksum-SHA256, hex) and an attachment file name; it is
// never cached by shared caches.
func artifactHandler(jobs *Jobs, logger *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
		if err != nil || id <= 0 {
			http.NotFound(w, r)
			return
		}
		a, err := readArtifact(ctx, jobs, id)
		switch {
		case errors.Is(err, lore.ErrNotFound):
			http.NotFound(w, r)
			return
		case err != nil:
			logger.ErrorContext(ctx, "read artifact", "request_id", RequestID(ctx), "artifact", id, "err", err)
			http.Error(w, "store unavailable, try again", http.StatusServiceUnavailable)
			return
		}
		h := w.Header()
		h.Set("Content-Type", a.ContentType)
		h.Set("Content-Length", strconv.FormatInt(a.Size, 10))
		h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": a.FileName}))
		h.Set("X-Checksum-SHA256", a.SHA256)
		h.Set("Cache-Control", "private, no-store")
		h.Set("Expires", a.ExpiresAt.UTC().Format(time.RFC1123))
		_, _ = w.Write(a.Data)
	})
}

// readArtifact returns artifact id for the principal in ctx: the rule of
// the download route, for it and for in-process callers
// (Executor.Artifact). Unknown, expired and invisible artifacts, and a
// deployment without jobs, are all lore.ErrNotFound. Access is checked on
// the metadata first: the file is read only for a caller who may have it.
func readArtifact(ctx context.Context, jobs *Jobs, id int64) (lore.Artifact, error) {
	if jobs == nil {
		return lore.Artifact{}, lore.ErrNotFound
	}
	meta, err := jobs.Queue.Artifact(ctx, id)
	if err == nil && (!auth.FromContext(ctx).CanManage(meta.Server) || !meta.ExpiresAt.After(jobs.now())) {
		err = lore.ErrNotFound
	}
	if err != nil {
		return lore.Artifact{}, err
	}
	return jobs.Queue.ArtifactData(ctx, id)
}

// artifactContent is Artifact.content: the file as text for a caller who
// manages the artifact's server, until it expires; null otherwise (and for
// files that are not UTF-8).
func (r *Resolver) artifactContent(ctx context.Context, obj *model.Artifact) (*string, error) {
	if r.Jobs == nil {
		return nil, nil
	}
	id, err := strconv.ParseInt(obj.ID, 10, 64)
	if err != nil {
		return nil, nil
	}
	meta, err := r.Jobs.Queue.Artifact(ctx, id)
	if errors.Is(err, lore.ErrNotFound) || (err == nil && (!auth.FromContext(ctx).CanManage(meta.Server) || !meta.ExpiresAt.After(r.Jobs.now()))) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	a, err := r.Jobs.Queue.ArtifactData(ctx, id)
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(a.Data) {
		return nil, nil
	}
	s := string(a.Data)
	return &s, nil
}
