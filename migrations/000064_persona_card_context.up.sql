-- 000064_persona_card_context: importPersonaCard keeps the card's character
-- on the persona (name, tags, description, personality, scenario, creator
-- notes, depth prompt; docs/authoring.md "Context sources"), so a request
-- with that persona's lineage and no context.character gets it. NULL: the
-- persona has no imported card (or one imported before this migration).
ALTER TABLE personas ADD COLUMN card_context jsonb
    CHECK (card_context IS NULL OR jsonb_typeof(card_context) = 'object');
