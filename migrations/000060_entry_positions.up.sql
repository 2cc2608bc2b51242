-- 000060_entry_positions: where an entry goes and for whom (lore.Entry
-- Position, Depth, Outlet, Match, CharacterFilter, GenerationTypes;
-- docs/authoring.md "Positions"). Existing rows take the position of their
-- placement, then the values their source kept in extensions
-- (SillyTavern world info "st/<field>", a card's
-- "card/extensions/<field>"), so books imported before the upgrade act at
-- once; the world info copies lifted are dropped (the first-class field wins
-- on export). lore.Entry.NormalizePosition does the same for snapshots and
-- backups written before this migration. Bounds mirror lore/position.go.

ALTER TABLE lorebook_entries
    ADD COLUMN position text NOT NULL DEFAULT 'AFTER_CHAR'
        CHECK (position IN ('BEFORE_CHAR', 'AFTER_CHAR', 'AN_TOP', 'AN_BOTTOM', 'AT_DEPTH', 'EM_TOP', 'EM_BOTTOM', 'OUTLET')),
    ADD COLUMN depth integer NOT NULL DEFAULT 4 CHECK (depth BETWEEN 0 AND 10000),
    ADD COLUMN outlet text NOT NULL DEFAULT '' CHECK (char_length(outlet) <= 200),
    ADD COLUMN match_character_description boolean NOT NULL DEFAULT false,
    ADD COLUMN match_character_personality boolean NOT NULL DEFAULT false,
    ADD COLUMN match_scenario boolean NOT NULL DEFAULT false,
    ADD COLUMN match_creator_notes boolean NOT NULL DEFAULT false,
    ADD COLUMN match_character_depth_prompt boolean NOT NULL DEFAULT false,
    ADD COLUMN match_persona_description boolean NOT NULL DEFAULT false,
    ADD COLUMN character_names text[] NOT NULL DEFAULT '{}'
        CHECK (cardinality(character_names) <= 100 AND array_position(character_names, NULL) IS NULL),
    ADD COLUMN character_tags text[] NOT NULL DEFAULT '{}'
        CHECK (cardinality(character_tags) <= 100 AND array_position(character_tags, NULL) IS NULL),
    ADD COLUMN character_exclude boolean NOT NULL DEFAULT false,
    ADD COLUMN generation_types text[] NOT NULL DEFAULT '{}'
        CHECK (generation_types <@ ARRAY['normal', 'continue', 'impersonate', 'swipe', 'regenerate', 'quiet']);

-- The kind of the placement, then the source's position 0-7.
UPDATE lorebook_entries SET position = CASE placement WHEN 'before' THEN 'BEFORE_CHAR' ELSE 'AFTER_CHAR' END;

CREATE FUNCTION pg_temp.lift_int(ext jsonb, keys text[]) RETURNS integer LANGUAGE sql IMMUTABLE AS $$
    SELECT (ext ->> k)::numeric::integer FROM unnest(keys) WITH ORDINALITY AS u(k, i)
    WHERE jsonb_typeof(ext -> k) = 'number' AND (ext ->> k) ~ '^-?[0-9]+(\.0+)?$' AND length(ext ->> k) < 10
    ORDER BY i LIMIT 1
$$;
CREATE FUNCTION pg_temp.lift_bool(ext jsonb, keys text[]) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
    SELECT (ext -> k)::text::boolean FROM unnest(keys) WITH ORDINALITY AS u(k, i)
    WHERE jsonb_typeof(ext -> k) = 'boolean' ORDER BY i LIMIT 1
$$;

UPDATE lorebook_entries
SET position = (ARRAY['BEFORE_CHAR', 'AFTER_CHAR', 'AN_TOP', 'AN_BOTTOM', 'AT_DEPTH', 'EM_TOP', 'EM_BOTTOM', 'OUTLET'])
        [pg_temp.lift_int(extensions, ARRAY['st/position', 'card/extensions/position']) + 1],
    placement = CASE pg_temp.lift_int(extensions, ARRAY['st/position', 'card/extensions/position'])
        WHEN 1 THEN 'after' ELSE 'before' END,
    extensions = extensions - 'st/position'
WHERE pg_temp.lift_int(extensions, ARRAY['st/position', 'card/extensions/position']) BETWEEN 0 AND 7;

UPDATE lorebook_entries
SET depth = LEAST(pg_temp.lift_int(extensions, ARRAY['st/depth', 'card/extensions/depth']), 10000),
    extensions = extensions - 'st/depth'
WHERE pg_temp.lift_int(extensions, ARRAY['st/depth', 'card/extensions/depth']) >= 0;

UPDATE lorebook_entries
SET outlet = COALESCE(extensions ->> 'st/outletName', extensions ->> 'card/extensions/outlet_name'),
    extensions = extensions - 'st/outletName'
WHERE (jsonb_typeof(extensions -> 'st/outletName') = 'string'
        OR (NOT extensions ? 'st/outletName' AND jsonb_typeof(extensions -> 'card/extensions/outlet_name') = 'string'))
    AND char_length(COALESCE(extensions ->> 'st/outletName', extensions ->> 'card/extensions/outlet_name')) <= 200;

UPDATE lorebook_entries SET
    match_character_description = COALESCE(pg_temp.lift_bool(extensions, ARRAY['st/matchCharacterDescription', 'card/extensions/match_character_description']), false),
    match_character_personality = COALESCE(pg_temp.lift_bool(extensions, ARRAY['st/matchCharacterPersonality', 'card/extensions/match_character_personality']), false),
    match_scenario = COALESCE(pg_temp.lift_bool(extensions, ARRAY['st/matchScenario', 'card/extensions/match_scenario']), false),
    match_creator_notes = COALESCE(pg_temp.lift_bool(extensions, ARRAY['st/matchCreatorNotes', 'card/extensions/match_creator_notes']), false),
    match_character_depth_prompt = COALESCE(pg_temp.lift_bool(extensions, ARRAY['st/matchCharacterDepthPrompt', 'card/extensions/match_character_depth_prompt']), false),
    match_persona_description = COALESCE(pg_temp.lift_bool(extensions, ARRAY['st/matchPersonaDescription', 'card/extensions/match_persona_description']), false),
    extensions = extensions - ARRAY['st/matchCharacterDescription', 'st/matchCharacterPersonality', 'st/matchScenario',
        'st/matchCreatorNotes', 'st/matchCharacterDepthPrompt', 'st/matchPersonaDescription']
WHERE extensions ?| ARRAY['st/matchCharacterDescription', 'st/matchCharacterPersonality', 'st/matchScenario',
        'st/matchCreatorNotes', 'st/matchCharacterDepthPrompt', 'st/matchPersonaDescription',
        'card/extensions/match_character_description', 'card/extensions/match_character_personality',
        'card/extensions/match_scenario', 'card/extensions/match_creator_notes',
        'card/extensions/match_character_depth_prompt', 'card/extensions/match_persona_description'];

-- Generation types: an array of the six names only (anything else stays in
-- extensions, unread).
UPDATE lorebook_entries
SET generation_types = ARRAY(SELECT jsonb_array_elements_text(COALESCE(extensions -> 'st/triggers', extensions -> 'card/extensions/triggers'))),
    extensions = extensions - 'st/triggers'
WHERE jsonb_typeof(COALESCE(extensions -> 'st/triggers', extensions -> 'card/extensions/triggers')) = 'array'
    AND jsonb_array_length(COALESCE(extensions -> 'st/triggers', extensions -> 'card/extensions/triggers')) <= 6
    AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(COALESCE(extensions -> 'st/triggers', extensions -> 'card/extensions/triggers')) t
        WHERE jsonb_typeof(t) <> 'string'
            OR t #>> '{}' NOT IN ('normal', 'continue', 'impersonate', 'swipe', 'regenerate', 'quiet'));

-- SillyTavern's characterFilter {isExclude, names, tags}.
UPDATE lorebook_entries
SET character_names = ARRAY(SELECT jsonb_array_elements_text(extensions -> 'st/characterFilter' -> 'names')),
    character_tags = ARRAY(SELECT jsonb_array_elements_text(extensions -> 'st/characterFilter' -> 'tags')),
    character_exclude = COALESCE(pg_temp.lift_bool(extensions -> 'st/characterFilter', ARRAY['isExclude']), false),
    extensions = extensions - 'st/characterFilter'
WHERE jsonb_typeof(extensions -> 'st/characterFilter') = 'object'
    AND jsonb_typeof(COALESCE(extensions -> 'st/characterFilter' -> 'names', '[]')) = 'array'
    AND jsonb_typeof(COALESCE(extensions -> 'st/characterFilter' -> 'tags', '[]')) = 'array'
    AND jsonb_array_length(COALESCE(extensions -> 'st/characterFilter' -> 'names', '[]')) <= 100
    AND jsonb_array_length(COALESCE(extensions -> 'st/characterFilter' -> 'tags', '[]')) <= 100
    AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(COALESCE(extensions -> 'st/characterFilter' -> 'names', '[]')
            || COALESCE(extensions -> 'st/characterFilter' -> 'tags', '[]')) t
        WHERE jsonb_typeof(t) <> 'string' OR btrim(t #>> '{}') = '' OR char_length(t #>> '{}') > 200);

DROP FUNCTION pg_temp.lift_int(jsonb, text[]);
DROP FUNCTION pg_temp.lift_bool(jsonb, text[]);
