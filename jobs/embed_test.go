package jobs_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"loregate/jobs"
	"loregate/lore"
	"loregate/lore/embeddings"
	"loregate/lore/embeddings/embeddingstest"
	"loregate/lore/postgres"
	"loregate/lore/postgres/postgrestest"
	"loregate/lore/semantic"
)

// embedFixture is a server with candidates of retrieval by meaning in a
// real database: two vectorized entries, a vectorized entry split in two
// parts, a plain entry and a vectorized Always On one (neither is a
// candidate).
type embedFixture struct {
	store *postgres.Store
	ids   map[string]int64
}

func newEmbedFixture(t *testing.T, store *postgres.Store, server string) *embedFixture {
	t.Helper()
	ctx := context.Background()
	_, err := store.UpsertServer(ctx, server, "S")
	require.NoError(t, err)
	f := &embedFixture{store: store, ids: map[string]int64{}}
	add := func(name, content string, vectorized, constant bool, split *lore.SplitRef) {
		e := lore.NewEntry()
		e.Server, e.Lineage, e.Title, e.Content, e.Vectorized, e.Constant = server, 7, name, content, vectorized, constant
		if split != nil {
			e.SetSplit(*split)
		}
		e, err := store.InsertEntry(ctx, e)
		require.NoError(t, err)
		f.ids[name] = e.ID
	}
	add("lollipop", "@@depth 2\nKotori always has a lollipop in her mouth.", true, false, nil)
	add("alarm", "The spacequake alarm rings across Tengu City.", true, false, nil)
	add("long 0", "Tohka eats kinako bread ", true, false, &lore.SplitRef{Group: "g", Part: 0, Parts: 2})
	add("long 1", "every afternoon.", true, false, &lore.SplitRef{Group: "g", Part: 1, Parts: 2})
	add("plain", "A keyword entry.", false, false, nil)
	add("constant", "Always on.", true, true, nil)
	return f
}

// work runs the embed worker once, as River's attempt n of max.
func work(t *testing.T, w *jobs.EmbedWorker, server string, force bool, attempt, maxAttempts int) error {
	t.Helper()
	return w.Work(context.Background(), &river.Job[jobs.EmbedArgs]{
		JobRow: &rivertype.JobRow{ID: 1, Attempt: attempt, MaxAttempts: maxAttempts},
		Args:   jobs.EmbedArgs{ServerID: server, Force: force},
	})
}

func status(t *testing.T, store *postgres.Store, server, model string) lore.EmbeddingsStatus {
	t.Helper()
	st, err := store.EmbeddingsStatus(context.Background(), server, model)
	require.NoError(t, err)
	return st
}

func newEmbedClient(t *testing.T, fake *embeddingstest.Server, model string) *embeddings.Client {
	t.Helper()
	c, err := embeddings.New(embeddings.Config{URL: fake.URL, Model: model, Rate: 1000, Retries: 1})
	require.NoError(t, err)
	return c
}

// TestEmbedJob: the embed job sends only the candidates' texts (decorator
// lines removed, split parts joined, once per group), stores their
// vectors (what the provider answered, under the model and text hash),
// re-embeds only an edited entry, everything on a model change or a
// reindex, nothing for a LEXICAL server; a provider that keeps failing
// leaves entries PENDING until the last attempt marks them FAILED, a text
// the provider refuses is FAILED alone while the others are stored, and
// an entry edited during the provider call ends current (testEmbedEditRace).
func TestEmbedJob(t *testing.T) {
	pool := postgrestest.NewPool(t)
	ctx := context.Background()
	store := postgres.New(pool)
	const server = "123456789012345680"
	f := newEmbedFixture(t, store, server)
	fake := embeddingstest.New(32)
	defer fake.Close()
	w := &jobs.EmbedWorker{Deps: jobs.Deps{Store: store, Embeddings: newEmbedClient(t, fake, "m1")}.WithDefaults()}

	require.Equal(t, lore.EmbeddingsStatus{Model: "m1", Pending: 3}, status(t, store, server, "m1"))
	require.NoError(t, work(t, w, server, false, 1, 5))
	require.Equal(t, 3, fake.Inputs(), "two entries and one split group")
	require.Equal(t, lore.EmbeddingsStatus{Model: "m1", Ready: 3}, status(t, store, server, "m1"))
	vecs, err := store.ScopeVectors(ctx, server, 7, "m1")
	require.NoError(t, err)
	require.Len(t, vecs, 3)
	for name, text := range map[string]string{
		"lollipop": "Kotori always has a lollipop in her mouth.",
		"long 0":   "Tohka eats kinako bread every afternoon.",
	} {
		v := vecs[f.ids[name]]
		require.Equal(t, semantic.TextHash(text), v.Hash, name)
		require.Equal(t, embeddingstest.Vector("m1\x00"+text, 32), v.Vector, name)
	}
	st, ok, err := store.EntryEmbeddingState(ctx, f.ids["long 1"], "m1")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, lore.EmbeddingReady, st, "a later part shares its group's state")
	_, ok, err = store.EntryEmbeddingState(ctx, f.ids["plain"], "m1")
	require.NoError(t, err)
	require.False(t, ok, "not a candidate")

	// Nothing pending: no call.
	require.NoError(t, work(t, w, server, false, 1, 5))
	require.Equal(t, 3, fake.Inputs())
	// An edit re-embeds that entry alone.
	changed := "Kotori keeps a lollipop in her mouth, even in battle."
	_, err = store.UpdateEntry(ctx, server, 7, f.ids["lollipop"], lore.EntryPatch{Content: &changed})
	require.NoError(t, err)
	require.Equal(t, lore.EmbeddingsStatus{Model: "m1", Ready: 2, Pending: 1}, status(t, store, server, "m1"))
	require.NoError(t, work(t, w, server, false, 1, 5))
	require.Equal(t, 4, fake.Inputs())
	// A new model: everything is pending under it and embedded again.
	w2 := &jobs.EmbedWorker{Deps: jobs.Deps{Store: store, Embeddings: newEmbedClient(t, fake, "m2")}.WithDefaults()}
	require.Equal(t, lore.EmbeddingsStatus{Model: "m2", Pending: 3}, status(t, store, server, "m2"))
	require.NoError(t, work(t, w2, server, false, 1, 5))
	require.Equal(t, 7, fake.Inputs())
	require.Equal(t, lore.EmbeddingsStatus{Model: "m2", Ready: 3}, status(t, store, server, "m2"))
	// A reindex sends everything again.
	require.NoError(t, work(t, w2, server, true, 1, 5))
	require.Equal(t, 10, fake.Inputs())
	// The persona book's own semanticAllEntries makes its plain entry a
	// candidate: pending, then embedded; off again, it is none.
	on, off := true, false
	for _, v := range []*bool{&on, &off} {
		_, err = store.UpdatePersonaBookSettings(ctx, server, 7, lore.BookSettingsPatch{SemanticAllEntries: &v})
		require.NoError(t, err)
		if *v {
			require.Equal(t, lore.EmbeddingsStatus{Model: "m2", Ready: 3, Pending: 1}, status(t, store, server, "m2"))
			require.NoError(t, work(t, w2, server, false, 1, 5))
			require.Equal(t, 11, fake.Inputs(), "the plain entry alone")
			st, ok, err := store.EntryEmbeddingState(ctx, f.ids["plain"], "m2")
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, lore.EmbeddingReady, st)
		}
	}
	require.Equal(t, lore.EmbeddingsStatus{Model: "m2", Ready: 3}, status(t, store, server, "m2"))

	// A provider that keeps failing: PENDING, nothing stored, the job
	// retried; after its last attempt FAILED.
	extra := "Origami studies the spirits in secret."
	e := lore.NewEntry()
	e.Server, e.Lineage, e.Content, e.Vectorized = server, 7, extra, true
	_, err = store.InsertEntry(ctx, e)
	require.NoError(t, err)
	fake.SetMode(embeddingstest.Fail)
	require.Error(t, work(t, w2, server, false, 1, 5))
	require.Equal(t, lore.EmbeddingsStatus{Model: "m2", Ready: 3, Pending: 1}, status(t, store, server, "m2"))
	require.NoError(t, work(t, w2, server, false, 5, 5))
	require.Equal(t, lore.EmbeddingsStatus{Model: "m2", Ready: 3, Failed: 1}, status(t, store, server, "m2"))
	fake.SetMode(embeddingstest.OK)

	// A refused text is FAILED alone; the others of its batch are stored.
	require.NoError(t, work(t, w, server, false, 1, 5)) // back to m1: one row per entry, all again
	require.Equal(t, lore.EmbeddingsStatus{Model: "m1", Ready: 4}, status(t, store, server, "m1"))
	fake.Refuse("spacequake")
	w3 := &jobs.EmbedWorker{Deps: jobs.Deps{Store: store, Embeddings: newEmbedClient(t, fake, "m3")}.WithDefaults()}
	require.NoError(t, work(t, w3, server, false, 1, 5))
	require.Equal(t, lore.EmbeddingsStatus{Model: "m3", Ready: 3, Failed: 1}, status(t, store, server, "m3"))
	st, _, err = store.EntryEmbeddingState(ctx, f.ids["alarm"], "m3")
	require.NoError(t, err)
	require.Equal(t, lore.EmbeddingFailed, st)
	fake.Refuse("")

	// A server set to LEXICAL sends nothing.
	before := fake.Inputs()
	lexical := lore.RankerLexical
	_, err = store.PatchServerSettings(ctx, server, lore.SettingsPatch{Semantic: lore.SemanticPatch{Ranker: &lexical}})
	require.NoError(t, err)
	require.NoError(t, work(t, w3, server, true, 1, 5))
	require.Equal(t, before, fake.Inputs(), "LEXICAL: no lore leaves the machine")

	t.Run("edit during the provider call", func(t *testing.T) { testEmbedEditRace(t, store) })
}

// TestEmbedTriggerAndSweep: through River, the sweep that runs when the
// leader starts enqueues the embed job of a server with pending
// candidates, and a write made through a store hooked to the trigger
// enqueues its server's job, whose vectors are then ready.
func TestEmbedTriggerAndSweep(t *testing.T) {
	pool := postgrestest.NewPool(t)
	ctx := context.Background()
	const server = "123456789012345681"
	trigger := jobs.NewEmbedTrigger(testLogger(t))
	trigger.Pause = 10 * time.Millisecond
	store := postgres.New(pool).WithLoreWriteHook(trigger.Touch)
	f := newEmbedFixture(t, postgres.New(pool), server) // written without the hook: the sweep finds them
	fake := embeddingstest.New(16)
	defer fake.Close()
	client := startClient(t, pool, jobs.Config{Deps: jobs.Deps{Store: store, Embeddings: newEmbedClient(t, fake, "m1")}})
	tctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); trigger.Run(tctx, client.Insert) }()
	defer func() { cancel(); <-done }()

	waitStatus := func(want lore.EmbeddingsStatus) {
		t.Helper()
		deadline := time.Now().Add(waitLimit)
		for {
			got := status(t, store, server, "m1")
			if got == want {
				return
			}
			require.True(t, time.Now().Before(deadline), "status %+v, want %+v", got, want)
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitStatus(lore.EmbeddingsStatus{Model: "m1", Ready: 3})
	for i := range 3 {
		c := fmt.Sprintf("The spacequake alarm rings for the %d time.", i+2)
		_, err := store.UpdateEntry(ctx, server, 7, f.ids["alarm"], lore.EntryPatch{Content: &c})
		require.NoError(t, err)
	}
	waitStatus(lore.EmbeddingsStatus{Model: "m1", Ready: 3})
	vecs, err := store.ScopeVectors(ctx, server, 7, "m1")
	require.NoError(t, err)
	require.Equal(t, semantic.TextHash("The spacequake alarm rings for the 4 time."), vecs[f.ids["alarm"]].Hash)
	// Each job completed itself in the transaction of its last read, with
	// its report as the output. The job that wrote the last vector
	// completes in a round after that write, so the test waits for it
	// (under load the status was ready before any job had completed).
	var jobsDone, withOutput int
	deadline := time.Now().Add(waitLimit)
	for {
		require.NoError(t, pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE (metadata->'output'->>'candidates')::int = 3)
FROM river_job WHERE kind = 'entry_embed' AND state = 'completed'`).Scan(&jobsDone, &withOutput))
		if jobsDone > 0 || !time.Now().Before(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	require.Positive(t, jobsDone)
	require.Equal(t, jobsDone, withOutput)
}

// BenchmarkEmbedJob1000: one embed job embeds 1,000 candidates (four
// persona books of 250) against the fake provider answering each call
// after 5 ms (the goal: at most 2 s); batches of 64, two at once.
func BenchmarkEmbedJob1000(b *testing.B) {
	pool := postgrestest.NewPool(b)
	ctx := context.Background()
	store := postgres.New(pool)
	const server = "123456789012345682"
	_, err := store.UpsertServer(ctx, server, "S")
	require.NoError(b, err)
	for i := range 1000 {
		e := lore.NewEntry()
		e.Server, e.Lineage, e.Vectorized = server, lore.Lineage(1+i/250), true
		e.Content = fmt.Sprintf("Entry %d tells of spirit number %d and the city of Tengu %d.", i, i%97, i%13)
		_, err := store.InsertEntry(ctx, e)
		require.NoError(b, err)
	}
	fake := embeddingstest.New(1024)
	defer fake.Close()
	fake.SetLatency(5 * time.Millisecond)
	c, err := embeddings.New(embeddings.Config{URL: fake.URL, Model: "m", Rate: 1000})
	require.NoError(b, err)
	w := &jobs.EmbedWorker{Deps: jobs.Deps{Store: store, Embeddings: c}.WithDefaults()}
	for b.Loop() {
		b.StopTimer()
		_, err := pool.Exec(ctx, `DELETE FROM entry_vectors`)
		require.NoError(b, err)
		b.StartTimer()
		require.NoError(b, w.Work(ctx, &river.Job[jobs.EmbedArgs]{JobRow: &rivertype.JobRow{ID: 1, Attempt: 1, MaxAttempts: 5},
			Args: jobs.EmbedArgs{ServerID: server}}))
	}
	st, err := store.EmbeddingsStatus(ctx, server, "m")
	require.NoError(b, err)
	require.Equal(b, 1000, st.Ready)
}

// racingEmbedder is the job's provider with a hook: its first call
// answers the texts it was sent only after edit ran, as when an entry is
// edited while its embedding is being computed; every later call runs
// check first.
type racingEmbedder struct {
	jobs.Embedder
	calls       int
	sent        [][]string
	edit, check func()
}

func (r *racingEmbedder) Embed(ctx context.Context, inputs []string) ([][]float32, error) {
	r.calls++
	r.sent = append(r.sent, inputs)
	if r.calls > 1 {
		r.check()
	}
	out, err := r.Embedder.Embed(ctx, inputs)
	if r.calls == 1 {
		r.edit()
	}
	return out, err
}

// testEmbedEditRace (run by TestEmbedJob on its database, to add no
// database of its own): an entry edited while the job computes its
// embedding never ends with the old text's vector marked current. The
// vector the provider computed from the old text is stored under the old
// text's hash, so the entry is PENDING for its new text (checked when the
// job calls the provider again) and the job, reading again before it
// completes, embeds the new text: READY with the new text's vector.
func testEmbedEditRace(t *testing.T, store *postgres.Store) {
	ctx := context.Background()
	const server = "123456789012345690"
	f := newEmbedFixture(t, store, server)
	fake := embeddingstest.New(16)
	defer fake.Close()
	client := newEmbedClient(t, fake, "m1")
	id := f.ids["alarm"]
	const edited = "Fraxinus hovers above Tengu City, cloaked."
	editedText := edited
	oldHash := semantic.TextHash("The spacequake alarm rings across Tengu City.")
	storedHash := func() string {
		vecs, err := store.ScopeVectors(ctx, server, 7, "m1")
		require.NoError(t, err)
		return vecs[id].Hash
	}
	r := &racingEmbedder{Embedder: client}
	r.edit = func() {
		_, err := store.UpdateEntry(ctx, server, 7, id, lore.EntryPatch{Content: &editedText})
		require.NoError(t, err)
	}
	r.check = func() {
		st, ok, err := store.EntryEmbeddingState(ctx, id, "m1")
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, lore.EmbeddingPending, st, "the old text's vector is not current for the new text")
		require.Equal(t, oldHash, storedHash(), "stored under the text it was computed from")
	}
	w := &jobs.EmbedWorker{Deps: jobs.Deps{Store: store, Embeddings: r}.WithDefaults()}
	require.NoError(t, work(t, w, server, false, 1, 5))

	require.Equal(t, 2, r.calls, "the job read again and embedded the new text")
	require.Equal(t, []string{edited}, r.sent[1])
	st, ok, err := store.EntryEmbeddingState(ctx, id, "m1")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, lore.EmbeddingReady, st)
	require.Equal(t, semantic.TextHash(edited), storedHash())
	want, err := client.Embed(ctx, []string{edited})
	require.NoError(t, err)
	vecs, err := store.ScopeVectors(ctx, server, 7, "m1")
	require.NoError(t, err)
	require.Equal(t, want[0], vecs[id].Vector, "the new text's vector")
	require.Equal(t, lore.EmbeddingsStatus{Model: "m1", Ready: 3}, status(t, store, server, "m1"))
}
