-- 000089_turn_cached_state (down): the default TOAST target again (rows
-- already written stay as they are and read the same), and no state
-- version: a process keeping a conversation's state must not run then.
-- no loss: column turn_conversations.version (a count of state writes, no data)
ALTER TABLE activation_log RESET (toast_tuple_target);
ALTER TABLE turn_conversations DROP COLUMN version;
