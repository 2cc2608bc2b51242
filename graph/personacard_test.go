package graph_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/graph/auth"
)

const qImportCard = `mutation($input: ImportPersonaCardInput!) { importPersonaCard(input: $input) {
	persona { id lineageId name removed } created added replaced bookIncluded
	report { format dropped } error { code message field } } }`

type cardPayload struct {
	Persona *struct {
		ID, LineageID int64
		Name          string
	}
	Created, BookIncluded bool
	Added, Replaced       int
	Report                *struct {
		Format  string
		Dropped int
	}
	Error *mutationError
}

func importCard(t *testing.T, a *api, bearer string, input map[string]any, name string, file []byte) (cardPayload, gqlResponse) {
	t.Helper()
	r := a.upload(bearer, qImportCard, input, name, file)
	var p cardPayload
	if r.Data["importPersonaCard"] != nil {
		require.NoError(t, json.Unmarshal(r.Data["importPersonaCard"], &p))
	}
	return p, r
}

// TestImportPersonaCard imports real corpus cards as alters and into an
// existing persona, and checks permission and bad input.
func TestImportPersonaCard(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	var pp struct{ Error *mutationError }
	a.must(serviceKey, qUpsertPersona, map[string]any{"s": serverA, "id": 2, "l": 5, "n": "Ayla"}, "upsertPersona", &pp)
	require.Nil(t, pp.Error)
	seraphina := corpus(t, "png/sillytavern__default_Seraphina.png")
	nobook := corpus(t, "png/sillytavern-content__contest_Assistant_Amy_nobook.png")
	manager := a.member("u1", map[string]auth.Membership{serverA: {Manage: true}})
	member := a.member("u2", map[string]auth.Membership{serverA: {}})

	tests := []struct {
		name        string
		bearer      string
		input       map[string]any
		file        string
		data        []byte
		wantCreated bool
		wantID      int64
		wantLineage int64
		wantName    string
		wantAdded   int
		wantBook    bool
	}{
		{"png card as an alter", manager, map[string]any{}, "Seraphina.png", seraphina, true, 3, 6, "Seraphina", 4, true},
		{"name override", serviceKey, map[string]any{"name": "Sera II"}, "Seraphina.png", seraphina, true, 4, 7, "Sera II", 4, true},
		{"card without a book: persona only", manager, map[string]any{}, "Amy.png", nobook, true, 5, 8, "", 0, false},
		{"into an existing persona replaces its book", manager, map[string]any{"personaId": 2}, "Seraphina.png", seraphina, false, 2, 5, "Ayla", 4, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.input["serverDiscordId"] = serverA
			p, r := importCard(t, a, tc.bearer, tc.input, tc.file, tc.data)
			require.Empty(t, r.Errors)
			require.Nil(t, p.Error)
			require.Equal(t, tc.wantCreated, p.Created)
			require.Equal(t, tc.wantID, p.Persona.ID)
			require.Equal(t, tc.wantLineage, p.Persona.LineageID)
			if tc.wantName != "" {
				require.Equal(t, tc.wantName, p.Persona.Name)
			}
			require.NotEmpty(t, p.Persona.Name)
			require.Equal(t, tc.wantAdded, p.Added)
			require.Equal(t, tc.wantBook, p.BookIncluded)
			require.Contains(t, p.Report.Format, "card")
		})
	}
	// Importing again into persona 2 replaces the 4 entries written above.
	p, r := importCard(t, a, manager, map[string]any{"serverDiscordId": serverA, "personaId": 2}, "Seraphina.png", seraphina)
	require.Empty(t, r.Errors)
	require.Equal(t, 4, p.Replaced)

	t.Run("member is forbidden", func(t *testing.T) {
		_, r := importCard(t, a, member, map[string]any{"serverDiscordId": serverA}, "Seraphina.png", seraphina)
		require.NotEmpty(t, r.Errors)
		require.Equal(t, "FORBIDDEN", r.Errors[0].Extensions["code"])
	})
	t.Run("world info is not a card", func(t *testing.T) {
		p, r := importCard(t, a, manager, map[string]any{"serverDiscordId": serverA}, "Eldoria.json", corpus(t, "st-worldinfo/sillytavern__Eldoria.json"))
		require.Empty(t, r.Errors)
		require.NotNil(t, p.Error)
		require.Equal(t, "INVALID_INPUT", p.Error.Code)
		require.Contains(t, p.Error.Message, "not a character card")
	})
	t.Run("unknown persona", func(t *testing.T) {
		p, _ := importCard(t, a, manager, map[string]any{"serverDiscordId": serverA, "personaId": 99}, "Seraphina.png", seraphina)
		require.NotNil(t, p.Error)
		require.Equal(t, "NOT_FOUND", p.Error.Code)
	})
}

// TestPersonaCardImportID: importPersonaCard answers its history record's
// importId, as importLorebook does, and undoImport with it takes the import
// back: an alter it created is removed with its book, an existing
// persona's replaced book comes back.
func TestPersonaCardImportID(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	var pp struct{ Error *mutationError }
	a.must(serviceKey, qUpsertPersona, map[string]any{"s": serverA, "id": 2, "l": 5, "n": "Ayla"}, "upsertPersona", &pp)
	require.Nil(t, pp.Error)
	seraphina := corpus(t, "png/sillytavern__default_Seraphina.png")
	const q = `mutation($input: ImportPersonaCardInput!) { importPersonaCard(input: $input) { persona { id } added importId error { code message } } }`
	const qUndo = `mutation($s: String!, $id: ID!) { undoImport(input: {serverDiscordId: $s, importId: $id}) {
		removed restored persona { personaId removed } error { code message } } }`
	for _, tc := range []struct {
		name         string
		input        map[string]any
		wantRemoved  bool // the persona goes with the undo
		wantRestored int
	}{
		{"alter", map[string]any{}, true, 0},
		{"existing persona", map[string]any{"personaId": 2}, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.input["serverDiscordId"] = serverA
			r := a.upload(serviceKey, q, tc.input, "Seraphina.png", seraphina)
			require.Empty(t, r.Errors)
			var p struct {
				Persona  struct{ ID int64 }
				Added    int
				ImportID *string
				Error    *mutationError
			}
			require.NoError(t, json.Unmarshal(r.Data["importPersonaCard"], &p))
			require.Nil(t, p.Error)
			require.NotNil(t, p.ImportID, "the payload names the history record")
			var u struct {
				Removed, Restored int
				Persona           *struct {
					PersonaID int64
					Removed   bool
				}
				Error *mutationError
			}
			a.must(serviceKey, qUndo, map[string]any{"s": serverA, "id": *p.ImportID}, "undoImport", &u)
			require.Nil(t, u.Error)
			require.Equal(t, p.Added, u.Removed, "the undo removes the entries the import wrote")
			require.Equal(t, tc.wantRestored, u.Restored)
			require.Equal(t, tc.wantRemoved, u.Persona != nil && u.Persona.Removed)
		})
	}
}
