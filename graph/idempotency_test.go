package graph_test

import (
	"bytes"
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/graph/auth"
	"loregate/graph/generated"
)

// TestEveryMutationTakesIdempotencyKey: every write mutation's input has
// idempotencyKey: String (issue 18), mutations added later included;
// activateTurn's turnId plays that part for it.
func TestEveryMutationTakesIdempotencyKey(t *testing.T) {
	schema := generated.NewExecutableSchema(generated.Config{}).Schema()
	require.NotEmpty(t, schema.Mutation.Fields)
	for _, f := range schema.Mutation.Fields {
		if f.Name == "__typename" || f.Name == "activateTurn" {
			continue
		}
		in := f.Arguments.ForName("input")
		require.NotNil(t, in, "mutation %s has an input argument", f.Name)
		def := schema.Types[in.Type.Name()]
		key := def.Fields.ForName("idempotencyKey")
		require.NotNil(t, key, "mutation %s: input %s has idempotencyKey", f.Name, def.Name)
		require.Equal(t, "String", key.Type.String(), f.Name)
	}
}

// TestIdempotencyKeys: a repeated key returns the first result and writes
// nothing, also when the repeats race; another operation or caller cannot
// reuse the key; a refused write replays its refusal.
func TestIdempotencyKeys(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	var p struct{ Error *mutationError }
	a.must(serviceKey, qUpsertPersona, map[string]any{"s": serverA, "id": 70, "l": 7, "n": "Vex"}, "upsertPersona", &p)
	const create = `mutation($s: String!, $k: String, $t: String) { createEntry(input: {serverDiscordId: $s, lineageId: 7, idempotencyKey: $k,
		entry: {title: $t, content: "c", keys: ["k"]}}) { entry { id title } error { code message } } }`
	type entryPayload struct {
		Entry *struct{ ID, Title string }
		Error *mutationError
	}
	count := func() int {
		var s struct {
			PersonaBook struct{ EntryCount int }
		}
		a.must(serviceKey, `query($s: String!) { server(discordId: $s) { personaBook(lineageId: 7) { entryCount } } }`, map[string]any{"s": serverA}, "server", &s)
		return s.PersonaBook.EntryCount
	}

	var first, again entryPayload
	a.must(serviceKey, create, map[string]any{"s": serverA, "k": "key-1", "t": "one"}, "createEntry", &first)
	require.Nil(t, first.Error)
	a.must(serviceKey, create, map[string]any{"s": serverA, "k": "key-1", "t": "one"}, "createEntry", &again)
	require.Equal(t, first, again, "the repeat returns the first result")
	require.Equal(t, 1, count(), "and writes nothing")

	// Sixteen racing repeats of a new key: one write, one result.
	var wg sync.WaitGroup
	results := make([]entryPayload, 16)
	for i := range results {
		wg.Go(func() {
			r := a.do(serviceKey, create, map[string]any{"s": serverA, "k": "key-race", "t": "race"})
			if len(r.Errors) == 0 {
				_ = json.Unmarshal(r.Data["createEntry"], &results[i])
			}
		})
	}
	wg.Wait()
	for _, r := range results {
		require.NotNil(t, r.Entry)
		require.Equal(t, results[0].Entry.ID, r.Entry.ID)
	}
	require.Equal(t, 2, count())

	// Without a key every call writes.
	a.must(serviceKey, create, map[string]any{"s": serverA, "t": "free"}, "createEntry", &first)
	a.must(serviceKey, create, map[string]any{"s": serverA, "t": "free"}, "createEntry", &first)
	require.Equal(t, 4, count())

	// Another operation, or another caller, with the same key.
	r := a.do(serviceKey, `mutation($s: String!) { deleteEntry(input: {serverDiscordId: $s, lineageId: 7, entryId: "1", idempotencyKey: "key-1"}) { ok } }`, map[string]any{"s": serverA})
	require.Equal(t, "IDEMPOTENCY_KEY_REUSED", r.Errors[0].Extensions["code"], r.Errors)
	require.Equal(t, "idempotency_key_reused", r.Errors[0].Extensions["reason"], r.Errors)
	member := a.member("999999999999999999", map[string]auth.Membership{serverA: {Manage: true}})
	r = a.do(member, create, map[string]any{"s": serverA, "k": "key-1", "t": "one"})
	require.Equal(t, "IDEMPOTENCY_KEY_REUSED", r.Errors[0].Extensions["code"], r.Errors)
	require.Equal(t, "idempotency_key_reused", r.Errors[0].Extensions["reason"], r.Errors)
	// Keys are per server: the same key on another server is new.
	setupServer(t, a, serverB)
	var ps struct{ Error *mutationError }
	a.must(serviceKey, `mutation($s: String!) { createCollection(input: {serverDiscordId: $s, name: "W", idempotencyKey: "key-1"}) { error { code } } }`, map[string]any{"s": serverB}, "createCollection", &ps)
	require.Nil(t, ps.Error)

	// A refused write replays its refusal and still writes nothing.
	var bad entryPayload
	const badCreate = `mutation($s: String!) { createEntry(input: {serverDiscordId: $s, lineageId: 7, idempotencyKey: "key-bad",
		entry: {content: "c", keys: ["/[\\s\\S]{0,1000}z/"]}}) { entry { id } error { code message } } }`
	a.must(serviceKey, badCreate, map[string]any{"s": serverA}, "createEntry", &bad)
	require.Equal(t, "INVALID_INPUT", bad.Error.Code)
	a.must(serviceKey, badCreate, map[string]any{"s": serverA}, "createEntry", &again)
	require.Equal(t, bad, again)
	require.Equal(t, 4, count())

	// A key longer than 200 bytes is bad input.
	long := make([]byte, 201)
	for i := range long {
		long[i] = 'k'
	}
	r = a.do(serviceKey, create, map[string]any{"s": serverA, "k": string(long), "t": "x"})
	require.Equal(t, "BAD_USER_INPUT", r.Errors[0].Extensions["code"], r.Errors)
}

// TestIdempotencyKeyInput: a repeated key replays only the input it was
// first used with (docs/api.md "Idempotency keys"): the same variables or
// the same file replay the first payload; other variables, another file
// or another file name are refused with IDEMPOTENCY_KEY_REUSED and
// idempotency_input_differs; a key stored before digests (its payload
// alone in the column) replays whatever the input. No repeat writes.
func TestIdempotencyKeyInput(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	var p struct{ Error *mutationError }
	a.must(serviceKey, qUpsertPersona, map[string]any{"s": serverA, "id": 70, "l": 7, "n": "Vex"}, "upsertPersona", &p)
	const create = `mutation($s: String!, $k: String, $t: String) { createEntry(input: {serverDiscordId: $s, lineageId: 7, idempotencyKey: $k,
		entry: {title: $t, content: "c", keys: ["k"]}}) { entry { id title } error { code message } } }`
	const createVar = `mutation($in: CreateEntryInput!) { createEntry(input: $in) { entry { id title } error { code message } } }`
	const imp = `mutation($input: ImportLorebookInput!) { importLorebook(input: $input) { added collection { id name } error { code message } } }`
	entry := func(k, title string) func() gqlResponse {
		return func() gqlResponse {
			return a.do(serviceKey, create, map[string]any{"s": serverA, "k": k, "t": title})
		}
	}
	book := func(title string) []byte {
		return []byte(`{"entries": {"0": {"uid": 0, "key": ["k"], "content": "` + title + `"}}}`)
	}
	upload := func(k, name string, file []byte) func() gqlResponse {
		return func() gqlResponse {
			return a.upload(serviceKey, imp, map[string]any{"serverDiscordId": serverA, "lineageId": 0, "idempotencyKey": k}, name, file)
		}
	}
	// Above the multipart transport's 8 MB kept in memory, an upload is a
	// temporary file; as a JSON lorebook it is refused as too large, a
	// payload that is stored and replayed like any other.
	large := func(c byte) []byte { return bytes.Repeat([]byte{c}, 9<<20) }
	writes := func() int {
		var n int
		require.NoError(t, a.pool.QueryRow(t.Context(), `SELECT (SELECT count(*) FROM lorebook_entries) + (SELECT count(*) FROM lorebooks)`).Scan(&n))
		return n
	}
	for _, tc := range []struct {
		name          string
		first, repeat func() gqlResponse
		// before runs between the two calls.
		before func()
		replay bool
		// refusedFirst: the first call's payload is an error (stored too).
		refusedFirst bool
	}{
		{name: "same variables replay", first: entry("k-same", "one"), repeat: entry("k-same", "one"), replay: true},
		{name: "same input in another spelling replays", first: entry("k-spell", "one"), repeat: func() gqlResponse {
			// The input as one variable, its members in another order.
			return a.do(serviceKey, createVar, map[string]any{"in": map[string]any{
				"entry": map[string]any{"keys": []string{"k"}, "content": "c", "title": "one"}, "idempotencyKey": "k-spell",
				"lineageId": 7, "serverDiscordId": serverA}})
		}, replay: true},
		{name: "other variables are refused", first: entry("k-other", "one"), repeat: entry("k-other", "two")},
		{name: "same file replays", first: upload("k-file", "a.json", book("a")), repeat: upload("k-file", "a.json", book("a")), replay: true},
		{name: "another file is refused", first: upload("k-file2", "b.json", book("b")), repeat: upload("k-file2", "b.json", book("B"))},
		{name: "another file name is refused", first: upload("k-name", "c.json", book("c")), repeat: upload("k-name", "d.json", book("c"))},
		{name: "same large file replays", first: upload("k-large", "l.json", large('a')), repeat: upload("k-large", "l.json", large('a')),
			replay: true, refusedFirst: true},
		{name: "another large file is refused", first: upload("k-large2", "l.json", large('a')), repeat: upload("k-large2", "l.json", large('b')),
			refusedFirst: true},
		{name: "a key stored before digests replays", first: entry("k-old", "one"), repeat: entry("k-old", "two"), replay: true,
			before: func() {
				// What a server before the digest stored: no digest.
				tag, err := a.pool.Exec(t.Context(), `UPDATE idempotency_keys SET input_digest = NULL WHERE key = 'k-old' AND input_digest IS NOT NULL`)
				require.NoError(t, err)
				require.EqualValues(t, 1, tag.RowsAffected())
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first := tc.first()
			require.Empty(t, first.Errors)
			require.Len(t, first.Data, 1)
			for _, d := range first.Data {
				if tc.refusedFirst {
					require.Contains(t, string(d), `"error":{`, "the first call is refused")
				} else {
					require.NotContains(t, string(d), `"error":{`, "the first call writes")
				}
			}
			if tc.before != nil {
				tc.before()
			}
			n := writes()
			again := tc.repeat()
			require.Equal(t, n, writes(), "the repeat writes nothing")
			if tc.replay {
				require.Empty(t, again.Errors)
				require.Equal(t, first.Data, again.Data, "the repeat returns the first payload")
				return
			}
			require.Len(t, again.Errors, 1, "%+v", again.Data)
			require.Equal(t, "IDEMPOTENCY_KEY_REUSED", again.Errors[0].Extensions["code"], again.Errors)
			require.Equal(t, "idempotency_input_differs", again.Errors[0].Extensions["reason"], again.Errors)
		})
	}
}
