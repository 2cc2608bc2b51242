package jobs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"loregate/discord"
	"loregate/jobs"
	"loregate/lore"
	"loregate/lore/postgres"
	"loregate/lore/postgres/postgrestest"
)

// fakeDiscord serves GET /api/v9/guilds/{g}/channels and
// /api/v9/guilds/{g}/threads/active from fixtures on loopback, checks the
// bot token, and answers the first requests with the queued faults.
type fakeDiscord struct {
	mu       sync.Mutex
	channels map[string][]map[string]any
	threads  map[string][]map[string]any
	faults   []int // status codes to answer before serving, in order
	requests []string
}

func (f *fakeDiscord) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, r.Method+" "+r.URL.Path)
	if r.Header.Get("Authorization") != "Bot test-token" {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if len(f.faults) > 0 {
		code := f.faults[0]
		f.faults = f.faults[1:]
		if code == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "0")
			w.Header().Set("X-RateLimit-Limit", "5")
			w.Header().Set("X-RateLimit-Remaining", "0")
			w.Header().Set("X-RateLimit-Reset-After", "0.05")
			w.WriteHeader(code)
			_, _ = w.Write([]byte(`{"message": "You are being rate limited.", "retry_after": 0.05, "global": false}`))
			return
		}
		w.WriteHeader(code)
		_, _ = w.Write([]byte(`{"message": "boom", "code": 0}`))
		return
	}
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/api/v9/guilds/"), "/")
	var body any
	switch {
	case len(parts) == 2 && parts[1] == "channels":
		body = nonNil(f.channels[parts[0]])
	case len(parts) == 3 && parts[1] == "threads" && parts[2] == "active":
		body = map[string]any{"threads": nonNil(f.threads[parts[0]]), "members": []any{}}
	default:
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"message": "Unknown Guild", "code": 10004}`))
		return
	}
	_ = json.NewEncoder(w).Encode(body)
}

func nonNil(s []map[string]any) []map[string]any {
	if s == nil {
		return []map[string]any{}
	}
	return s
}

func (f *fakeDiscord) count(path string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.requests {
		if strings.HasSuffix(r, path) {
			n++
		}
	}
	return n
}

func ch(id, name string, typ int) map[string]any {
	return map[string]any{"id": id, "name": name, "type": typ, "guild_id": serverA}
}

// Channel ids of the fixtures.
const (
	chGeneral = "500000000000000001"
	chRP      = "500000000000000002"
	chVoiceRP = "500000000000000003"
	chThread  = "500000000000000004"
	chCat     = "500000000000000005"
	chDup1    = "500000000000000006"
	chDup2    = "500000000000000007"
	chPreset  = "500000000000000008"
)

func newFakeDiscord(t *testing.T) (*fakeDiscord, jobs.ChannelLister) {
	t.Helper()
	f := &fakeDiscord{
		channels: map[string][]map[string]any{serverA: {
			ch(chGeneral, "general-chat", 0), ch(chRP, "roleplay", 0), ch(chVoiceRP, "roleplay", 2),
			ch(chCat, "lore", 4), ch(chDup1, "twin", 0), ch(chDup2, "twin", 5),
		}},
		threads: map[string][]map[string]any{serverA: {ch(chThread, "Lore Thread", 11)}},
	}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	d, err := discord.NewREST("test-token", discord.RESTOptions{APIBase: srv.URL})
	require.NoError(t, err)
	return f, d
}

// TestChannelNameKey: names match as Discord users write them.
func TestChannelNameKey(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"general-chat", "general-chat"},
		{"#general-chat", "general-chat"},
		{"  #General Chat ", "general-chat"},
		{"GENERAL_CHAT", "general-chat"},
		{"##Ünïcode--Room", "ünïcode-room"},
		{"Straße", "strasse"},
		{"#", ""},
	} {
		require.Equal(t, tc.want, jobs.ChannelNameKey(tc.in), "input %q", tc.in)
	}
}

// TestBackfill resolves pending legacy channel names against a fake Discord
// on loopback that first answers 429 and then 500: the job snoozes, retries
// and completes; known names become channel ids in the entries (text
// channels preferred over voice, threads matched, both same-named text
// channels taken), unknown names stay pending, Serverwide markers are left
// alone, and running it again changes nothing.
func TestBackfill(t *testing.T) {
	ctx := context.Background()
	pool := postgrestest.NewPool(t)
	store := postgres.New(pool)
	_, err := store.UpsertServer(ctx, serverA, "A")
	require.NoError(t, err)
	_, err = store.CreateCollection(ctx, lore.Collection{Server: serverA, Name: "General", Enabled: true})
	require.NoError(t, err)
	f, discord := newFakeDiscord(t)
	f.faults = []int{http.StatusTooManyRequests, http.StatusInternalServerError}

	add := func(lineage lore.Lineage, title string, channels, tags []string) int64 {
		e := lore.NewEntry()
		e.Server, e.Lineage, e.Title, e.Content, e.ChannelIDs, e.LegacyChannelTags = serverA, lineage, title, title+" content", channels, tags
		if lineage.IsServerwide() {
			e.Collection, e.ChannelIDs = "General", nil
		}
		out, err := store.InsertEntry(ctx, e)
		require.NoError(t, err)
		return out.ID
	}
	e1 := add(7, "a", []string{chPreset}, []string{"General Chat", "#RolePlay"})
	e2 := add(7, "b", nil, []string{"lore thread", "nowhere"})
	e3 := add(8, "c", nil, []string{"twin", "lore"}) // "lore" is only a category
	sw := add(lore.Serverwide, "d", nil, []string{"general-chat"})

	client := startClient(t, pool, jobs.Config{Deps: jobs.Deps{Discord: discord}, BackfillInterval: 24 * 3600e9})
	res, err := client.Insert(ctx, jobs.BackfillArgs{ServerID: serverA}, nil)
	require.NoError(t, err)
	row := waitFinal(t, client, res.Job.ID)
	require.Equal(t, rivertype.JobStateCompleted, row.State, "errors %v", row.Errors)
	require.Len(t, row.Errors, 1, "the 500 is one failed attempt; the 429 is a snooze, not an error")
	require.Contains(t, row.Errors[0].Error, "500")

	get := func(lineage lore.Lineage, id int64) lore.Entry {
		e, err := store.GetEntry(ctx, serverA, lineage, id)
		require.NoError(t, err)
		return e
	}
	a := get(7, e1)
	require.ElementsMatch(t, []string{chPreset, chGeneral, chRP}, a.ChannelIDs, "text channel preferred over the voice one")
	require.Empty(t, a.LegacyChannelTags)
	b := get(7, e2)
	require.Equal(t, []string{chThread}, b.ChannelIDs)
	require.Equal(t, []string{"nowhere"}, b.LegacyChannelTags, "unknown names stay pending (and keep admitting every channel)")
	c := get(8, e3)
	require.ElementsMatch(t, []string{chDup1, chDup2}, c.ChannelIDs)
	require.Equal(t, []string{"lore"}, c.LegacyChannelTags, "categories never match")
	require.Equal(t, []string{"general-chat"}, get(lore.Serverwide, sw).LegacyChannelTags)
	var out jobs.BackfillReport
	require.NoError(t, json.Unmarshal(row.Output(), &out))
	require.Equal(t, jobs.BackfillReport{Pending: 6, Resolved: 4, Unknown: 2, Ambiguous: 1}, out)

	// Idempotent: a second run resolves nothing and changes nothing.
	before := f.count("/channels")
	res, err = client.Insert(ctx, jobs.BackfillArgs{ServerID: serverA}, nil)
	require.NoError(t, err)
	row = waitFinal(t, client, res.Job.ID)
	require.Equal(t, rivertype.JobStateCompleted, row.State)
	require.NoError(t, json.Unmarshal(row.Output(), &out))
	require.Equal(t, jobs.BackfillReport{Pending: 2, Resolved: 0, Unknown: 2}, out)
	require.Equal(t, a.ChannelIDs, get(7, e1).ChannelIDs)
	require.Equal(t, before+1, f.count("/channels"))
}

// TestBackfillUniquePerServer: while a server's backfill is queued, another
// insert for the same server is skipped; another server gets its own.
func TestBackfillUniquePerServer(t *testing.T) {
	pool := postgrestest.NewPool(t)
	first := insert(t, pool, jobs.BackfillArgs{ServerID: serverA})
	require.False(t, first.UniqueSkippedAsDuplicate)
	second := insert(t, pool, jobs.BackfillArgs{ServerID: serverA})
	require.True(t, second.UniqueSkippedAsDuplicate)
	require.Equal(t, first.Job.ID, second.Job.ID)
	other := insert(t, pool, jobs.BackfillArgs{ServerID: serverB})
	require.False(t, other.UniqueSkippedAsDuplicate)
}

// TestBackfillOutcomes: Discord answers that cannot improve cancel the job
// (401 bad token, 403 no access, 404 unknown guild); a server with nothing
// pending completes without calling Discord.
func TestBackfillOutcomes(t *testing.T) {
	ctx := context.Background()
	pool := postgrestest.NewPool(t)
	store := postgres.New(pool)
	for _, s := range []string{serverA, serverB} {
		_, err := store.UpsertServer(ctx, s, "S")
		require.NoError(t, err)
	}
	f, discord := newFakeDiscord(t)
	client := startClient(t, pool, jobs.Config{Deps: jobs.Deps{Discord: discord}, BackfillInterval: 24 * 3600e9})
	// The schedule runs on start; once it has, no backfill of serverA but
	// the subtests' own runs while the faults are set (else a scheduled one
	// could take a fault, or be the job a subtest's insert joins).
	waitKindDone(t, client, jobs.BackfillScheduleArgs{}.Kind())

	res, err := client.Insert(ctx, jobs.BackfillArgs{ServerID: serverB}, nil)
	require.NoError(t, err)
	require.Equal(t, rivertype.JobStateCompleted, waitFinal(t, client, res.Job.ID).State)
	require.Zero(t, f.count("/channels"), "nothing pending: Discord is not called")

	e := lore.NewEntry()
	e.Server, e.Lineage, e.Title, e.Content, e.LegacyChannelTags = serverA, 7, "t", "c", []string{"roleplay"}
	_, err = store.InsertEntry(ctx, e)
	require.NoError(t, err)
	for _, code := range []int{http.StatusForbidden, http.StatusNotFound} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			f.mu.Lock()
			f.faults = []int{code}
			f.mu.Unlock()
			res, err := client.Insert(ctx, jobs.BackfillArgs{ServerID: serverA}, nil)
			require.NoError(t, err)
			row := waitFinal(t, client, res.Job.ID)
			require.Equal(t, rivertype.JobStateCancelled, row.State)
			require.Contains(t, row.Errors[len(row.Errors)-1].Error, fmt.Sprint(code))
		})
	}
}
