-- 000045_dashboard_concurrency (down): drops exactly what
-- 000045_dashboard_concurrency.up.sql creates and restores the trigger
-- function of 000001_lore.
-- no loss: column servers.settings_updated_at (a version stamp, not data)
ALTER TABLE servers DROP COLUMN settings_updated_at;

CREATE OR REPLACE FUNCTION lore_set_updated_at() RETURNS trigger
    LANGUAGE plpgsql AS
$$
BEGIN
    NEW.updated_at := now();
    RETURN NEW;
END;
$$;
