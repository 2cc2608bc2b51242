-- 000013_server_budget (down): drops exactly what 000013_server_budget.up.sql
-- adds; servers go back to the fixed character budget.
ALTER TABLE servers
    DROP CONSTRAINT servers_budget_limit_unit_check,
    DROP COLUMN budget_unit,
    DROP COLUMN budget_limit,
    DROP COLUMN tokenizer;
