package postgres_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// failOnContent installs a trigger that makes the database refuse an entry
// whose content is content, so a test can fail a batch after its deletes ran
// inside the transaction.
func failOnContent(t testing.TB, b *testBundle, content string) {
	t.Helper()
	_, err := b.pool.Exec(b.ctx, fmt.Sprintf(`
CREATE FUNCTION test_fail_entry() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.content = %s THEN RAISE EXCEPTION 'injected failure'; END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER test_fail_entry BEFORE INSERT ON lorebook_entries
    FOR EACH ROW EXECUTE FUNCTION test_fail_entry();`, quoteLiteral(content)))
	require.NoError(t, err)
}

func quoteLiteral(s string) string { return "'" + s + "'" }

func TestReplacePersonaBook(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const lineage lore.Lineage = 4
	b.insert(t, entries(b.server, lineage, "", "hand", 3)...)
	b.insert(t, entries(b.server, 5, "", "neighbour", 2)...)

	batch := entries(b.server, lineage, "", "card", 5)
	batch[0].Collection = "ignored for persona writes"
	res, err := b.store.ReplacePersonaBook(b.ctx, b.server, lineage, batch)
	require.NoError(t, err)
	require.Equal(t, lore.ImportResult{Added: 5, Replaced: 3}, res)
	list, err := b.store.ListScope(b.ctx, b.server, lineage, "")
	require.NoError(t, err)
	require.Equal(t, contents(batch), contents(list), "hand-authored entries are replaced too")
	require.Empty(t, list[0].Collection)

	previous := contents(list)
	keeps := func(t *testing.T) {
		t.Helper()
		got, err := b.store.ListScope(b.ctx, b.server, lineage, "")
		require.NoError(t, err)
		require.Equal(t, previous, contents(got), "a failed replacement keeps the previous book")
		require.Equal(t, 2, b.scopeCount(t, 5), "other lineages are untouched")
	}

	t.Run("invalid entry refuses the whole batch", func(t *testing.T) {
		bad := entries(b.server, lineage, "", "new", 10)
		bad[7].Content = ""
		_, err := b.store.ReplacePersonaBook(b.ctx, b.server, lineage, bad)
		requireInvalidField(t, err, "entries[7].content")
		keeps(t)
	})
	t.Run("oversized batch", func(t *testing.T) {
		_, err := b.store.ReplacePersonaBook(b.ctx, b.server, lineage, entries(b.server, lineage, "", "big", 251))
		var sf *lore.ScopeFullError
		require.ErrorAs(t, err, &sf)
		require.Equal(t, 251, sf.Adding)
		keeps(t)
	})
	t.Run("database failure after the delete", func(t *testing.T) {
		failOnContent(t, b, "doomed-3")
		_, err := b.store.ReplacePersonaBook(b.ctx, b.server, lineage, entries(b.server, lineage, "", "doomed", 6))
		require.ErrorIs(t, err, lore.ErrUnavailable)
		keeps(t)
		_, err = b.pool.Exec(b.ctx, `DROP TRIGGER test_fail_entry ON lorebook_entries`)
		require.NoError(t, err)
	})
	t.Run("exactly the limit", func(t *testing.T) {
		res, err := b.store.ReplacePersonaBook(b.ctx, b.server, lineage, entries(b.server, lineage, "", "full", 250))
		require.NoError(t, err)
		require.Equal(t, 250, res.Added)
		require.Equal(t, 250, b.scopeCount(t, lineage))
	})
	t.Run("empty batch clears the lineage", func(t *testing.T) {
		res, err := b.store.ReplacePersonaBook(b.ctx, b.server, lineage, []lore.Entry{})
		require.NoError(t, err)
		require.Equal(t, lore.ImportResult{Replaced: 250}, res)
		require.Zero(t, b.scopeCount(t, lineage))
	})
	t.Run("Serverwide is not a persona book", func(t *testing.T) {
		_, err := b.store.ReplacePersonaBook(b.ctx, b.server, lore.Serverwide, nil)
		requireInvalidField(t, err, "lineage")
	})
}

// TestDuplicateIdentity pins what Append treats as "already present": title,
// content, primary and secondary keys (lore.DuplicateKey); not activation
// settings, flags, channels, extensions or collection settings.
func TestDuplicateIdentity(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const lineage lore.Lineage = 3
	base := entry(b.server, lineage, "", "base")
	base.SecondaryKeys = []string{"moon"}
	b.insert(t, base)

	tests := []struct {
		name string
		mod  func(e *lore.Entry)
		dup  bool
	}{
		{"identical", func(e *lore.Entry) {}, true},
		{"other activation settings", func(e *lore.Entry) {
			e.Probability, e.Order, e.Constant, e.Enabled, e.ScanDepth = 5, 99, true, false, ptr(3)
			e.Placement, e.Logic = lore.Before, lore.NotAny
		}, true},
		{"other channels and tags", func(e *lore.Entry) {
			e.ChannelIDs, e.LegacyChannelTags = []string{"223456789012345678"}, []string{"x"}
		}, true},
		{"other title", func(e *lore.Entry) { e.Title = "renamed" }, false},
		{"other content", func(e *lore.Entry) { e.Content += "!" }, false},
		{"other keys", func(e *lore.Entry) { e.Keys = []string{"other"} }, false},
		{"keys reordered", func(e *lore.Entry) { e.Keys = append([]string{"k2"}, e.Keys...) }, false},
		{"other secondary keys", func(e *lore.Entry) { e.SecondaryKeys = nil }, false},
		{"content differs in case", func(e *lore.Entry) { e.Content = "BASE" }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := base.Clone()
			tt.mod(&e)
			require.Equal(t, tt.dup, lore.DuplicateKey(e) == lore.DuplicateKey(base))
			before := b.scopeCount(t, lineage)
			res, err := b.store.ImportEntries(b.ctx, lore.ImportTarget{Server: b.server, Lineage: lineage}, lore.Append, []lore.Entry{e})
			require.NoError(t, err)
			if tt.dup {
				require.Equal(t, lore.ImportResult{Duplicates: 1}, res)
				require.Equal(t, before, b.scopeCount(t, lineage))
			} else {
				require.Equal(t, lore.ImportResult{Added: 1}, res)
				// Remove it again so later cases compare against base only.
				list, err := b.store.ListScope(b.ctx, b.server, lineage, "")
				require.NoError(t, err)
				require.NoError(t, b.store.DeleteEntry(b.ctx, b.server, lineage, list[len(list)-1].ID))
			}
		})
	}

	t.Run("duplicates inside one batch", func(t *testing.T) {
		batch := entries(b.server, lineage, "", "fresh", 3)
		batch = append(batch, batch[1], base)
		res, err := b.store.ImportEntries(b.ctx, lore.ImportTarget{Server: b.server, Lineage: lineage}, lore.Append, batch)
		require.NoError(t, err)
		require.Equal(t, lore.ImportResult{Added: 3, Duplicates: 2}, res)
	})
	t.Run("identity is per book", func(t *testing.T) {
		b.collection(t, "A")
		b.collection(t, "B")
		a := mustCollection(t, b, "A")
		bb := mustCollection(t, b, "B")
		sw := entry(b.server, lore.Serverwide, "", "shared")
		res, err := b.store.ImportEntries(b.ctx, lore.ImportTarget{Server: b.server, CollectionID: a.ID, Collection: "A"}, lore.Append, []lore.Entry{sw})
		require.NoError(t, err)
		require.Equal(t, 1, res.Added)
		res, err = b.store.ImportEntries(b.ctx, lore.ImportTarget{Server: b.server, CollectionID: bb.ID, Collection: "B"}, lore.Append, []lore.Entry{sw})
		require.NoError(t, err)
		require.Equal(t, 1, res.Added, "the same entry in another collection is not a duplicate")
		res, err = b.store.ImportEntries(b.ctx, lore.ImportTarget{Server: b.server, CollectionID: bb.ID, Collection: "B"}, lore.Append, []lore.Entry{sw})
		require.NoError(t, err)
		require.Equal(t, lore.ImportResult{Duplicates: 1, Collection: res.Collection}, res)
		require.Equal(t, 1, res.Collection.EntryCount)
	})
}

func TestImportEntriesServerwide(t *testing.T) {
	t.Parallel()
	b := setup(t)
	target := b.collection(t, "Target")
	b.collection(t, "Neighbour")
	b.insert(t, entries(b.server, lore.Serverwide, "Neighbour", "n", 100)...)
	b.insert(t, entries(b.server, lore.Serverwide, "Target", "old", 20)...)
	_, err := b.store.SetCollectionEnabled(b.ctx, b.server, target.ID, false)
	require.NoError(t, err)
	to := lore.ImportTarget{Server: b.server, CollectionID: target.ID, Collection: "Target"}

	t.Run("append refused whole past the shared limit", func(t *testing.T) {
		_, err := b.store.ImportEntries(b.ctx, to, lore.Append, entries(b.server, lore.Serverwide, "", "new", 131))
		var sf *lore.ScopeFullError
		require.ErrorAs(t, err, &sf)
		require.Equal(t, lore.ScopeFullError{Server: b.server, Lineage: lore.Serverwide, Limit: 250, Existing: 120, Adding: 131}, *sf)
		require.Equal(t, 120, b.scopeCount(t, lore.Serverwide))
	})
	t.Run("replace counts the other collections and keeps them", func(t *testing.T) {
		_, err := b.store.ImportEntries(b.ctx, to, lore.Replace, entries(b.server, lore.Serverwide, "", "new", 151))
		require.ErrorIs(t, err, lore.ErrScopeFull)
		res, err := b.store.ImportEntries(b.ctx, to, lore.Replace, entries(b.server, lore.Serverwide, "Elsewhere", "new", 150))
		require.NoError(t, err)
		require.Equal(t, 150, res.Added)
		require.Equal(t, 20, res.Replaced)
		require.Equal(t, 150, res.Collection.EntryCount)
		require.False(t, res.Collection.Enabled, "the book's settings are kept")
		list, err := b.store.ListScope(b.ctx, b.server, lore.Serverwide, "Neighbour")
		require.NoError(t, err)
		require.Len(t, list, 100)
		list, err = b.store.ListScope(b.ctx, b.server, lore.Serverwide, "Target")
		require.NoError(t, err)
		require.Equal(t, "new-0", list[0].Content)
		require.Equal(t, "Target", list[0].Collection, "entries land in the target whatever they carried")
	})
}

// TestImportStaleTarget prepares imports against a collection, then renames
// or removes it: the import must be refused under the lock, never recreate
// the book.
func TestImportStaleTarget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(b *testBundle, c lore.Collection) error
	}{
		{"renamed", func(b *testBundle, c lore.Collection) error {
			_, err := b.store.RenameCollection(b.ctx, b.server, c.ID, "Renamed")
			return err
		}},
		{"removed", func(b *testBundle, c lore.Collection) error {
			return b.store.DeleteCollection(b.ctx, b.server, c.ID)
		}},
		{"removed and recreated with the same name", func(b *testBundle, c lore.Collection) error {
			if err := b.store.DeleteCollection(b.ctx, b.server, c.ID); err != nil {
				return err
			}
			_, err := b.store.CreateCollection(b.ctx, lore.Collection{Server: b.server, Name: c.Name, Enabled: true})
			return err
		}},
	}
	for _, tt := range tests {
		for _, mode := range []lore.ImportMode{lore.Append, lore.Replace} {
			t.Run(fmt.Sprintf("%s/mode %d", tt.name, mode), func(t *testing.T) {
				t.Parallel()
				b := setup(t)
				c := b.collection(t, "Book")
				b.insert(t, entry(b.server, lore.Serverwide, "Book", "kept"))
				prepared := lore.ImportTarget{Server: b.server, CollectionID: c.ID, Collection: c.Name}
				require.NoError(t, tt.change(b, c))
				before, err := b.store.ListCollections(b.ctx, b.server)
				require.NoError(t, err)
				v := b.loreVersion(t)

				_, err = b.store.ImportEntries(b.ctx, prepared, mode, entries(b.server, lore.Serverwide, "", "late", 3))
				require.ErrorIs(t, err, lore.ErrStaleTarget)

				after, err := b.store.ListCollections(b.ctx, b.server)
				require.NoError(t, err)
				require.Equal(t, before, after, "no collection is recreated or changed")
				require.Equal(t, v, b.loreVersion(t))
			})
		}
	}
}

func TestCreateCollectionWithEntries(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.collection(t, "Existing")
	b.insert(t, entries(b.server, lore.Serverwide, "Existing", "e", 200)...)

	batch := entries(b.server, lore.Serverwide, "ignored", "imp", 40)
	batch = append(batch, batch[0])
	c, res, err := b.store.CreateCollectionWithEntries(b.ctx, lore.Collection{Server: b.server, Name: "Imported", Enabled: true}, batch)
	require.NoError(t, err)
	require.Equal(t, "Imported", c.Name)
	require.Equal(t, 40, c.EntryCount)
	require.Equal(t, 40, res.Added)
	require.Equal(t, 1, res.Duplicates)
	list, err := b.store.ListScope(b.ctx, b.server, lore.Serverwide, "Imported")
	require.NoError(t, err)
	require.Len(t, list, 40)

	noBook := func(t *testing.T, name string) {
		t.Helper()
		_, err := b.store.GetCollectionByName(b.ctx, b.server, name)
		require.ErrorIs(t, err, lore.ErrNotFound, "a failed import leaves no empty book")
		require.Equal(t, 240, b.scopeCount(t, lore.Serverwide))
	}
	t.Run("oversized", func(t *testing.T) {
		_, _, err := b.store.CreateCollectionWithEntries(b.ctx, lore.Collection{Server: b.server, Name: "Big", Enabled: true},
			entries(b.server, lore.Serverwide, "", "big", 11))
		require.ErrorIs(t, err, lore.ErrScopeFull)
		noBook(t, "Big")
	})
	t.Run("invalid entry", func(t *testing.T) {
		bad := entries(b.server, lore.Serverwide, "", "bad", 2)
		bad[1].Probability = 200
		_, _, err := b.store.CreateCollectionWithEntries(b.ctx, lore.Collection{Server: b.server, Name: "Bad", Enabled: true}, bad)
		requireInvalidField(t, err, "entries[1].probability")
		noBook(t, "Bad")
	})
	t.Run("duplicate name", func(t *testing.T) {
		_, _, err := b.store.CreateCollectionWithEntries(b.ctx, lore.Collection{Server: b.server, Name: "Existing", Enabled: true},
			entries(b.server, lore.Serverwide, "", "dup", 2))
		require.ErrorIs(t, err, lore.ErrDuplicateName)
		require.Equal(t, 240, b.scopeCount(t, lore.Serverwide))
	})
	t.Run("database failure mid-batch", func(t *testing.T) {
		failOnContent(t, b, "boom-1")
		_, _, err := b.store.CreateCollectionWithEntries(b.ctx, lore.Collection{Server: b.server, Name: "Boom", Enabled: true},
			entries(b.server, lore.Serverwide, "", "boom", 3))
		require.Error(t, err)
		noBook(t, "Boom")
	})
}

// TestConcurrentAppendAndReplace races appends and replacements into one
// scope; whatever interleaving the lock produces, the scope never exceeds
// the limit and every refusal is ErrScopeFull.
func TestConcurrentAppendAndReplace(t *testing.T) {
	t.Parallel()
	t.Run("Serverwide", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		a := b.collection(t, "A")
		bk := b.collection(t, "B")
		b.insert(t, entries(b.server, lore.Serverwide, "A", "seed", 100)...)
		var wg sync.WaitGroup
		errs := make(chan error, 24)
		for i := range 24 {
			wg.Go(func() {
				var err error
				switch i % 3 {
				case 0:
					_, err = b.store.ImportEntries(b.ctx, lore.ImportTarget{Server: b.server, CollectionID: a.ID, Collection: "A"},
						lore.Append, entries(b.server, lore.Serverwide, "", fmt.Sprintf("app%d", i), 40))
				case 1:
					_, err = b.store.ImportEntries(b.ctx, lore.ImportTarget{Server: b.server, CollectionID: bk.ID, Collection: "B"},
						lore.Replace, entries(b.server, lore.Serverwide, "", fmt.Sprintf("rep%d", i), 60+i))
				default:
					_, err = b.store.InsertEntry(b.ctx, entry(b.server, lore.Serverwide, "B", fmt.Sprintf("ins%d", i)))
				}
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		succeeded := 0
		for err := range errs {
			if err == nil {
				succeeded++
				continue
			}
			require.ErrorIs(t, err, lore.ErrScopeFull)
		}
		require.Positive(t, succeeded)
		n := b.scopeCount(t, lore.Serverwide)
		require.LessOrEqual(t, n, lore.MaxEntriesPerScope)
		list, err := b.store.ListScope(b.ctx, b.server, lore.Serverwide, "")
		require.NoError(t, err)
		require.Len(t, list, n)
	})
	t.Run("persona", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		const lineage lore.Lineage = 2
		var wg sync.WaitGroup
		var mu sync.Mutex
		var unexpected []error
		for i := range 24 {
			wg.Go(func() {
				var err error
				batch := entries(b.server, lineage, "", fmt.Sprintf("w%d", i), 30+i*5)
				if i%2 == 0 {
					_, err = b.store.ImportEntries(b.ctx, lore.ImportTarget{Server: b.server, Lineage: lineage}, lore.Append, batch)
				} else {
					_, err = b.store.ReplacePersonaBook(b.ctx, b.server, lineage, batch)
				}
				if err != nil && !errors.Is(err, lore.ErrScopeFull) {
					mu.Lock()
					unexpected = append(unexpected, err)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		require.Empty(t, unexpected)
		require.LessOrEqual(t, b.scopeCount(t, lineage), lore.MaxEntriesPerScope)
	})
}

func TestReplaceScopes(t *testing.T) {
	t.Parallel()
	const chA = "223456789012345678"
	b := setup(t)
	stale := b.collection(t, "Stale")
	general := b.collection(t, "General")
	b.insert(t, entry(b.server, lore.Serverwide, "Stale", "stale"))
	b.insert(t, entries(b.server, 7, "", "old persona", 3)...)
	b.insert(t, entries(b.server, 8, "", "untouched", 2)...)

	sw := entries(b.server, lore.Serverwide, "", "general", 2) // "" = General
	lore1 := entries(b.server, lore.Serverwide, "World", "world", 2)
	lore1[0].LegacyChannelTags = []string{"old-channel"}
	persona := entries(b.server, 7, "", "new persona", 4)
	persona[0].ChannelIDs = []string{chA}
	scopes := []lore.ScopeReplacement{
		{Lineage: lore.Serverwide, Entries: append(sw, lore1...), Collections: []lore.Collection{
			{Name: "World", Enabled: false, ChannelIDs: []string{chA}},
			{Name: "World", Enabled: false, ChannelIDs: []string{chA}}, // one per entry, agreeing
			{Name: "Empty", Enabled: true},
		}},
		{Lineage: 7, Entries: persona},
	}

	t.Run("disagreeing collection settings are refused", func(t *testing.T) {
		bad := []lore.ScopeReplacement{{Lineage: lore.Serverwide, Entries: lore1, Collections: []lore.Collection{
			{Name: "World", Enabled: false, ChannelIDs: []string{chA}},
			{Name: "World", Enabled: true, ChannelIDs: []string{chA}},
		}}}
		err := b.store.ReplaceScopes(b.ctx, b.server, bad)
		requireInvalidField(t, err, "scopes[0].collections[1]")
		bad[0].Collections[1] = lore.Collection{Name: "World", Enabled: false}
		err = b.store.ReplaceScopes(b.ctx, b.server, bad)
		requireInvalidField(t, err, "scopes[0].collections[1]")
		_, err = b.store.GetCollection(b.ctx, b.server, stale.ID)
		require.NoError(t, err, "nothing changed")
	})
	t.Run("oversized scope", func(t *testing.T) {
		err := b.store.ReplaceScopes(b.ctx, b.server, []lore.ScopeReplacement{
			{Lineage: 7, Entries: entries(b.server, 7, "", "x", 1)},
			{Lineage: 9, Entries: entries(b.server, 9, "", "x", 251)},
		})
		require.ErrorIs(t, err, lore.ErrScopeFull)
		require.Equal(t, 3, b.scopeCount(t, 7))
	})
	t.Run("lineage listed twice", func(t *testing.T) {
		err := b.store.ReplaceScopes(b.ctx, b.server, []lore.ScopeReplacement{{Lineage: 7}, {Lineage: 7}})
		requireInvalidField(t, err, "scopes[1].lineage")
	})

	require.NoError(t, b.store.ReplaceScopes(b.ctx, b.server, scopes))

	cols, err := b.store.ListCollections(b.ctx, b.server)
	require.NoError(t, err)
	byName := map[string]lore.Collection{}
	for _, c := range cols {
		byName[c.Name] = c
	}
	require.Len(t, byName, 3, "Stale is gone; General, World and Empty remain")
	require.Equal(t, general.ID, byName["General"].ID, "existing collections keep their ids")
	require.Equal(t, 2, byName["General"].EntryCount)
	require.False(t, byName["World"].Enabled)
	require.Equal(t, []string{chA}, byName["World"].ChannelIDs)
	require.Equal(t, 0, byName["Empty"].EntryCount)

	world, err := b.store.ListScope(b.ctx, b.server, lore.Serverwide, "World")
	require.NoError(t, err)
	require.Equal(t, []string{"old-channel"}, world[0].LegacyChannelTags, "pending names travel through backups")
	p7, err := b.store.ListScope(b.ctx, b.server, 7, "")
	require.NoError(t, err)
	require.Equal(t, contents(persona), contents(p7))
	require.Equal(t, []string{chA}, p7[0].ChannelIDs)
	require.Equal(t, 2, b.scopeCount(t, 8), "unlisted scopes are untouched")
}
