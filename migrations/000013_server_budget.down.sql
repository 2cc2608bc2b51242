-- 000013_server_budget (down): drops exactly what 000013_server_budget.up.sql
-- adds; servers go back to the fixed character budget.
-- loses: column servers.budget_unit unless 'characters'
-- loses: column servers.budget_limit unless NULL
-- loses: column servers.tokenizer unless 'o200k_base'
ALTER TABLE servers
    DROP CONSTRAINT servers_budget_limit_unit_check,
    DROP COLUMN budget_unit,
    DROP COLUMN budget_limit,
    DROP COLUMN tokenizer;
