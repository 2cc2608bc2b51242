-- 000087_turn_writes_lean: less work for Postgres per recorded turn
-- (docs/benchmarks.md#turn-commit-postgres). Every turn updates its
-- conversation's row and the state rows of the entries it admits, and
-- inserts a log row.
--
-- * turn_conversations and turn_entry_state leave room in their pages
--   (fillfactor): the row versions a turn writes stay in the page (HOT), and
--   Postgres prunes a page's dead versions once its free space falls under
--   the room kept, so looking a row up walks a short chain of versions, not
--   up to a page of them. A conversation's row is about 110 bytes, 1 KB
--   with the room kept; its state rows about 100 bytes each, twice that.
-- * activation_log's primary key is (conversation_id, id), which also lists
--   a conversation's turns newest first: the index on (conversation_id, id
--   DESC) goes, one index entry fewer per turn.
-- * A log row's conversation is no longer checked by a foreign key (a
--   lookup and a row lock of the conversation per turn): the only writer
--   inserts it in the statement that updates, so locks, the conversation's
--   row (lore/postgres turn.go), and a trigger deletes the log rows of the
--   conversations deleted, as the key's ON DELETE CASCADE did.
--
-- Locks (docs/operations.md): turn_conversations and activation_log in
-- SHARE ROW EXCLUSIVE first, so recorded turns wait for the migration
-- (reads of the log do not) and none holds a lock it needs later; then
-- ACCESS EXCLUSIVE on activation_log, briefly, to swap the keys.
LOCK TABLE turn_conversations, activation_log IN SHARE ROW EXCLUSIVE MODE;
ALTER TABLE turn_conversations SET (fillfactor = 10);
ALTER TABLE turn_entry_state SET (fillfactor = 50);

CREATE UNIQUE INDEX activation_log_conversation_id_id_key ON activation_log (conversation_id, id);
ALTER TABLE activation_log
    DROP CONSTRAINT activation_log_pkey,
    ADD CONSTRAINT activation_log_pkey PRIMARY KEY USING INDEX activation_log_conversation_id_id_key,
    DROP CONSTRAINT activation_log_conversation_id_fkey;
DROP INDEX activation_log_recent_idx;

-- turn_conversations_drop_log: the log rows of the conversations a
-- statement deleted (a server's deletion cascades to its conversations).
CREATE FUNCTION turn_conversations_drop_log() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM activation_log l USING gone g WHERE l.conversation_id = g.id;
    RETURN NULL;
END
$$;
CREATE TRIGGER turn_conversations_drop_log AFTER DELETE ON turn_conversations
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION turn_conversations_drop_log();
