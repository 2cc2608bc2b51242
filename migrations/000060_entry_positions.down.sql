-- 000060_entry_positions (down): drops the position, filter and match
-- columns. The values go back into extensions under their world info
-- names, so a later up (or an export) still finds them; the placement
-- column already holds the derived placement.
-- no loss: rows lorebook_entries (the UPDATE copies the values into extensions)
-- no loss: column lorebook_entries.position (kept in extensions)
-- no loss: column lorebook_entries.depth (kept in extensions)
-- no loss: column lorebook_entries.outlet (kept in extensions)
-- no loss: column lorebook_entries.match_character_description (kept in extensions)
-- no loss: column lorebook_entries.match_character_personality (kept in extensions)
-- no loss: column lorebook_entries.match_scenario (kept in extensions)
-- no loss: column lorebook_entries.match_creator_notes (kept in extensions)
-- no loss: column lorebook_entries.match_character_depth_prompt (kept in extensions)
-- no loss: column lorebook_entries.match_persona_description (kept in extensions)
-- no loss: column lorebook_entries.character_names (kept in extensions)
-- no loss: column lorebook_entries.character_tags (kept in extensions)
-- no loss: column lorebook_entries.character_exclude (kept in extensions)
-- no loss: column lorebook_entries.generation_types (kept in extensions)
UPDATE lorebook_entries SET extensions = extensions
    || CASE WHEN position IN ('BEFORE_CHAR', 'AFTER_CHAR') THEN '{}'::jsonb ELSE jsonb_build_object('st/position',
        array_position(ARRAY['BEFORE_CHAR', 'AFTER_CHAR', 'AN_TOP', 'AN_BOTTOM', 'AT_DEPTH', 'EM_TOP', 'EM_BOTTOM', 'OUTLET'], position) - 1) END
    || CASE WHEN depth = 4 THEN '{}'::jsonb ELSE jsonb_build_object('st/depth', depth) END
    || CASE WHEN outlet = '' THEN '{}'::jsonb ELSE jsonb_build_object('st/outletName', outlet) END
    || CASE WHEN cardinality(generation_types) = 0 THEN '{}'::jsonb ELSE jsonb_build_object('st/triggers', to_jsonb(generation_types)) END
    || CASE WHEN cardinality(character_names) + cardinality(character_tags) = 0 THEN '{}'::jsonb
        ELSE jsonb_build_object('st/characterFilter', jsonb_build_object('isExclude', character_exclude,
            'names', to_jsonb(character_names), 'tags', to_jsonb(character_tags))) END
    || jsonb_strip_nulls(jsonb_build_object(
        'st/matchCharacterDescription', CASE WHEN match_character_description THEN true END,
        'st/matchCharacterPersonality', CASE WHEN match_character_personality THEN true END,
        'st/matchScenario', CASE WHEN match_scenario THEN true END,
        'st/matchCreatorNotes', CASE WHEN match_creator_notes THEN true END,
        'st/matchCharacterDepthPrompt', CASE WHEN match_character_depth_prompt THEN true END,
        'st/matchPersonaDescription', CASE WHEN match_persona_description THEN true END));

ALTER TABLE lorebook_entries
    DROP COLUMN position,
    DROP COLUMN depth,
    DROP COLUMN outlet,
    DROP COLUMN match_character_description,
    DROP COLUMN match_character_personality,
    DROP COLUMN match_scenario,
    DROP COLUMN match_creator_notes,
    DROP COLUMN match_character_depth_prompt,
    DROP COLUMN match_persona_description,
    DROP COLUMN character_names,
    DROP COLUMN character_tags,
    DROP COLUMN character_exclude,
    DROP COLUMN generation_types;
