-- 000013_server_budget: the server-wide budget unit, limit and tokenizer
-- (lore.ServerSettings; docs/configuration.md "Server settings"). Existing
-- servers keep seed 000's character budget of 8,000 (budget_limit NULL =
-- the unit's default).

ALTER TABLE servers
    ADD COLUMN budget_unit  text    NOT NULL DEFAULT 'characters' CHECK (budget_unit IN ('characters', 'tokens')),
    ADD COLUMN budget_limit integer CHECK (budget_limit BETWEEN 1 AND 2000000),
    ADD COLUMN tokenizer    text    NOT NULL DEFAULT 'o200k_base' CHECK (tokenizer IN ('o200k_base', 'cl100k_base')),
    -- seed 001's token range applies to token budgets.
    ADD CONSTRAINT servers_budget_limit_unit_check
        CHECK (budget_unit = 'characters' OR budget_limit IS NULL OR budget_limit BETWEEN 100 AND 32000);
