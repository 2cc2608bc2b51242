package graph_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/graph/auth"
)

const (
	qCreateCollection = `mutation($s: String!, $n: String!) { createCollection(input: {serverDiscordId: $s, name: $n}) { collection { id name } error { code message } } }`
	qCreateInto       = `mutation($s: String!, $c: ID!, $t: String!) { createEntry(input: {serverDiscordId: $s, lineageId: 0, collectionId: $c, entry: {title: $t, content: $t, keys: [$t]}}) {
		entry { id updatedAt } error { code message } } }`
	qMove = `mutation($in: MoveEntriesInput!) { moveEntries(input: $in) { moved { fromId toId } entries { id collection lineageId channelIds } keptIds channelsFromCollection channelsFromSource importId error { code message limit } } }`
	qCopy = `mutation($in: MoveEntriesInput!) { copyEntries(input: $in) { moved { fromId toId } entries { id title } keptIds importId error { code message } } }`
	qDup  = `mutation($in: DuplicateEntryInput!) { duplicateEntry(input: $in) { entry { id title collection } error { code message } } }`
	qSet  = `mutation($in: SetEntriesEnabledInput!) { setEntriesEnabled(input: $in) { count entries { id enabled } importId error { code message } } }`
	qUpd  = `mutation($in: UpdateEntriesInput!) { updateEntries(input: $in) { count entries { id probability group } importId error { code message field } } }`
	qDel  = `mutation($in: DeleteEntriesInput!) { deleteEntries(input: $in) { count importId error { code message } } }`
	qRep  = `mutation($in: ReplaceInEntriesInput!) { replaceInEntries(input: $in) { count preview importId changes { before { title } after { title content } changedFields } error { code message field } } }`
	qExp  = `query($in: ExportEntriesInput!) { exportEntries(input: $in) { fileName json entries error { code message } } }`
)

type movePayloadT struct {
	Moved                                               []struct{ FromID, ToID string }
	Entries                                             []struct{ ID, Collection, Title string }
	KeptIds, ChannelsFromCollection, ChannelsFromSource bool
	ImportID                                            *string
	Error                                               *mutationError
}

type bulkPayloadT struct {
	Count   int
	Entries []struct {
		ID          string
		Enabled     bool
		Probability int
		Group       string
	}
	ImportID *string
	Error    *mutationError
}

func sel(ids ...string) []map[string]any {
	out := make([]map[string]any, len(ids))
	for i, id := range ids {
		out[i] = map[string]any{"entryId": id}
	}
	return out
}

// TestWorkbenchBulkAPI drives every bulk mutation as a manager: duplicate,
// move between collections (ids kept) and into a persona book (new ids),
// copy, enable/disable, patch, find-and-replace with a preview, export of
// a selection, delete, and undo of a bulk edit through undoImport; a
// member is refused every write.
func TestWorkbenchBulkAPI(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	var pp struct{ Error *mutationError }
	a.must(serviceKey, qUpsertPersona, map[string]any{"s": serverA, "id": 1, "l": 6, "n": "Mira"}, "upsertPersona", &pp)
	manager := a.member("900000000000000011", map[string]auth.Membership{serverA: {Manage: true}})
	member := a.member("900000000000000012", map[string]auth.Membership{serverA: {}})
	var ca, cb struct {
		Collection struct{ ID, Name string }
		Error      *mutationError
	}
	a.must(manager, qCreateCollection, map[string]any{"s": serverA, "n": "Alpha"}, "createCollection", &ca)
	a.must(manager, qCreateCollection, map[string]any{"s": serverA, "n": "Beta"}, "createCollection", &cb)
	var ids []string
	for _, title := range []string{"dragon one", "dragon two", "dragon three"} {
		var c entryPayloadT
		a.must(manager, qCreateInto, map[string]any{"s": serverA, "c": ca.Collection.ID, "t": title}, "createEntry", &c)
		require.Nil(t, c.Error)
		ids = append(ids, c.Entry.ID)
	}

	var dup struct {
		Entry *struct{ ID, Title, Collection string }
		Error *mutationError
	}
	a.must(manager, qDup, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "lineageId": 0, "entryId": ids[0]}}, "duplicateEntry", &dup)
	require.Nil(t, dup.Error)
	require.NotEqual(t, ids[0], dup.Entry.ID)
	require.Equal(t, "dragon one", dup.Entry.Title)
	require.Equal(t, "Alpha", dup.Entry.Collection)

	var mv movePayloadT
	a.must(manager, qMove, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "lineageId": 0, "entries": sel(ids[0], ids[1]),
		"target": map[string]any{"lineageId": 0, "collectionId": cb.Collection.ID}}}, "moveEntries", &mv)
	require.Nil(t, mv.Error)
	require.True(t, mv.KeptIds)
	require.Equal(t, ids[0], mv.Moved[0].ToID)
	require.Equal(t, "Beta", mv.Entries[0].Collection)

	mv = movePayloadT{}
	a.must(manager, qMove, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "lineageId": 0, "entries": sel(ids[0]),
		"target": map[string]any{"lineageId": 6}}}, "moveEntries", &mv)
	require.Nil(t, mv.Error)
	require.False(t, mv.KeptIds)
	require.Equal(t, ids[0], mv.Moved[0].FromID)
	persona := mv.Moved[0].ToID
	require.NotEqual(t, ids[0], persona)

	var cp movePayloadT
	a.must(manager, qCopy, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "lineageId": 6, "entries": sel(persona),
		"target": map[string]any{"lineageId": 0, "collectionId": ca.Collection.ID}}}, "copyEntries", &cp)
	require.Nil(t, cp.Error)
	require.Equal(t, "dragon one", cp.Entries[0].Title)

	var set bulkPayloadT
	a.must(manager, qSet, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "lineageId": 0, "entries": sel(ids[1], ids[2]), "enabled": false}}, "setEntriesEnabled", &set)
	require.Nil(t, set.Error)
	require.Equal(t, 2, set.Count)
	require.False(t, set.Entries[0].Enabled)

	var upd bulkPayloadT
	a.must(manager, qUpd, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "lineageId": 0, "entries": sel(ids[1], ids[2]),
		"patch": map[string]any{"probability": 150}}}, "updateEntries", &upd)
	require.NotNil(t, upd.Error)
	require.Equal(t, "INVALID_INPUT", upd.Error.Code)
	a.must(manager, qUpd, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "lineageId": 0, "entries": sel(ids[1], ids[2]),
		"patch": map[string]any{"probability": 30, "group": "beasts"}}}, "updateEntries", &upd)
	require.Nil(t, upd.Error)
	require.Equal(t, 30, upd.Entries[1].Probability)
	require.Equal(t, "beasts", upd.Entries[1].Group)

	// Undo of the patch through the import history.
	var undo struct {
		Restored, Removed int
		Error             *mutationError
	}
	a.must(manager, qUndo, map[string]any{"s": serverA, "id": *upd.ImportID}, "undoImport", &undo)
	require.Nil(t, undo.Error)
	require.Equal(t, 2, undo.Restored)

	var rep struct {
		Count    int
		Preview  bool
		ImportID *string
		Changes  []struct {
			Before        struct{ Title string }
			After         struct{ Title, Content string }
			ChangedFields []string
		}
		Error *mutationError
	}
	repIn := map[string]any{"serverDiscordId": serverA, "lineageId": 0, "collectionId": ca.Collection.ID, "find": "Dragon", "replace": "wyrm", "preview": true}
	a.must(manager, qRep, map[string]any{"in": repIn}, "replaceInEntries", &rep)
	require.Nil(t, rep.Error)
	require.True(t, rep.Preview)
	require.Nil(t, rep.ImportID)
	require.Equal(t, 3, rep.Count, "Alpha: dragon three, the duplicate and the copy")
	require.Equal(t, []string{"content", "keys", "title"}, rep.Changes[0].ChangedFields)
	repIn["preview"] = false
	a.must(manager, qRep, map[string]any{"in": repIn}, "replaceInEntries", &rep)
	require.False(t, rep.Preview)
	require.NotNil(t, rep.ImportID)

	var exp struct {
		JSON    *string
		Entries int
		Error   *mutationError
	}
	a.must(manager, qExp, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "lineageId": 0, "collectionId": ca.Collection.ID,
		"entryIds": []string{ids[2]}}}, "exportEntries", &exp)
	require.Nil(t, exp.Error)
	require.Equal(t, 1, exp.Entries)
	var wi struct {
		Entries map[string]struct{ Comment string }
	}
	require.NoError(t, json.Unmarshal([]byte(*exp.JSON), &wi))
	require.Len(t, wi.Entries, 1)
	a.must(manager, qExp, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "lineageId": 0, "collectionId": ca.Collection.ID,
		"entryIds": []string{ids[1]}}}, "exportEntries", &exp)
	require.Equal(t, "NOT_FOUND", exp.Error.Code, "an entry of another book")

	var del bulkPayloadT
	in := map[string]any{"serverDiscordId": serverA, "lineageId": 0, "entries": sel(ids[1], ids[2]), "idempotencyKey": "del-1"}
	a.must(manager, qDel, map[string]any{"in": in}, "deleteEntries", &del)
	require.Nil(t, del.Error)
	require.Equal(t, 2, del.Count)
	var again bulkPayloadT
	a.must(manager, qDel, map[string]any{"in": in}, "deleteEntries", &again)
	require.Equal(t, del, again, "a repeated key answers the first result")

	for _, q := range []struct{ query, field string }{{qDel, "deleteEntries"}, {qSet, "setEntriesEnabled"}} {
		r := a.do(member, q.query, map[string]any{"in": map[string]any{"serverDiscordId": serverA, "lineageId": 6, "entries": sel(persona), "enabled": true}})
		require.NotEmpty(t, r.Errors, "a member cannot %s", q.field)
	}
}
