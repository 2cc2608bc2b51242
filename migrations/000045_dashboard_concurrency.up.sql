-- 000045_dashboard_concurrency: updated_at as an optimistic-concurrency
-- token (docs/api.md "Conflicts"), and the server settings' own time.
--
-- Every update now moves updated_at strictly forward: the wall clock at the
-- moment of the write (clock_timestamp(), not the transaction's start, so a
-- writer that waited for the server-row lock is not stamped before the
-- writer it waited for) and at least one microsecond past the previous
-- value. Two updates of one row never leave the same updated_at, so a
-- client's expectedUpdatedAt matches only the version it read.
CREATE OR REPLACE FUNCTION lore_set_updated_at() RETURNS trigger
    LANGUAGE plpgsql AS
$$
BEGIN
    NEW.updated_at := GREATEST(clock_timestamp(), OLD.updated_at + interval '1 microsecond');
    RETURN NEW;
END;
$$;

-- servers.updated_at moves with every lore write (lore_version); the
-- settings have their own time, changed only by a settings write.
ALTER TABLE servers ADD COLUMN settings_updated_at timestamptz NOT NULL DEFAULT now();
