package postgres_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// TestExpectedUpdatedAtRace: two writers that read the same version and
// write at once, each expecting that version: exactly one wins, the other
// gets a *lore.StaleError, and the stored value is the winner's. The check
// runs under the server-row lock the write holds, so the loser cannot slip
// in between the winner's check and its write. Every kind of edit that
// takes an expectation is raced.
func TestExpectedUpdatedAtRace(t *testing.T) {
	t.Parallel()
	b := setup(t)
	col := b.collection(t, "Raced")
	e := b.insert(t, entry(b.server, lore.Serverwide, col.Name, "raced"))[0]
	_, err := b.store.UpdatePersonaBookSettings(b.ctx, b.server, 4, lore.BookSettingsPatch{ScanDepth: ptr(ptr(1))})
	require.NoError(t, err)

	// Each case reads the version, writes value v expecting it, and reads
	// back the stored value.
	cases := []raceCase{
		{
			name: "entry",
			read: func(t *testing.T) time.Time {
				got, err := b.store.GetEntry(b.ctx, b.server, lore.Serverwide, e.ID)
				require.NoError(t, err)
				return got.UpdatedAt
			},
			write: func(at time.Time, v int) error {
				_, err := b.store.UpdateEntry(b.ctx, b.server, lore.Serverwide, e.ID, lore.EntryPatch{Priority: ptr(v), ExpectedUpdatedAt: &at})
				return err
			},
			value: func(t *testing.T) int {
				got, err := b.store.GetEntry(b.ctx, b.server, lore.Serverwide, e.ID)
				require.NoError(t, err)
				return got.Priority
			},
		},
		{
			name: "collection settings",
			read: func(t *testing.T) time.Time {
				got, err := b.store.GetCollection(b.ctx, b.server, col.ID)
				require.NoError(t, err)
				return got.UpdatedAt
			},
			write: func(at time.Time, v int) error {
				_, err := b.store.UpdateCollectionSettings(b.ctx, b.server, col.ID, lore.BookSettingsPatch{ScanDepth: ptr(ptr(v)), ExpectedUpdatedAt: &at})
				return err
			},
			value: func(t *testing.T) int {
				got, err := b.store.GetCollection(b.ctx, b.server, col.ID)
				require.NoError(t, err)
				return *got.Settings.ScanDepth
			},
		},
		{
			name: "persona book settings",
			read: func(t *testing.T) time.Time {
				at, err := b.store.PersonaBookUpdatedAt(b.ctx, b.server, 4)
				require.NoError(t, err)
				require.False(t, at.IsZero())
				return at
			},
			write: func(at time.Time, v int) error {
				_, err := b.store.UpdatePersonaBookSettings(b.ctx, b.server, 4, lore.BookSettingsPatch{ScanDepth: ptr(ptr(v)), ExpectedUpdatedAt: &at})
				return err
			},
			value: func(t *testing.T) int {
				got, err := b.store.PersonaBookSettings(b.ctx, b.server, 4)
				require.NoError(t, err)
				return *got.ScanDepth
			},
		},
		{
			name: "server settings",
			read: func(t *testing.T) time.Time {
				sv, err := b.store.GetServer(b.ctx, b.server)
				require.NoError(t, err)
				return sv.SettingsUpdatedAt
			},
			write: func(at time.Time, v int) error {
				_, err := b.store.PatchServerSettings(b.ctx, b.server, lore.SettingsPatch{BudgetLimit: ptr(1000 + v), ExpectedUpdatedAt: &at})
				return err
			},
			value: func(t *testing.T) int {
				sv, err := b.store.GetServer(b.ctx, b.server)
				require.NoError(t, err)
				return sv.Settings.BudgetLimit - 1000
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for round := range 5 {
				raceRound(t, tc, round)
			}
			require.NoError(t, tc.write(tc.read(t), 7))
			require.Equal(t, 7, tc.value(t))
		})
	}
}

// raceCase is one kind of edit raced by TestExpectedUpdatedAtRace: read
// the version, write value v expecting it, read back the stored value.
type raceCase struct {
	name  string
	read  func(t *testing.T) time.Time
	write func(at time.Time, v int) error
	value func(t *testing.T) int
}

// raceRound races two writers of tc expecting the same version: exactly
// one wins with its value, the other gets a *lore.StaleError, and the old
// version is stale afterwards.
func raceRound(t *testing.T, tc raceCase, round int) {
	at := tc.read(t)
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, 2)
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[w] = tc.write(at, 10*round+w+1)
		}()
	}
	close(start)
	wg.Wait()
	won := -1
	for w, err := range errs {
		if err == nil {
			require.Equal(t, -1, won, "round %d: both writers won", round)
			won = w
			continue
		}
		require.ErrorIs(t, err, lore.ErrStaleTarget, "round %d", round)
		var stale *lore.StaleError
		require.True(t, errors.As(err, &stale))
		require.True(t, stale.Expected.Equal(at))
		require.True(t, stale.Current.After(at), "the stored version moved forward")
	}
	require.NotEqual(t, -1, won, "round %d: one writer wins", round)
	require.Equal(t, 10*round+won+1, tc.value(t), "the winner's value is stored")
	after := tc.read(t)
	require.True(t, after.After(at))
	// The old version is stale now; the new one is accepted.
	require.ErrorIs(t, tc.write(at, 99), lore.ErrStaleTarget)
	require.Equal(t, 10*round+won+1, tc.value(t), "a stale write changes nothing")
}

// TestExpectedUpdatedAtOmitted: without an expectation the write behaves
// as before (last writer wins); a persona book without stored settings
// has no version, so an expectation never matches it.
func TestExpectedUpdatedAtOmitted(t *testing.T) {
	t.Parallel()
	b := setup(t)
	e := b.insert(t, entry(b.server, 3, "", "free"))[0]
	for _, p := range []int{5, 6} {
		got, err := b.store.UpdateEntry(b.ctx, b.server, 3, e.ID, lore.EntryPatch{Priority: ptr(p)})
		require.NoError(t, err)
		require.Equal(t, p, got.Priority)
		require.True(t, got.UpdatedAt.After(e.UpdatedAt), "updatedAt moves forward on every update")
		e = got
	}
	at, err := b.store.PersonaBookUpdatedAt(b.ctx, b.server, 8)
	require.NoError(t, err)
	require.True(t, at.IsZero())
	now := time.Now()
	_, err = b.store.UpdatePersonaBookSettings(b.ctx, b.server, 8, lore.BookSettingsPatch{Recursive: ptr(ptr(true)), ExpectedUpdatedAt: &now})
	require.ErrorIs(t, err, lore.ErrStaleTarget)
	got, err := b.store.PersonaBookSettings(b.ctx, b.server, 8)
	require.NoError(t, err)
	require.True(t, got.IsZero(), "nothing was written")
}
