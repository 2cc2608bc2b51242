-- 000020_lore_notify: every change of servers.lore_version (every lore,
-- collection, persona-book and settings write increments it in its own
-- transaction) and every server deletion sends a notification on channel
-- loregate_lore with payload '<server id>:<new lore_version>' ('<server id>:'
-- for a deletion). Postgres delivers it when the writing transaction
-- commits, so every replica's scope cache can drop that server's scopes
-- (docs/operations.md "Scope cache").
CREATE FUNCTION loregate_notify_lore() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('loregate_lore', OLD.id::text || ':');
        RETURN OLD;
    END IF;
    PERFORM pg_notify('loregate_lore', NEW.id::text || ':' || NEW.lore_version::text);
    RETURN NEW;
END
$$;

CREATE TRIGGER servers_lore_version_notify
    AFTER UPDATE OF lore_version ON servers
    FOR EACH ROW WHEN (OLD.lore_version IS DISTINCT FROM NEW.lore_version)
    EXECUTE FUNCTION loregate_notify_lore();

CREATE TRIGGER servers_delete_notify
    AFTER DELETE ON servers
    FOR EACH ROW
    EXECUTE FUNCTION loregate_notify_lore();
