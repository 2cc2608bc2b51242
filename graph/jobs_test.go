package graph_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/graph/auth"
	"loregate/graph/graphtest"
	"loregate/graph/model"
	"loregate/lore"
	"loregate/lore/postgres"
)

const (
	qJob = `query($id: ID!) { job(id: $id) { id kind serverDiscordId state progress attempt error report
		importResult { added duplicates replaced collection { id name entryCount } report { format entries skipped { index reason } } }
		artifact { id fileName sizeBytes sha256 expiresAt url } } }`
	qExportBackup  = `mutation($s: String!) { exportWorkspaceBackup(input: {serverDiscordId: $s}) { job { id state } error { code message } } }`
	qPreviewBackup = `mutation($input: PreviewWorkspaceBackupInput!) { previewWorkspaceBackup(input: $input) {
		preview { previewId expiresAt scopes { lineageId included incoming current converted }
			memories { total converted channelOnly untagged notConverted { source reason } }
		serverSettings { included workbench sameServer skipped skippedReasons { setting reason } }
		otherServerChannels { collections entries } }
		error { code message field } } }`
	qImportBackup = `mutation($input: ImportWorkspaceBackupInput!) { importWorkspaceBackup(input: $input) { job { id state } error { code message } } }`
)

// newJobsAPI is newAPI with background jobs: a River client working every
// job kind on the same fresh database, and imports above inline bytes
// turned into jobs.
func newJobsAPI(t *testing.T, inline int) (*api, *postgres.Store) {
	t.Helper()
	return newJobsAPIWork(t, inline, true)
}

// newJobsAPIWork is newJobsAPI whose River client works the jobs only when
// work is set (else they wait, queued, for ever).
func newJobsAPIWork(t *testing.T, inline int, work bool) (*api, *postgres.Store) {
	t.Helper()
	g := graphtest.New(t, graphtest.Options{Jobs: true, JobsIdle: !work, InlineImportBytes: inline})
	return wrap(t, g), g.Store
}

type jobView struct {
	ID, Kind, State string
	ServerDiscordID *string
	Progress        float64
	Attempt         int
	Error           *string
	Report          map[string]any
	ImportResult    *importPayload
	Artifact        *struct {
		ID, FileName, Sha256, URL string
		SizeBytes                 int
	}
}

// waitJob polls job(id) until it is finished (bounded wait, not a timing
// assertion) and returns it.
func (a *api) waitJob(bearer, id string) jobView {
	a.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var j *jobView
		a.must(bearer, qJob, map[string]any{"id": id}, "job", &j)
		require.NotNil(a.t, j, "job %s not visible", id)
		switch j.State {
		case "COMPLETED", "CANCELLED", "DISCARDED":
			return *j
		}
		require.True(a.t, time.Now().Before(deadline), "job %s still %s", id, j.State)
		time.Sleep(100 * time.Millisecond)
	}
}

// TestLargeImportBecomesJob uploads a multi-megabyte PNG card through the
// import mutation: the mutation returns a job at once, the job imports all
// 38 entries into a new collection and reports them; members of another
// server cannot see the job.
func TestLargeImportBecomesJob(t *testing.T) {
	png := corpus(t, "png/bronya-rand__Clorinde_v3_ccv3.png")
	require.Greater(t, len(png), 2<<20, "the case needs a multi-megabyte file")
	a, store := newJobsAPI(t, 64<<10)
	setupServer(t, a, serverA)

	imp := a.upload(serviceKey, `mutation($input: ImportLorebookInput!) { importLorebook(input: $input) { added job { id state kind progress } error { code message } } }`,
		map[string]any{"serverDiscordId": serverA, "lineageId": 0}, "Clorinde.png", png)
	require.Empty(t, imp.Errors)
	var p struct {
		Added int
		Job   *struct{ ID, State, Kind string }
		Error *mutationError
	}
	require.NoError(t, json.Unmarshal(imp.Data["importLorebook"], &p))
	require.Nil(t, p.Error)
	require.NotNil(t, p.Job, "an upload above the inline threshold becomes a job")
	require.Equal(t, "lorebook_import", p.Job.Kind)
	require.Zero(t, p.Added, "nothing is written before the job runs")

	j := a.waitJob(serviceKey, p.Job.ID)
	require.Equal(t, "COMPLETED", j.State, "error: %v", j.Error)
	require.Equal(t, 1.0, j.Progress)
	require.NotNil(t, j.ImportResult)
	require.Equal(t, 38, j.ImportResult.Added)
	require.Equal(t, "png/v3-card", j.ImportResult.Report.Format)
	require.Equal(t, 38, j.ImportResult.Report.Entries)
	require.Equal(t, 38, j.ImportResult.Collection.EntryCount)
	require.EqualValues(t, 38, j.Report["added"])

	entries, err := store.ListScope(context.Background(), serverA, lore.Serverwide, "")
	require.NoError(t, err)
	require.Len(t, entries, 38)

	// A member of another server sees nothing; a member of this one may read it.
	other := a.member("u1", map[string]auth.Membership{serverB: {Manage: true}})
	var hidden *jobView
	a.must(other, qJob, map[string]any{"id": p.Job.ID}, "job", &hidden)
	require.Nil(t, hidden)
	reader := a.member("u2", map[string]auth.Membership{serverA: {}})
	var seen *jobView
	a.must(reader, qJob, map[string]any{"id": p.Job.ID}, "job", &seen)
	require.NotNil(t, seen)

	// The same upload again: the job cancels with a clear error (the name is
	// taken) and writes nothing.
	imp = a.upload(serviceKey, `mutation($input: ImportLorebookInput!) { importLorebook(input: $input) { job { id } error { code } } }`,
		map[string]any{"serverDiscordId": serverA, "lineageId": 0}, "Clorinde.png", png)
	require.NoError(t, json.Unmarshal(imp.Data["importLorebook"], &p))
	j = a.waitJob(serviceKey, p.Job.ID)
	require.Equal(t, "CANCELLED", j.State)
	require.NotNil(t, j.Error)
	require.Contains(t, *j.Error, "already exists")
	entries, err = store.ListScope(context.Background(), serverA, lore.Serverwide, "")
	require.NoError(t, err)
	require.Len(t, entries, 38)
}

// TestSmallImportStaysInline: below the threshold the mutation answers with
// the counts and no job.
func TestSmallImportStaysInline(t *testing.T) {
	a, _ := newJobsAPI(t, 64<<10)
	setupServer(t, a, serverA)
	data := corpus(t, "card-json/bronya-rand__Natasha_v2.json")
	require.Less(t, len(data), 64<<10)
	r := a.upload(serviceKey, `mutation($input: ImportLorebookInput!) { importLorebook(input: $input) { added job { id } error { code } } }`,
		map[string]any{"serverDiscordId": serverA, "lineageId": 0}, "natasha.json", data)
	require.Empty(t, r.Errors)
	var p struct {
		Added int
		Job   *struct{ ID string }
	}
	require.NoError(t, json.Unmarshal(r.Data["importLorebook"], &p))
	require.Nil(t, p.Job)
	require.Positive(t, p.Added)
}

type scopePreview struct {
	LineageID                    *int64
	Included                     bool
	Incoming, Current, Converted int
}

// TestWorkspaceBackupRoundTrip exports a server with Serverwide collections
// (settings, channels, an empty one), two persona lineages (one of a
// removed persona, one lore-only) and pending legacy channel names, downloads
// the artifact (checksum verified), previews it into another server (which
// holds lore in a scope the backup carries and in one it does not) and
// commits it: every carried scope is reproduced exactly, the absent one is
// preserved.
func TestWorkspaceBackupRoundTrip(t *testing.T) {
	ctx := context.Background()
	a, store := newJobsAPI(t, 64<<10)
	setupServer(t, a, serverA)
	setupServer(t, a, serverB)
	chA, chB := "333333333333333333", "444444444444444444"

	_, err := store.CreateCollection(ctx, lore.Collection{Server: serverA, Name: "World", Enabled: false, ChannelIDs: []string{chA, chB}})
	require.NoError(t, err)
	_, err = store.CreateCollection(ctx, lore.Collection{Server: serverA, Name: "Empty", Enabled: true, ChannelIDs: []string{chB}})
	require.NoError(t, err)
	_, err = store.UpsertPersona(ctx, lore.Persona{Server: serverA, ID: 1, Lineage: 7, Name: "Seraphina"})
	require.NoError(t, err)
	require.NoError(t, store.RemovePersona(ctx, serverA, 1))
	mk := func(lineage lore.Lineage, collection, title string, channels, legacy []string) {
		e := lore.NewEntry()
		e.Server, e.Lineage, e.Collection, e.Title, e.Content = serverA, lineage, collection, title, "content of "+title
		e.Keys, e.ChannelIDs, e.LegacyChannelTags = []string{title}, channels, legacy
		depth := 3
		e.ScanDepth, e.Probability, e.Order = &depth, 40, 7
		e.Extensions = map[string]json.RawMessage{"st.depth": json.RawMessage(`4`)}
		_, err := store.InsertEntry(ctx, e)
		require.NoError(t, err)
	}
	mk(lore.Serverwide, "World", "castle", nil, nil)
	mk(lore.Serverwide, "World", "river", nil, nil)
	mk(7, "", "sword", []string{chA}, []string{"tavern"})
	mk(7, "", "shield", nil, nil)
	mk(9, "", "orphan", nil, []string{"General Chat"}) // lore-only lineage
	// A's settings and lore editor role travel too; the role (an id of A)
	// does not apply on B.
	setA := lore.DefaultServerSettings()
	setA.RegexKeys, setA.BudgetUnit, setA.BudgetLimit, setA.IncludeNames = true, lore.BudgetTokens, 1500, true
	_, err = store.UpdateServerSettings(ctx, serverA, setA)
	require.NoError(t, err)
	roleA, off := "555555555555555555", false
	_, err = store.UpdateWorkbenchSettings(ctx, serverA, lore.WorkbenchSettingsPatch{LoreEditorRoleID: &roleA, ProposalsEnabled: &off})
	require.NoError(t, err)
	// B keeps its lore on the machine (LEXICAL): A's AUTO would send it
	// to the embeddings provider, so B keeps its ranker.
	svB, err := store.GetServer(ctx, serverB)
	require.NoError(t, err)
	svB.Settings.Semantic.Ranker = lore.RankerLexical
	svB, err = store.UpdateServerSettings(ctx, serverB, svB.Settings)
	require.NoError(t, err)

	// Destination: lineage 7 holds something else (replaced), lineage 12 is
	// absent from the backup (preserved); its own "World" is enabled for
	// every channel (the backup's state replaces that until an undo).
	_, err = store.CreateCollection(ctx, lore.Collection{Server: serverB, Name: "World", Enabled: true})
	require.NoError(t, err)
	colsB, err := store.ListCollections(ctx, serverB)
	require.NoError(t, err)
	e := lore.NewEntry()
	e.Server, e.Lineage, e.Title, e.Content = serverB, 7, "old", "old content"
	_, err = store.InsertEntry(ctx, e)
	require.NoError(t, err)
	e.Lineage, e.Title = 12, "keep me"
	_, err = store.InsertEntry(ctx, e)
	require.NoError(t, err)

	var ex struct {
		Job   *struct{ ID, State string }
		Error *mutationError
	}
	a.must(serviceKey, qExportBackup, map[string]any{"s": serverA}, "exportWorkspaceBackup", &ex)
	require.Nil(t, ex.Error)
	j := a.waitJob(serviceKey, ex.Job.ID)
	require.Equal(t, "COMPLETED", j.State, "%v", j.Error)
	require.NotNil(t, j.Artifact)

	// Download: managers only; checksum matches.
	get := func(bearer string) *http.Response {
		req, err := http.NewRequest(http.MethodGet, a.srv.URL+j.Artifact.URL, nil)
		require.NoError(t, err)
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		return resp
	}
	for _, tc := range []struct {
		name   string
		bearer string
		status int
	}{
		{"anonymous", "", http.StatusUnauthorized},
		{"member without manage", a.member("u", map[string]auth.Membership{serverA: {}}), http.StatusNotFound},
		{"manager of another server", a.member("u", map[string]auth.Membership{serverB: {Manage: true}}), http.StatusNotFound},
		{"service", serviceKey, http.StatusOK},
	} {
		t.Run("download/"+tc.name, func(t *testing.T) {
			resp := get(tc.bearer)
			defer resp.Body.Close()
			require.Equal(t, tc.status, resp.StatusCode)
		})
	}
	resp := get(serviceKey)
	file, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	sum := sha256.Sum256(file)
	require.Equal(t, j.Artifact.Sha256, hex.EncodeToString(sum[:]))
	require.Equal(t, j.Artifact.Sha256, resp.Header.Get("X-Checksum-SHA256"))
	require.Equal(t, len(file), j.Artifact.SizeBytes)

	// Preview into server B.
	r := a.upload(serviceKey, qPreviewBackup, map[string]any{"serverDiscordId": serverB}, j.Artifact.FileName, file)
	require.Empty(t, r.Errors)
	var pv struct {
		Preview *struct {
			PreviewID           string
			Scopes              []scopePreview
			ServerSettings      model.BackupSettingsPreview
			OtherServerChannels model.BackupOtherChannels
		}
		Error *mutationError
	}
	require.NoError(t, json.Unmarshal(r.Data["previewWorkspaceBackup"], &pv))
	require.Nil(t, pv.Error)
	// World and Empty name A's channels, and so does sword (lineage 7).
	require.Equal(t, model.BackupOtherChannels{Collections: 2, Entries: 1}, pv.Preview.OtherServerChannels)
	// A has a lore editor role and no proposal channel: only the role is
	// named skipped (an empty id has nothing to apply).
	require.Equal(t, model.BackupSettingsPreview{Included: true, Workbench: true, SameServer: false,
		Skipped: []string{"semanticRanker", "loreEditorRoleId"},
		SkippedReasons: []*model.BackupSettingSkip{{Setting: "semanticRanker", Reason: model.BackupSkipReasonKeepsLoreLocal},
			{Setting: "loreEditorRoleId", Reason: model.BackupSkipReasonOtherServer}}}, pv.Preview.ServerSettings)
	l7, l9, l12 := int64(7), int64(9), int64(12)
	require.Equal(t, []scopePreview{
		{LineageID: nil, Included: true, Incoming: 2, Current: 0},
		{LineageID: &l7, Included: true, Incoming: 2, Current: 1},
		{LineageID: &l9, Included: true, Incoming: 1, Current: 0},
		{LineageID: &l12, Included: false, Incoming: 0, Current: 1},
	}, pv.Preview.Scopes)
	before, err := store.CountByScope(ctx, serverB)
	require.NoError(t, err)
	require.Equal(t, lore.ScopeCounts{0: 0, 7: 1, 12: 1}, before, "a preview writes nothing")

	var im struct {
		Job   *struct{ ID string }
		Error *mutationError
	}
	a.must(serviceKey, qImportBackup, map[string]any{"input": map[string]any{"serverDiscordId": serverB, "previewId": pv.Preview.PreviewID}}, "importWorkspaceBackup", &im)
	require.Nil(t, im.Error)
	j = a.waitJob(serviceKey, im.Job.ID)
	require.Equal(t, "COMPLETED", j.State, "%v", j.Error)

	// Every carried scope is reproduced; the absent one is preserved.
	for _, l := range []lore.Lineage{lore.Serverwide, 7, 9} {
		want, err := store.ListScope(ctx, serverA, l, "")
		require.NoError(t, err)
		got, err := store.ListScope(ctx, serverB, l, "")
		require.NoError(t, err)
		require.Equal(t, comparable(want), comparable(got), "lineage %d", l)
	}
	kept, err := store.ListScope(ctx, serverB, 12, "")
	require.NoError(t, err)
	require.Len(t, kept, 1)
	require.Equal(t, "keep me", kept[0].Title)
	wantCols, err := store.ListCollections(ctx, serverA)
	require.NoError(t, err)
	gotCols, err := store.ListCollections(ctx, serverB)
	require.NoError(t, err)
	require.Equal(t, collectionSettings(wantCols), collectionSettings(gotCols), "collection settings, empty collection included")
	gotB, err := store.GetServer(ctx, serverB)
	require.NoError(t, err)
	wantB := setA
	wantB.Semantic.Ranker = lore.RankerLexical
	require.True(t, wantB.Equal(gotB.Settings), "A's settings on B, B's ranker: %+v", gotB.Settings)
	wbB, err := store.GetWorkbenchSettings(ctx, serverB)
	require.NoError(t, err)
	require.Equal(t, []any{false, ""}, []any{wbB.ProposalsEnabled, wbB.LoreEditorRoleID}, "A's proposals switch, not A's role")

	// The preview was consumed: committing it again is NOT_FOUND.
	a.must(serviceKey, qImportBackup, map[string]any{"input": map[string]any{"serverDiscordId": serverB, "previewId": pv.Preview.PreviewID}}, "importWorkspaceBackup", &im)
	require.NotNil(t, im.Error)
	require.Equal(t, "NOT_FOUND", im.Error.Code)

	// Undo: the replaced scopes come back, "World" gets its own state
	// back, the collection the backup created goes.
	var h historyConn
	a.must(serviceKey, qHistory, map[string]any{"s": serverB, "first": 1}, "importHistory", &h)
	require.Equal(t, "BACKUP", h.Edges[0].Node.Kind)
	var u struct {
		Restored, Removed, CollectionsRestored     int
		ServerSettingsRestored, ServerSettingsKept bool
		Error                                      *mutationError
	}
	a.must(serviceKey, `mutation($s: String!, $id: ID!) { undoImport(input: {serverDiscordId: $s, importId: $id}) {
		restored removed collectionsRestored serverSettingsRestored serverSettingsKept error { code message } } }`,
		map[string]any{"s": serverB, "id": h.Edges[0].Node.ID}, "undoImport", &u)
	require.Nil(t, u.Error)
	require.True(t, u.ServerSettingsRestored)
	require.False(t, u.ServerSettingsKept)
	gotB, err = store.GetServer(ctx, serverB)
	require.NoError(t, err)
	require.True(t, svB.Settings.Equal(gotB.Settings), "B's own settings back")
	require.Equal(t, 1, u.CollectionsRestored)
	require.Equal(t, 1, u.Restored)
	require.Equal(t, 5, u.Removed)
	after, err := store.CountByScope(ctx, serverB)
	require.NoError(t, err)
	require.Equal(t, before, after)
	gotCols, err = store.ListCollections(ctx, serverB)
	require.NoError(t, err)
	require.Equal(t, collectionSettings(colsB), collectionSettings(gotCols), "World as it was, Empty gone")
}

// comparable drops what legitimately differs between servers (ids, server,
// times) from a scope listing.
func comparable(es []lore.Entry) []lore.Entry {
	out := make([]lore.Entry, len(es))
	for i, e := range es {
		e.ID, e.Server, e.CreatedAt, e.UpdatedAt = 0, "", time.Time{}, time.Time{}
		out[i] = e
	}
	return out
}

func collectionSettings(cs []lore.Collection) []string {
	var out []string
	for _, c := range cs {
		ch := append([]string(nil), c.ChannelIDs...)
		sort.Strings(ch)
		b, _ := json.Marshal([]any{c.Name, c.Enabled, ch, c.EntryCount})
		out = append(out, string(b))
	}
	return out
}

// TestBackupPreviewRejectsNonBackup: a file that is not a backup is an
// INVALID_INPUT on field file, and nothing is stored.
func TestBackupPreviewRejectsNonBackup(t *testing.T) {
	a, _ := newJobsAPI(t, 64<<10)
	setupServer(t, a, serverA)
	for _, tc := range []struct {
		name string
		file []byte
	}{
		{"world info", corpus(t, "st-worldinfo/bronya-rand__Eorzea.json")},
		{"malformed", []byte(`{"format": "loregate-workspace-backup", `)},
		{"other format", []byte(`{"format": "something-else", "personas": []}`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := a.upload(serviceKey, qPreviewBackup, map[string]any{"serverDiscordId": serverA}, "x.json", bytes.Clone(tc.file))
			require.Empty(t, r.Errors)
			var pv struct {
				Preview *struct{ PreviewID string }
				Error   *mutationError
			}
			require.NoError(t, json.Unmarshal(r.Data["previewWorkspaceBackup"], &pv))
			require.Nil(t, pv.Preview)
			require.NotNil(t, pv.Error)
			require.Equal(t, "INVALID_INPUT", pv.Error.Code)
		})
	}
}

// TestBackupCommitUsesPreviewMapping: the commit applies the lineage
// mapping the preview was made with; a different one is refused.
func TestBackupCommitUsesPreviewMapping(t *testing.T) {
	ctx := context.Background()
	a, store := newJobsAPI(t, 64<<10)
	setupServer(t, a, serverA)
	setupServer(t, a, serverB)
	e := lore.NewEntry()
	e.Server, e.Lineage, e.Title, e.Content, e.Keys = serverA, 7, "sword", "a sword", []string{"sword"}
	_, err := store.InsertEntry(ctx, e)
	require.NoError(t, err)

	var ex struct {
		Job   *struct{ ID, State string }
		Error *mutationError
	}
	a.must(serviceKey, qExportBackup, map[string]any{"s": serverA}, "exportWorkspaceBackup", &ex)
	j := a.waitJob(serviceKey, ex.Job.ID)
	require.Equal(t, "COMPLETED", j.State, "%v", j.Error)
	req, err := http.NewRequest(http.MethodGet, a.srv.URL+j.Artifact.URL, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+serviceKey)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	file, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)

	mapping := []map[string]any{{"from": 7, "to": 20}}
	r := a.upload(serviceKey, qPreviewBackup, map[string]any{"serverDiscordId": serverB, "lineageMap": mapping}, "backup.json", file)
	require.Empty(t, r.Errors)
	var pv struct {
		Preview *struct{ PreviewID string }
		Error   *mutationError
	}
	require.NoError(t, json.Unmarshal(r.Data["previewWorkspaceBackup"], &pv))
	require.Nil(t, pv.Error)

	var im struct {
		Job   *struct{ ID string }
		Error *mutationError
	}
	a.must(serviceKey, qImportBackup, map[string]any{"input": map[string]any{"serverDiscordId": serverB, "previewId": pv.Preview.PreviewID,
		"lineageMap": []map[string]any{{"from": 7, "to": 21}}}}, "importWorkspaceBackup", &im)
	require.NotNil(t, im.Error)
	require.Equal(t, "INVALID_INPUT", im.Error.Code)
	require.Contains(t, im.Error.Message, "preview again")

	a.must(serviceKey, qImportBackup, map[string]any{"input": map[string]any{"serverDiscordId": serverB, "previewId": pv.Preview.PreviewID}}, "importWorkspaceBackup", &im)
	require.Nil(t, im.Error)
	j = a.waitJob(serviceKey, im.Job.ID)
	require.Equal(t, "COMPLETED", j.State, "%v", j.Error)
	counts, err := store.CountByScope(ctx, serverB)
	require.NoError(t, err)
	require.Equal(t, 1, counts[20], "the book went where the preview said")
	require.Zero(t, counts[7])
}
