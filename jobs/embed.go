package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"loregate/lore"
	"loregate/lore/postgres"
)

// Bounds of the embed jobs (docs/operations.md#embeddings).
const (
	// EmbedChunk is how many texts one step of an embed job sends to the
	// provider (the client splits them into batches of at most 64) and
	// stores before the next.
	EmbedChunk = 256
	// EmbedRounds is how many times one embed job reads the candidates
	// again after storing, to catch writes made while it ran.
	EmbedRounds = 3
	// EmbedMaxAttempts bounds the tries of one embed job; after the last
	// failed one the texts it could not embed are marked FAILED.
	EmbedMaxAttempts = 5
	// DefaultEmbedSweepInterval is the period of the sweep that enqueues
	// an embed job for every server with pending candidates (writes of
	// other processes, a lost enqueue).
	DefaultEmbedSweepInterval = 10 * time.Minute
	// EmbedSweepServers bounds how many servers one sweep looks at.
	EmbedSweepServers = 10000
)

// Embedder computes embeddings for jobs (lore/embeddings.Client).
type Embedder interface {
	// Model is the model name vectors are stored under.
	Model() string
	// Embed returns one vector per input, in order.
	Embed(ctx context.Context, inputs []string) ([][]float32, error)
	// Retryable reports whether a failure of Embed may pass on a retry.
	Retryable(err error) bool
}

// EmbedArgs computes the missing vectors of one server's candidates of
// retrieval by meaning (docs/contract.md#semantic): vectorized entries, or
// every entry with semanticAllEntries, whose text has no vector under the
// deployment's model. Force computes every candidate's again
// (reindexEmbeddings).
type EmbedArgs struct {
	ServerID string `json:"server_id"`
	Force    bool   `json:"force,omitempty"`
}

// Kind is "entry_embed".
func (EmbedArgs) Kind() string { return "entry_embed" }

// InsertOpts: unique per server and force while queued (a burst of
// writes enqueues one job), EmbedMaxAttempts tries.
func (EmbedArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: EmbedMaxAttempts, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: pendingStates()}}
}

// EmbedReport is an embed job's report: the candidates it saw, the texts
// it embedded and those the provider refused.
type EmbedReport struct {
	Model      string `json:"model"`
	Candidates int    `json:"candidates"`
	Embedded   int    `json:"embedded"`
	Failed     int    `json:"failed"`
	// Skipped says why nothing was sent ("ranker LEXICAL": the server
	// keeps its lore on the machine).
	Skipped string `json:"skipped,omitempty"`
}

// EmbedWorker works EmbedArgs. A server whose ranker is LEXICAL or OFF is
// never sent to the provider. Texts are sent in chunks of EmbedChunk and
// stored after each, so a retry resumes where the last attempt stopped. A
// refusal about the request (HTTP 4xx other than 408/429, a malformed
// answer) is narrowed to the texts causing it, which become FAILED; a
// transient failure is retried by River with backoff, and after the last
// attempt the texts still missing become FAILED. Logs carry counts, never
// texts.
type EmbedWorker struct {
	river.WorkerDefaults[EmbedArgs]
	Deps
}

// EmbedSnooze is how long a job whose server was written through all of
// its EmbedRounds waits before it runs again (a snooze: no attempt spent).
const EmbedSnooze = time.Second

// errMoreToDo rolls back a completion whose read found more to embed.
var errMoreToDo = errors.New("more candidates to embed")

// Work embeds one server's pending candidates, then completes the job
// (complete) once a read made after its row is marked completed finds
// nothing more to do; a server written through every round is worked
// again after EmbedSnooze.
func (w *EmbedWorker) Work(ctx context.Context, job *river.Job[EmbedArgs]) error {
	if w.Embeddings == nil {
		return river.JobCancel(errors.New("no embeddings provider is configured (LOREGATE_EMBEDDINGS_URL, LOREGATE_EMBEDDINGS_MODEL)"))
	}
	server := job.Args.ServerID
	rep := EmbedReport{Model: w.Embeddings.Model()}
	force := job.Args.Force
	for round := 0; round < EmbedRounds; round++ {
		todo, err := w.pending(ctx, w.Store, server, force, &rep)
		if err != nil {
			return err
		}
		force = false
		if len(todo) == 0 {
			done, err := w.complete(ctx, job, rep)
			if err != nil {
				return err
			}
			if !done {
				continue // a write came between the two reads
			}
			w.Logger.InfoContext(ctx, "entries embedded", "job_id", job.ID, "server", server, "model", rep.Model,
				"candidates", rep.Candidates, "embedded", rep.Embedded, "failed", rep.Failed, "skipped", rep.Skipped)
			return nil
		}
		last := job.Attempt >= job.MaxAttempts
		if err := w.embedAll(ctx, server, todo, last, &rep); err != nil {
			w.Logger.WarnContext(ctx, "embed job attempt failed", "job_id", job.ID, "server", server, "attempt", job.Attempt, "err", err)
			return err
		}
	}
	return river.JobSnooze(EmbedSnooze)
}

// pending reads server's candidates through st into rep (their count, or
// why nothing is sent) and returns those to embed: without a vector of
// their text, or all of them with force; none for a server whose ranker
// keeps its lore on the machine.
func (w *EmbedWorker) pending(ctx context.Context, st *postgres.Store, server string, force bool, rep *EmbedReport) ([]postgres.EmbeddingCandidate, error) {
	cands, set, err := st.EmbeddingCandidates(ctx, server, rep.Model)
	if err != nil {
		return nil, outcome(err)
	}
	rep.Candidates, rep.Skipped = len(cands), ""
	if !set.Ranker.SendsOut() {
		rep.Skipped = "ranker " + string(set.Ranker)
		return nil, nil
	}
	return pendingCandidates(cands, force), nil
}

// complete marks job completed with rep as its output and reads the
// candidates again after the mark, in one transaction; it rolls back and
// returns false when that read finds more to do. This is what keeps a
// write whose enqueue River folded into this running job (the insert came
// while the job ran, after the write's commit): that insert came before
// the mark, so the read sees the write; an insert that comes after waits
// for the mark's commit and enqueues a new job. Outside River (Work
// called directly, as tests do) there is no row to mark: true.
func (w *EmbedWorker) complete(ctx context.Context, job *river.Job[EmbedArgs], rep EmbedReport) (bool, error) {
	if _, err := river.ClientFromContextSafely[pgx.Tx](ctx); err != nil {
		return true, nil
	}
	_ = river.RecordOutput(ctx, rep)
	err := w.Store.WithTx(ctx, func(ctx context.Context, tx pgx.Tx, st *postgres.Store) error {
		if err := completeTx(ctx, tx, job); err != nil {
			return err
		}
		again := rep
		todo, err := w.pending(ctx, st, job.Args.ServerID, false, &again)
		switch {
		case err != nil:
			return err
		case len(todo) > 0 || again != rep:
			return errMoreToDo
		}
		return nil
	})
	if errors.Is(err, errMoreToDo) {
		return false, nil
	}
	return err == nil, err
}

// pendingCandidates are the candidates without a vector of their current
// text (and not FAILED for it), or all of them with force.
func pendingCandidates(cands []postgres.EmbeddingCandidate, force bool) []postgres.EmbeddingCandidate {
	var out []postgres.EmbeddingCandidate
	for _, c := range cands {
		if force || c.State == lore.EmbeddingPending {
			out = append(out, c)
		}
	}
	return out
}

// embedAll embeds todo chunk by chunk. last marks what a transient
// failure leaves missing as FAILED (the job's last attempt).
func (w *EmbedWorker) embedAll(ctx context.Context, server string, todo []postgres.EmbeddingCandidate, last bool, rep *EmbedReport) error {
	for start := 0; start < len(todo); start += EmbedChunk {
		chunk := todo[start:min(start+EmbedChunk, len(todo))]
		err := w.embedChunk(ctx, server, chunk, rep)
		if err == nil {
			continue
		}
		if !last {
			return err
		}
		for _, c := range todo[start:] {
			if perr := w.Store.PutEntryVectorError(ctx, server, w.Embeddings.Model(), c.ID, c.Hash, err.Error()); perr != nil {
				return perr
			}
			rep.Failed++
		}
		return nil
	}
	return nil
}

// embedChunk embeds and stores one chunk. A refusal about the request is
// narrowed: each text is sent alone and those refused are stored FAILED.
// It returns only transient failures.
func (w *EmbedWorker) embedChunk(ctx context.Context, server string, chunk []postgres.EmbeddingCandidate, rep *EmbedReport) error {
	model := w.Embeddings.Model()
	texts := make([]string, len(chunk))
	for i, c := range chunk {
		texts[i] = c.Text
	}
	vecs, err := w.Embeddings.Embed(ctx, texts)
	if err == nil {
		out := make([]lore.EntryVector, len(chunk))
		for i, c := range chunk {
			out[i] = lore.EntryVector{EntryID: c.ID, Hash: c.Hash, Vector: vecs[i]}
		}
		rep.Embedded += len(out)
		return w.Store.PutEntryVectors(ctx, server, model, out)
	}
	if w.Embeddings.Retryable(err) || ctx.Err() != nil {
		return err
	}
	if len(chunk) == 1 {
		rep.Failed++
		return w.Store.PutEntryVectorError(ctx, server, model, chunk[0].ID, chunk[0].Hash, err.Error())
	}
	for i := range chunk {
		if err := w.embedChunk(ctx, server, chunk[i:i+1], rep); err != nil {
			return err
		}
	}
	return nil
}

// EmbedSweepArgs is the periodic sweep (DefaultEmbedSweepInterval, leader
// only) that enqueues an embed job for each server with pending
// candidates, so that writes whose enqueue was lost (a process that died
// after its commit, a write from a process without a provider) are
// embedded too.
type EmbedSweepArgs struct{}

// Kind is "entry_embed_sweep".
func (EmbedSweepArgs) Kind() string { return "entry_embed_sweep" }

// EmbedSweepWorker works EmbedSweepArgs.
type EmbedSweepWorker struct {
	river.WorkerDefaults[EmbedSweepArgs]
	Deps
}

// Work enqueues the embed jobs.
func (w *EmbedSweepWorker) Work(ctx context.Context, job *river.Job[EmbedSweepArgs]) error {
	if w.Embeddings == nil {
		return nil
	}
	servers, err := w.Store.EmbeddingServers(ctx, EmbedSweepServers)
	if err != nil {
		return err
	}
	var params []river.InsertManyParams
	for _, s := range servers {
		cands, _, err := w.Store.EmbeddingCandidates(ctx, s, w.Embeddings.Model())
		if err != nil {
			return err
		}
		if len(pendingCandidates(cands, false)) > 0 {
			params = append(params, river.InsertManyParams{Args: EmbedArgs{ServerID: s}})
		}
	}
	if len(params) == 0 {
		return nil
	}
	if _, err := river.ClientFromContext[pgx.Tx](ctx).InsertMany(ctx, params); err != nil {
		return fmt.Errorf("enqueue embed jobs: %w", err)
	}
	w.Logger.InfoContext(ctx, "embed jobs scheduled", "job_id", job.ID, "servers", len(params))
	return nil
}

// EmbedTrigger enqueues an embed job for each server a lore write of this
// process changed (Touch, wired as the store's lore write hook), after a
// short pause that folds a burst of writes into one job. Touch never
// blocks a write: when the queue of servers is full the server is left to
// the sweep.
type EmbedTrigger struct {
	ch     chan string
	logger *slog.Logger
	// Pause is how long Run gathers servers before enqueueing.
	Pause time.Duration
}

// NewEmbedTrigger returns a trigger; Run enqueues what Touch notes.
func NewEmbedTrigger(logger *slog.Logger) *EmbedTrigger {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &EmbedTrigger{ch: make(chan string, 1024), logger: logger, Pause: 200 * time.Millisecond}
}

// InsertFunc is River's Client.Insert.
type InsertFunc func(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)

// Touch notes that server's lore changed.
func (t *EmbedTrigger) Touch(server string) {
	select {
	case t.ch <- server:
	default:
	}
}

// Run enqueues the touched servers' jobs through insert until ctx ends.
// An insert that comes while the server's job runs is folded into that
// job by River; the job's completion reads the candidates after marking
// itself completed, so it sees the write (EmbedWorker.complete).
func (t *EmbedTrigger) Run(ctx context.Context, insert InsertFunc) {
	for {
		pending := map[string]bool{}
		select {
		case <-ctx.Done():
			return
		case s := <-t.ch:
			pending[s] = true
		}
		if !t.gather(ctx, pending) {
			return
		}
		for s := range pending {
			if _, err := insert(ctx, EmbedArgs{ServerID: s}, nil); err != nil {
				t.logger.WarnContext(ctx, "enqueue embed job (the sweep will)", "server", s, "err", err)
			}
		}
	}
}

// gather adds the servers touched during one pause to pending; false when
// ctx ended.
func (t *EmbedTrigger) gather(ctx context.Context, pending map[string]bool) bool {
	timer := time.NewTimer(t.Pause)
	defer timer.Stop()
	for {
		select {
		case s := <-t.ch:
			pending[s] = true
		case <-timer.C:
			return true
		case <-ctx.Done():
			return false
		}
	}
}
