package postgres_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

func ptr[T any](v T) *T { return &v }

func TestInsertRoundTripsEveryField(t *testing.T) {
	t.Parallel()
	b := setup(t)
	in := lore.Entry{
		Server: b.server, Lineage: 9,
		Title: "Dragon", Content: "Dragons 🐉 hoard {{user}}'s gold.",
		Keys: []string{"dragon", "/wyrm(s)?/i"}, SecondaryKeys: []string{"gold"},
		Logic: lore.NotAll, Constant: true, Enabled: false,
		ScanDepth: ptr(7), Probability: 0, Order: -5, Priority: 250,
		Placement: lore.Before, Role: lore.RoleAssistant,
		Position: lore.PositionEMTop, Depth: 12, Outlet: "side",
		Match:           lore.MatchSources{CharacterDescription: true, CharacterDepthPrompt: true},
		CharacterFilter: lore.CharacterFilter{Names: []string{"Ann"}, Tags: []string{"noir"}},
		GenerationTypes: []lore.GenerationType{lore.GenQuiet},
		CaseSensitive:   ptr(true), WholeWords: ptr(false),
		Group: "weather,mood", GroupOverride: true, GroupWeight: 7, UseGroupScoring: ptr(false),
		ExcludeRecursion: true, PreventRecursion: true, DelayUntilRecursion: 2, Sticky: 3, Cooldown: 4, Delay: 5,
		Vectorized:        true,
		ChannelIDs:        []string{"323456789012345678", "223456789012345678"},
		LegacyChannelTags: []string{"tavern", "lore"},
		Extensions: map[string]json.RawMessage{
			"st.depth": json.RawMessage(`4`), "st.group": json.RawMessage(`{"name":"g","weight":2}`),
		},
	}
	got := b.insert(t, in)[0]
	require.Positive(t, got.ID)
	require.False(t, got.CreatedAt.IsZero())

	read, err := b.store.GetEntry(b.ctx, b.server, 9, got.ID)
	require.NoError(t, err)
	want := in.Clone()
	want.ID, want.CreatedAt, want.UpdatedAt = got.ID, read.CreatedAt, read.UpdatedAt
	want.LegacyChannelTags = []string{"lore", "tavern"} // stored as a set, read by name
	require.Equal(t, want, read)
	require.Equal(t, read, got, "InsertEntry returns what a read returns")

	// Extensions are jsonb: values come back semantically equal, compact,
	// with object keys in jsonb's order (documented on Store).
	in.Extensions = map[string]json.RawMessage{"st.obj": json.RawMessage(`{ "zeta": 1, "a": [1, 2.50] }`)}
	got = b.insert(t, in)[0]
	read, err = b.store.GetEntry(b.ctx, b.server, 9, got.ID)
	require.NoError(t, err)
	require.JSONEq(t, `{"zeta":1,"a":[1,2.50]}`, string(read.Extensions["st.obj"]))
	require.Equal(t, `{"a":[1,2.50],"zeta":1}`, string(read.Extensions["st.obj"]))
}

func TestInsertDefaultsAndValidation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.collection(t, "General")

	e := entry(b.server, lore.Serverwide, "General", "defaults")
	e.Logic, e.Role = "", ""
	got := b.insert(t, e)[0]
	require.Equal(t, lore.AndAny, got.Logic)
	require.Equal(t, lore.RoleSystem, got.Role)
	require.Nil(t, got.ScanDepth)
	require.Nil(t, got.CaseSensitive)

	tests := []struct {
		name  string
		mod   func(e *lore.Entry)
		field string
	}{
		{"content too long", func(e *lore.Entry) { e.Content = string(make([]rune, 4001)) }, "content"},
		{"content too long in UTF-16", func(e *lore.Entry) {
			e.Content = ""
			for range 2001 {
				e.Content += "🐉" // two UTF-16 code units each
			}
		}, "content"},
		{"blank content", func(e *lore.Entry) { e.Content = "  " }, "content"},
		{"probability", func(e *lore.Entry) { e.Probability = 101 }, "probability"},
		{"scan depth", func(e *lore.Entry) { e.ScanDepth = ptr(-1) }, "scanDepth"},
		{"group weight", func(e *lore.Entry) { e.GroupWeight = -1 }, "groupWeight"},
		{"sticky", func(e *lore.Entry) { e.Sticky = lore.MaxTimedEffect + 1 }, "sticky"},
		{"delay until recursion", func(e *lore.Entry) { e.DelayUntilRecursion = -2 }, "delayUntilRecursion"},
		{"serverwide with channels", func(e *lore.Entry) { e.ChannelIDs = []string{"223456789012345678"} }, "channelIds"},
		{"persona with collection", func(e *lore.Entry) { e.Lineage = 4 }, "collection"},
		{"bad server", func(e *lore.Entry) { e.Server = "abc" }, "server"},
		{"NUL byte", func(e *lore.Entry) { e.Content = "a\x00b" }, "content"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := entry(b.server, lore.Serverwide, "General", "x")
			tt.mod(&e)
			_, err := b.store.InsertEntry(b.ctx, e)
			requireInvalidField(t, err, tt.field)
		})
	}

	_, err := b.store.InsertEntry(b.ctx, entry(b.server, lore.Serverwide, "Missing", "x"))
	require.ErrorIs(t, err, lore.ErrNotFound)
	_, err = b.store.InsertEntry(b.ctx, entry(snowflake(t), 3, "", "x"))
	require.ErrorIs(t, err, lore.ErrNotFound)
	require.Equal(t, 1, b.scopeCount(t, lore.Serverwide))
}

// TestConcurrentInsertsStopAtLimit races many inserts into a nearly full
// scope: the server lock must let exactly the free capacity through.
func TestConcurrentInsertsStopAtLimit(t *testing.T) {
	t.Parallel()
	for _, lineage := range []lore.Lineage{lore.Serverwide, 8} {
		t.Run(fmt.Sprintf("lineage %d", lineage), func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			collection := ""
			if lineage.IsServerwide() {
				collection = "General"
				b.collection(t, collection)
				b.collection(t, "Other")
				// The Serverwide scope spans collections.
				_, _, err := b.store.CreateCollectionWithEntries(b.ctx,
					lore.Collection{Server: b.server, Name: "Third", Enabled: true},
					entries(b.server, lore.Serverwide, "", "third", 100))
				require.NoError(t, err)
				_, err = b.store.ReplacePersonaBook(b.ctx, b.server, 8, entries(b.server, 8, "", "p", 5))
				require.NoError(t, err)
				_, err = b.store.ImportEntries(b.ctx, lore.ImportTarget{Server: b.server, CollectionID: mustCollection(t, b, "Other").ID, Collection: "Other"},
					lore.Append, entries(b.server, lore.Serverwide, "", "other", 140))
				require.NoError(t, err)
			} else {
				_, err := b.store.ReplacePersonaBook(b.ctx, b.server, lineage, entries(b.server, lineage, "", "p", 240))
				require.NoError(t, err)
			}
			require.Equal(t, 240, b.scopeCount(t, lineage))

			const writers = 40
			var (
				wg              sync.WaitGroup
				mu              sync.Mutex
				ok, full, other int
			)
			for i := range writers {
				wg.Go(func() {
					_, err := b.store.InsertEntry(b.ctx, entry(b.server, lineage, collection, fmt.Sprintf("race-%d", i)))
					mu.Lock()
					defer mu.Unlock()
					switch {
					case err == nil:
						ok++
					case errors.Is(err, lore.ErrScopeFull):
						full++
					default:
						other++
						t.Errorf("unexpected error: %v", err)
					}
				})
			}
			wg.Wait()
			require.Equal(t, 10, ok)
			require.Equal(t, writers-10, full)
			require.Zero(t, other)
			require.Equal(t, lore.MaxEntriesPerScope, b.scopeCount(t, lineage))

			_, err := b.store.InsertEntry(b.ctx, entry(b.server, lineage, collection, "one more"))
			var sf *lore.ScopeFullError
			require.ErrorAs(t, err, &sf)
			require.Equal(t, lore.ScopeFullError{Server: b.server, Lineage: lineage, Limit: 250, Existing: 250, Adding: 1}, *sf)
		})
	}
}

func mustCollection(t testing.TB, b *testBundle, name string) lore.Collection {
	t.Helper()
	c, err := b.store.GetCollectionByName(b.ctx, b.server, name)
	require.NoError(t, err)
	return c
}

// TestUpdateEntryKeepsUntouchedFields checks the edit rules: nil patch
// fields keep stored values, and the scope cannot change.
func TestUpdateEntryKeepsUntouchedFields(t *testing.T) {
	t.Parallel()
	b := setup(t)
	in := entry(b.server, 6, "", "original")
	in.ScanDepth, in.Probability, in.Order, in.Placement = ptr(12), 0, 3, lore.Before
	in.SecondaryKeys, in.Logic = []string{"moon"}, lore.AndAll
	in.ChannelIDs = []string{"223456789012345678"}
	in.CaseSensitive = ptr(true)
	in.Extensions = map[string]json.RawMessage{"x": json.RawMessage(`"kept"`)}
	stored := b.insert(t, in)[0]

	got, err := b.store.UpdateEntry(b.ctx, b.server, 6, stored.ID, lore.EntryPatch{
		Content: ptr("edited"), Keys: ptr([]string{"new key"}),
	})
	require.NoError(t, err)
	want := stored.Clone()
	want.Content, want.Keys, want.UpdatedAt = "edited", []string{"new key"}, got.UpdatedAt
	require.Equal(t, want, got)
	read, err := b.store.GetEntry(b.ctx, b.server, 6, stored.ID)
	require.NoError(t, err)
	require.Equal(t, got, read)

	got, err = b.store.UpdateEntry(b.ctx, b.server, 6, stored.ID, lore.EntryPatch{
		ScanDepth: ptr[*int](nil), CaseSensitive: ptr[*bool](nil), Probability: ptr(55),
	})
	require.NoError(t, err)
	require.Nil(t, got.ScanDepth, "a pointer to nil clears the override")
	require.Nil(t, got.CaseSensitive)
	require.Equal(t, 55, got.Probability)
	require.Equal(t, 3, got.Order)

	_, err = b.store.UpdateEntry(b.ctx, b.server, 6, stored.ID, lore.EntryPatch{Probability: ptr(-1)})
	requireInvalidField(t, err, "probability")
	read, err = b.store.GetEntry(b.ctx, b.server, 6, stored.ID)
	require.NoError(t, err)
	require.Equal(t, 55, read.Probability, "an invalid edit changes nothing")

	b.collection(t, "General")
	sw := b.insert(t, entry(b.server, lore.Serverwide, "General", "sw"))[0]
	_, err = b.store.UpdateEntry(b.ctx, b.server, lore.Serverwide, sw.ID, lore.EntryPatch{ChannelIDs: ptr([]string{"223456789012345678"})})
	requireInvalidField(t, err, "channelIds")
}

// TestUpdateEntryLegacyChannelTags checks the preservation rule: pending
// legacy names survive an edit whose channel set equals the stored one and
// are cleared when the selection changes.
func TestUpdateEntryLegacyChannelTags(t *testing.T) {
	t.Parallel()
	const (
		chA = "223456789012345678"
		chB = "323456789012345678"
		chC = "423456789012345678"
	)
	tests := []struct {
		name     string
		patch    lore.EntryPatch
		channels []string
		tags     []string
	}{
		{"content edit without channels", lore.EntryPatch{Content: ptr("new")}, []string{chA, chB}, []string{"rp"}},
		{"same channels, other order", lore.EntryPatch{Content: ptr("new"), ChannelIDs: ptr([]string{chB, chA})}, []string{chB, chA}, []string{"rp"}},
		{"activation edit with same channels", lore.EntryPatch{Probability: ptr(10), ChannelIDs: ptr([]string{chA, chB})}, []string{chA, chB}, []string{"rp"}},
		{"channel added", lore.EntryPatch{ChannelIDs: ptr([]string{chA, chB, chC})}, []string{chA, chB, chC}, nil},
		{"channel removed", lore.EntryPatch{ChannelIDs: ptr([]string{chA})}, []string{chA}, nil},
		{"channels cleared", lore.EntryPatch{ChannelIDs: ptr([]string{})}, nil, nil},
	}
	b := setup(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := entry(b.server, 2, "", tt.name)
			in.ChannelIDs = []string{chA, chB}
			in.LegacyChannelTags = []string{"rp"}
			stored := b.insert(t, in)[0]

			got, err := b.store.UpdateEntry(b.ctx, b.server, 2, stored.ID, tt.patch)
			require.NoError(t, err)
			require.Equal(t, tt.channels, got.ChannelIDs)
			require.Equal(t, tt.tags, got.LegacyChannelTags)
			read, err := b.store.GetEntry(b.ctx, b.server, 2, stored.ID)
			require.NoError(t, err)
			require.Equal(t, tt.channels, read.ChannelIDs)
			require.Equal(t, tt.tags, read.LegacyChannelTags)
		})
	}
}

// TestForeignIDsAreMissing addresses entries and collections through the
// wrong server or scope: every operation reports ErrNotFound and changes
// nothing.
func TestForeignIDsAreMissing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	other := snowflake(t)
	_, err := b.store.UpsertServer(b.ctx, other, "Other")
	require.NoError(t, err)
	b.collection(t, "General")
	otherBook, err := b.store.CreateCollection(b.ctx, lore.Collection{Server: other, Name: "Theirs", Enabled: true})
	require.NoError(t, err)

	sw := b.insert(t, entry(b.server, lore.Serverwide, "General", "serverwide"))[0]
	pe := b.insert(t, entry(b.server, 3, "", "persona"))[0]
	theirs, err := b.store.InsertEntry(b.ctx, entry(other, 3, "", "theirs"))
	require.NoError(t, err)

	addresses := []struct {
		name    string
		server  string
		lineage lore.Lineage
		id      int64
	}{
		{"persona entry via Serverwide", b.server, lore.Serverwide, pe.ID},
		{"persona entry via another lineage", b.server, 4, pe.ID},
		{"Serverwide entry via a lineage", b.server, 3, sw.ID},
		{"another server's entry", b.server, 3, theirs.ID},
		{"own entry via another server", other, 3, pe.ID},
		{"unknown id", b.server, 3, 1 << 40},
	}
	for _, a := range addresses {
		t.Run(a.name, func(t *testing.T) {
			_, err := b.store.GetEntry(b.ctx, a.server, a.lineage, a.id)
			require.ErrorIs(t, err, lore.ErrNotFound)
			_, err = b.store.UpdateEntry(b.ctx, a.server, a.lineage, a.id, lore.EntryPatch{Content: ptr("hijacked")})
			require.ErrorIs(t, err, lore.ErrNotFound)
			_, err = b.store.SetEntryEnabled(b.ctx, a.server, a.lineage, a.id, false)
			require.ErrorIs(t, err, lore.ErrNotFound)
			require.ErrorIs(t, b.store.DeleteEntry(b.ctx, a.server, a.lineage, a.id), lore.ErrNotFound)
		})
	}
	for _, e := range []lore.Entry{sw, pe, theirs} {
		got, err := b.store.GetEntry(b.ctx, e.Server, e.Lineage, e.ID)
		require.NoError(t, err)
		require.Equal(t, e.Content, got.Content)
		require.True(t, got.Enabled)
	}

	t.Run("another server's collection", func(t *testing.T) {
		_, err := b.store.GetCollection(b.ctx, b.server, otherBook.ID)
		require.ErrorIs(t, err, lore.ErrNotFound)
		_, err = b.store.RenameCollection(b.ctx, b.server, otherBook.ID, "Mine")
		require.ErrorIs(t, err, lore.ErrNotFound)
		_, err = b.store.SetCollectionEnabled(b.ctx, b.server, otherBook.ID, false)
		require.ErrorIs(t, err, lore.ErrNotFound)
		require.ErrorIs(t, b.store.DeleteCollection(b.ctx, b.server, otherBook.ID), lore.ErrNotFound)
		_, err = b.store.ImportEntries(b.ctx, lore.ImportTarget{Server: b.server, CollectionID: otherBook.ID, Collection: "Theirs"},
			lore.Append, entries(b.server, lore.Serverwide, "", "x", 1))
		require.ErrorIs(t, err, lore.ErrStaleTarget)
		got, err := b.store.GetCollection(b.ctx, other, otherBook.ID)
		require.NoError(t, err)
		require.Equal(t, "Theirs", got.Name)
		require.True(t, got.Enabled)
	})
}
