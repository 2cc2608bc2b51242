package postgres_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/postgres/postgrestest"
)

func TestImportPersonaCard(t *testing.T) {
	b := setup(t)
	// Persona 3 reads lineage 7; lineage 9 owns lore-only entries.
	_, err := b.store.UpsertPersona(b.ctx, lore.Persona{Server: b.server, ID: 3, Lineage: 7, Name: "Ayla"})
	require.NoError(t, err)
	b.insert(t, entries(b.server, 9, "", "old", 2)...)
	b.insert(t, entries(b.server, 7, "", "ayla", 3)...)

	tests := []struct {
		name        string
		in          lore.PersonaCardImport
		wantID      int64
		wantLineage lore.Lineage
		wantName    string
		wantAdded   int
		wantBook    []string // contents of the lineage's book afterwards
	}{
		{
			name:   "alter gets the next free id and a new lineage past lore-only ones",
			in:     lore.PersonaCardImport{Server: b.server, Name: "Bram", Entries: entries(b.server, 0, "", "bram", 2)},
			wantID: 4, wantLineage: 10, wantName: "Bram", wantAdded: 2, wantBook: []string{"bram-0", "bram-1"},
		},
		{
			name:   "alter without a book",
			in:     lore.PersonaCardImport{Server: b.server, Name: "Cora"},
			wantID: 5, wantLineage: 11, wantName: "Cora", wantBook: nil,
		},
		{
			name:   "existing persona: the card replaces its lineage's book and keeps its name",
			in:     lore.PersonaCardImport{Server: b.server, PersonaID: 3, Name: "ignored", Entries: entries(b.server, 0, "", "new", 1)},
			wantID: 3, wantLineage: 7, wantName: "Ayla", wantAdded: 1, wantBook: []string{"new-0"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, res, err := b.store.ImportPersonaCard(b.ctx, tc.in)
			require.NoError(t, err)
			require.Equal(t, tc.wantID, p.ID)
			require.Equal(t, tc.wantLineage, p.Lineage)
			require.Equal(t, tc.wantName, p.Name)
			require.Equal(t, tc.wantAdded, res.Added)
			got, err := b.store.ListScope(b.ctx, b.server, p.Lineage, "")
			require.NoError(t, err)
			var contents []string
			for _, e := range got {
				contents = append(contents, e.Content)
			}
			require.Equal(t, tc.wantBook, contents)
		})
	}
	old, err := b.store.ListScope(b.ctx, b.server, 9, "")
	require.NoError(t, err)
	require.Len(t, old, 2, "lore-only lineage untouched")
}

func TestImportPersonaCardFailures(t *testing.T) {
	b := setup(t)
	_, err := b.store.UpsertPersona(b.ctx, lore.Persona{Server: b.server, ID: 1, Lineage: 1, Name: "Ayla"})
	require.NoError(t, err)
	b.insert(t, entries(b.server, 1, "", "keep", 2)...)
	postgrestest.FailEntryInserts(t, b.pool, "boom")
	failing := append(entries(b.server, 0, "", "ok", 1), entry(b.server, 0, "", "boom"))

	tests := []struct {
		name string
		in   lore.PersonaCardImport
		want error
	}{
		{"forced lore failure removes the new persona", lore.PersonaCardImport{Server: b.server, Name: "Bram", Entries: failing}, lore.ErrInvalid},
		{"forced lore failure keeps the existing book", lore.PersonaCardImport{Server: b.server, PersonaID: 1, Entries: failing}, lore.ErrInvalid},
		{"too many entries", lore.PersonaCardImport{Server: b.server, Name: "Bram", Entries: entries(b.server, 0, "", "x", lore.MaxEntriesPerScope+1)}, lore.ErrScopeFull},
		{"invalid entry", lore.PersonaCardImport{Server: b.server, Name: "Bram", Entries: []lore.Entry{entry(b.server, 0, "", "")}}, lore.ErrInvalid},
		{"unknown persona", lore.PersonaCardImport{Server: b.server, PersonaID: 42, Entries: entries(b.server, 0, "", "y", 1)}, lore.ErrNotFound},
		{"blank name for a new persona", lore.PersonaCardImport{Server: b.server, Name: " "}, lore.ErrInvalid},
		{"unknown server", lore.PersonaCardImport{Server: "123456789012345678", Name: "Bram"}, lore.ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := b.store.ImportPersonaCard(b.ctx, tc.in)
			require.ErrorIs(t, err, tc.want)
			ps, err := b.store.ListPersonas(b.ctx, b.server)
			require.NoError(t, err)
			require.Len(t, ps, 1, "no persona was added")
			kept, err := b.store.ListScope(b.ctx, b.server, 1, "")
			require.NoError(t, err)
			require.Len(t, kept, 2, "the existing book is unchanged")
			counts, err := b.store.CountByScope(b.ctx, b.server)
			require.NoError(t, err)
			require.Equal(t, lore.ScopeCounts{lore.Serverwide: 0, 1: 2}, counts)
		})
	}
}
