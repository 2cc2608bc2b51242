-- 000089_turn_cached_state: recorded turns in one round trip
-- (docs/turns.md#cached-state).
--
-- turn_conversations.version counts the writes of a conversation's state:
-- every recorded turn and every reset adds one. A process that recorded the
-- conversation's last turn keeps its state and version, runs the next turn
-- on them and commits only where the version (and the server's
-- lore_version) is still the one it kept; otherwise it writes nothing and
-- runs the turn again under the conversation's lock.
ALTER TABLE turn_conversations ADD COLUMN version bigint NOT NULL DEFAULT 0;

-- A recorded turn's log row stays in its heap page once compressed
-- (toast_tuple_target 4096 instead of about 2 KB): the result of a
-- 250-entry turn compresses to about 1.9 KB, which with the row's other
-- columns was just over the default, so every turn also wrote the value
-- into the TOAST table and its index
-- (docs/benchmarks.md#bytes-and-wal-per-recorded-turn). Rows under 4 KB are
-- no longer compressed.
ALTER TABLE activation_log SET (toast_tuple_target = 4096);
