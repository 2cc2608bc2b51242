-- The card's character texts kept on personas are lost; importing the card
-- again restores them.
-- loses: column personas.card_context unless NULL
ALTER TABLE personas DROP COLUMN card_context;
