package graph_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const qImportWait = `mutation($input: ImportLorebookInput!) { importLorebook(input: $input) {
	added importId collection { name entryCount } job { id state error }
	report { format entries split { index parts } inert warnings }
	error { code message field reason params } } }`

type waitPayload struct {
	Added      int
	ImportID   *string
	Collection *struct {
		Name       string
		EntryCount int
	}
	Job *struct {
		ID, State string
		Error     *string
	}
	Report *struct {
		Format   string
		Entries  int
		Inert    int
		Warnings []string
	}
	Error *reasonedError
}

func (a *api) importWait(file string, data []byte, input map[string]any) waitPayload {
	a.t.Helper()
	r := a.upload(serviceKey, qImportWait, input, file, data)
	require.Empty(a.t, r.Errors)
	var p waitPayload
	require.NoError(a.t, json.Unmarshal(r.Data["importLorebook"], &p))
	return p
}

// TestWaitSecondsAnswersInline: the 4 MB Clorinde card becomes a job; with
// waitSeconds the job finishes in time and the payload carries its report,
// counts, collection and importId beside the job; without it the payload
// has only the job, as before.
func TestWaitSecondsAnswersInline(t *testing.T) {
	png := corpus(t, "png/bronya-rand__Clorinde_v3_ccv3.png")
	require.Greater(t, len(png), 4<<20-200<<10, "the case needs a 4 MB card")
	a, _ := newJobsAPI(t, 1<<20)
	setupServer(t, a, serverA)

	p := a.importWait("Clorinde.png", png, map[string]any{"serverDiscordId": serverA, "lineageId": 0, "waitSeconds": 10})
	require.Nil(t, p.Error)
	require.NotNil(t, p.Job, "a job ran")
	require.Equal(t, "COMPLETED", p.Job.State)
	require.Equal(t, 38, p.Added)
	require.NotNil(t, p.Report)
	require.Equal(t, "png/v3-card", p.Report.Format)
	require.Equal(t, 38, p.Report.Entries)
	require.NotNil(t, p.ImportID)
	require.Equal(t, 38, p.Collection.EntryCount)

	p = a.importWait("Clorinde.png", png, map[string]any{"serverDiscordId": serverA, "lineageId": 0, "name": "Clorinde again"})
	require.NotNil(t, p.Job)
	require.Zero(t, p.Added, "waitSeconds 0: the job is answered at once")
	require.Nil(t, p.Report)
	require.Nil(t, p.ImportID)
	j := a.waitJob(serviceKey, p.Job.ID)
	require.Equal(t, "COMPLETED", j.State, "error: %v", j.Error)

	// A card without a lorebook (1.2 MB, a job): the wait shows the job
	// cancelled with its reason, and nothing was written.
	nobook := corpus(t, "png/sillytavern-content__contest_Assistant_Amy_nobook.png")
	p = a.importWait("Amy.png", nobook, map[string]any{"serverDiscordId": serverA, "lineageId": 0, "waitSeconds": 10})
	require.NotNil(t, p.Job)
	require.Equal(t, "CANCELLED", p.Job.State)
	require.NotNil(t, p.Job.Error)
	require.Contains(t, *p.Job.Error, "no lorebook in this card")
	require.Zero(t, p.Added)
}

// TestWaitSecondsFallsBackToJob: when the job does not finish within
// waitSeconds (here no worker runs it), the payload answers with the job
// as it stands and no report.
func TestWaitSecondsFallsBackToJob(t *testing.T) {
	png := corpus(t, "png/bronya-rand__Clorinde_v3_ccv3.png")
	a, store := newJobsAPIWork(t, 1<<20, false)
	setupServer(t, a, serverA)
	p := a.importWait("Clorinde.png", png, map[string]any{"serverDiscordId": serverA, "lineageId": 0, "waitSeconds": 1})
	require.Nil(t, p.Error)
	require.NotNil(t, p.Job)
	require.Equal(t, "AVAILABLE", p.Job.State, "queued, not run")
	require.Zero(t, p.Added)
	require.Nil(t, p.Report)
	require.Nil(t, p.ImportID)
	n, err := store.CountByScope(t.Context(), serverA)
	require.NoError(t, err)
	require.Zero(t, n[0], "nothing written yet")
}

// TestImportAnswersForBadInput: waitSeconds outside 0-10 and a file that is not a
// lorebook are INVALID_INPUT naming the field, with a reason key.
func TestImportAnswersForBadInput(t *testing.T) {
	a, _ := newJobsAPI(t, 1<<20)
	setupServer(t, a, serverA)
	book := corpus(t, "card-json/bronya-rand__Natasha_v2.json")
	for _, w := range []int{-1, 11} {
		p := a.importWait("natasha.json", book, map[string]any{"serverDiscordId": serverA, "lineageId": 0, "waitSeconds": w})
		require.NotNil(t, p.Error, "waitSeconds %d", w)
		require.Equal(t, "INVALID_INPUT", p.Error.Code)
		require.Equal(t, "waitSeconds", *p.Error.Field)
		require.Equal(t, "out_of_range", p.Error.Reason)
	}
	p := a.importWait("notes.txt", []byte("Elara is a ranger of the northern woods.\n"), map[string]any{"serverDiscordId": serverA, "lineageId": 0})
	require.NotNil(t, p.Error)
	require.Equal(t, "INVALID_INPUT", p.Error.Code)
	require.Equal(t, "file", *p.Error.Field)
	require.Equal(t, "not_a_lorebook", p.Error.Reason)
	require.True(t, strings.HasPrefix(p.Error.Message, "invalid file: this is not a lorebook file; loregate reads SillyTavern world info"), p.Error.Message)
	require.Contains(t, p.Error.Message, "worldbooks")
	require.NotContains(t, p.Error.Message, "invalid character")
}
