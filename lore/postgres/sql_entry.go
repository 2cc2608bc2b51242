package postgres

import "strings"

// Queries on lorebook_entries and legacy_channel_scope_tags.

// entryColumns is the column list every entry read scans with scanEntry, in
// this order; the last column aggregates the pending legacy channel names.
const entryColumns = `e.id, e.server_id::text, e.lineage_id, e.lorebook_name, e.title, e.content,
    e.keys, e.secondary_keys, e.selective_logic, e.constant, e.enabled, e.scan_depth, e.probability,
    e.insertion_order, e.priority, e.placement, e.role, e.case_sensitive, e.whole_words, e.ignore_budget,
    e.channel_ids::text[], e.extensions, e.created_at, e.updated_at,
    e.group_names, e.group_override, e.group_weight, e.use_group_scoring, e.exclude_recursion,
    e.prevent_recursion, e.delay_until_recursion, e.sticky, e.cooldown, e.delay, e.vectorized,
    e.position, e.depth, e.outlet, e.match_character_description, e.match_character_personality,
    e.match_scenario, e.match_creator_notes, e.match_character_depth_prompt, e.match_persona_description,
    e.character_names, e.character_tags, e.character_exclude, e.generation_types, e.category_id, e.note,
    ARRAY(SELECT t.name FROM legacy_channel_scope_tags t WHERE t.entry_id = e.id ORDER BY t.name)`

// entryLoadColumns are entryColumns with the pending legacy channel names
// taken from entryLoadEnabled's aggregate tg.
var entryLoadColumns = strings.Replace(entryColumns, entryTagsColumn, `COALESCE(tg.names, '{}')`, 1)

// The NULLs that stand for entryLoadEnabled's server and persona book
// columns (21) on entry rows, for its collection columns (12) on the
// server's row and persona rows, and for entry columns on the server's row.
var (
	loadServerNulls = strings.Repeat("NULL, ", 21)
	loadBookNulls   = strings.Repeat("NULL, ", 12)
	loadEntryNulls  = strings.TrimSuffix(strings.Repeat("NULL, ", len((&entryRow{}).dests())), ", ")
)

// categoryOn keeps entry e when it has no category or its category is
// enabled (a disabled category hides its entries from the per-turn read,
// as a disabled collection does; migration 000073).
const categoryOn = `(e.category_id IS NULL OR EXISTS (SELECT 1 FROM book_categories c WHERE c.id = e.category_id AND c.enabled))`

// entryScopeMatch addresses one entry by (server, lineage or NULL, id)
// together: an id of another server or scope matches nothing.
const entryScopeMatch = `e.server_id = $1 AND e.lineage_id IS NOT DISTINCT FROM $2 AND e.id = $3`

// entryInsertParams is the number of parameters of entryInsert.
const entryInsertParams = 47

// entryInsertColumns are entryInsert's columns after server_id,
// lineage_id and lorebook_name, in entryArgs' order.
var entryInsertColumns = func() []string {
	cols := entryInsert[strings.Index(entryInsert, "(")+1 : strings.Index(entryInsert, ")")]
	var out []string
	for _, c := range strings.Split(cols, ",") {
		out = append(out, strings.TrimSpace(c))
	}
	return out[3:]
}()

// entryInsertMany inserts the entries of $1, a JSON array of objects keyed
// by column (insertEntriesTx), in one statement and in array order; a row
// without created_at is created now.
var entryInsertMany = `INSERT INTO lorebook_entries (server_id, lineage_id, lorebook_name, created_at, ` +
	strings.Join(entryInsertColumns, ", ") + `)
SELECT r.server_id, r.lineage_id, r.lorebook_name, COALESCE(r.created_at, now()), r.` +
	strings.Join(entryInsertColumns, ", r.") + `
FROM json_populate_recordset(NULL::lorebook_entries, $1::json) WITH ORDINALITY AS r
ORDER BY r.ordinality
RETURNING id, created_at, updated_at`

const (
	entryInsert = `INSERT INTO lorebook_entries (server_id, lineage_id, lorebook_name, title, content, keys,
    secondary_keys, selective_logic, constant, enabled, scan_depth, probability, insertion_order, priority,
    placement, role, case_sensitive, whole_words, channel_ids, extensions, ignore_budget,
    group_names, group_override, group_weight, use_group_scoring, exclude_recursion, prevent_recursion,
    delay_until_recursion, sticky, cooldown, delay, vectorized,
    position, depth, outlet, match_character_description, match_character_personality, match_scenario,
    match_creator_notes, match_character_depth_prompt, match_persona_description, character_names,
    character_tags, character_exclude, generation_types, category_id, note)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19::text[], $20, $21,
    $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32,
    $33, $34, $35, $36, $37, $38, $39, $40, $41, $42, $43, $44, $45, $46, $47)
RETURNING id, created_at, updated_at`

	// entryGetForUpdate reads one addressed entry and locks its row.
	entryGetForUpdate = `SELECT ` + entryColumns + ` FROM lorebook_entries e WHERE ` + entryScopeMatch + ` FOR UPDATE OF e`

	entryGet = `SELECT ` + entryColumns + ` FROM lorebook_entries e WHERE ` + entryScopeMatch

	// entryUpdate rewrites every editable field; scope columns never change.
	entryUpdate = `UPDATE lorebook_entries e SET title = $4, content = $5, keys = $6, secondary_keys = $7,
    selective_logic = $8, constant = $9, enabled = $10, scan_depth = $11, probability = $12,
    insertion_order = $13, priority = $14, placement = $15, role = $16, case_sensitive = $17,
    whole_words = $18, channel_ids = $19::text[], extensions = $20, ignore_budget = $21,
    group_names = $22, group_override = $23, group_weight = $24, use_group_scoring = $25,
    exclude_recursion = $26, prevent_recursion = $27, delay_until_recursion = $28, sticky = $29,
    cooldown = $30, delay = $31, vectorized = $32,
    position = $33, depth = $34, outlet = $35, match_character_description = $36,
    match_character_personality = $37, match_scenario = $38, match_creator_notes = $39,
    match_character_depth_prompt = $40, match_persona_description = $41, character_names = $42,
    character_tags = $43, character_exclude = $44, generation_types = $45, category_id = $46, note = $47
WHERE ` + entryScopeMatch + `
RETURNING e.updated_at`

	entryDelete = `DELETE FROM lorebook_entries e WHERE ` + entryScopeMatch

	entrySetEnabled = `UPDATE lorebook_entries e SET enabled = $4 WHERE ` + entryScopeMatch

	// entrySplitSiblings returns the ids of the other parts of the
	// addressed entry's split group (lore.KeySplit; same scope and
	// collection), locked; none when it is not a part.
	entrySplitSiblings = `SELECT s.id FROM lorebook_entries e JOIN lorebook_entries s
    ON s.server_id = e.server_id AND s.lineage_id IS NOT DISTINCT FROM e.lineage_id
    AND s.lorebook_name IS NOT DISTINCT FROM e.lorebook_name AND s.id <> e.id
    AND s.extensions -> 'loregate/split' ->> 'group' = e.extensions -> 'loregate/split' ->> 'group'
WHERE ` + entryScopeMatch + ` AND e.extensions ? 'loregate/split'
ORDER BY s.id FOR UPDATE OF s`

	// Scope counts use separate NULL and non-NULL forms so that both are
	// answered from lorebook_entries_scope_idx (IS NOT DISTINCT FROM is not
	// indexable).
	entryCountServerwide = `SELECT count(*) FROM lorebook_entries WHERE server_id = $1 AND lineage_id IS NULL`
	entryCountLineage    = `SELECT count(*) FROM lorebook_entries WHERE server_id = $1 AND lineage_id = $2`

	// entryCountServerwideOutside counts Serverwide entries of every other
	// collection (the shared limit of a collection replacement).
	entryCountServerwideOutside = `SELECT count(*) FROM lorebook_entries
WHERE server_id = $1 AND lineage_id IS NULL AND lorebook_name <> $2`

	entryCountByScope = `SELECT lineage_id, count(*) FROM lorebook_entries WHERE server_id = $1 GROUP BY lineage_id`

	// Identity reads for Append (see lore.DuplicateKey).
	entryIdentityLineage = `SELECT title, content, keys, secondary_keys FROM lorebook_entries
WHERE server_id = $1 AND lineage_id = $2`
	entryIdentityCollection = `SELECT title, content, keys, secondary_keys FROM lorebook_entries
WHERE server_id = $1 AND lineage_id IS NULL AND lorebook_name = $2`

	entryDeleteLineage     = `DELETE FROM lorebook_entries WHERE server_id = $1 AND lineage_id = $2`
	entryDeleteCollection  = `DELETE FROM lorebook_entries WHERE server_id = $1 AND lineage_id IS NULL AND lorebook_name = $2`
	entryDeleteServerwide  = `DELETE FROM lorebook_entries WHERE server_id = $1 AND lineage_id IS NULL`
	entryDeleteAllOfServer = `DELETE FROM lorebook_entries WHERE server_id = $1`

	entryListServerwide = `SELECT ` + entryColumns + ` FROM lorebook_entries e
WHERE e.server_id = $1 AND e.lineage_id IS NULL
ORDER BY e.insertion_order, e.id`
	entryListCollection = `SELECT ` + entryColumns + ` FROM lorebook_entries e
WHERE e.server_id = $1 AND e.lineage_id IS NULL AND e.lorebook_name = $2
ORDER BY e.insertion_order, e.id`
	entryListLineage = `SELECT ` + entryColumns + ` FROM lorebook_entries e
WHERE e.server_id = $1 AND e.lineage_id = $2
ORDER BY e.insertion_order, e.id`

	tagInsert = `INSERT INTO legacy_channel_scope_tags (entry_id, name)
SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING`

	tagClear = `DELETE FROM legacy_channel_scope_tags WHERE entry_id = $1`
)

var (
	// entryLoadEnabled is the per-turn read, one statement: the server's
	// row (settings and lore version) with the lineage's persona book
	// settings, then the enabled entries of enabled Serverwide collections
	// with their collection's state and settings joined, and the enabled
	// entries of the lineage; each kind of row has NULL in the columns of
	// the others (the server's columns were repeated on every entry row).
	// $2 is NULL for a Serverwide-only read. Both branches are answered by
	// lorebook_entries_scope_idx (server_id, lineage_id, enabled). The
	// pending legacy channel names of the server's entries are aggregated
	// once (tg) and hash-joined: entryColumns' per-row subquery rescanned
	// the tag table and set up a sort for each of the 500 rows of a full
	// scope (a fifth of Postgres's time in the read). The rows come
	// unsorted: LoadEnabledForScope puts them in insertion order.
	entryLoadEnabled = `WITH tg AS (
    SELECT t.entry_id, array_agg(t.name ORDER BY t.name) AS names
    FROM legacy_channel_scope_tags t JOIN lorebook_entries te ON te.id = t.entry_id
    WHERE te.server_id = (SELECT $1::snowflake)
    GROUP BY t.entry_id)
SELECT s.name, s.channel_memory_enabled, s.memory_tagging_enabled, s.regex_keys_enabled,
    s.budget_unit, COALESCE(s.budget_limit, 0), s.tokenizer, s.lore_version, s.semantic,
    s.min_activations, s.min_activations_depth_max, s.max_entries, s.include_names,
    pb.scan_depth, pb.budget_limit, pb.recursive, pb.max_recursion_steps, pb.case_sensitive, pb.whole_words,
    pb.max_budget_share, pb.semantic_all_entries, ` + loadBookNulls + loadEntryNulls + `
FROM servers s
LEFT JOIN persona_books pb ON pb.server_id = s.id AND pb.lineage_id = (SELECT $2::bigint)
WHERE s.id = (SELECT $1::snowflake)
UNION ALL
SELECT ` + loadServerNulls + `b.id, b.channel_ids::text[], b.created_at, b.updated_at,
    b.scan_depth, b.budget_limit, b.recursive, b.max_recursion_steps, b.case_sensitive,
    b.whole_words, b.max_budget_share, b.semantic_all_entries, ` + entryLoadColumns + `
FROM lorebook_entries e
JOIN lorebooks b ON b.server_id = e.server_id AND b.name = e.lorebook_name
LEFT JOIN tg ON tg.entry_id = e.id
WHERE e.server_id = (SELECT $1::snowflake) AND e.lineage_id IS NULL AND e.enabled AND b.enabled AND ` + categoryOn + `
UNION ALL
SELECT ` + loadServerNulls + loadBookNulls + entryLoadColumns + `
FROM lorebook_entries e
LEFT JOIN tg ON tg.entry_id = e.id
WHERE e.server_id = (SELECT $1::snowflake) AND e.lineage_id = (SELECT $2::bigint) AND e.enabled AND ` + categoryOn
)
