-- 000087_turn_writes_lean (down): the default fillfactor, the primary key
-- on id, the index listing a conversation's turns and the foreign key
-- again. No row is changed: the trigger kept every log row's conversation.
LOCK TABLE turn_conversations, activation_log IN SHARE ROW EXCLUSIVE MODE;
ALTER TABLE turn_conversations RESET (fillfactor);
ALTER TABLE turn_entry_state RESET (fillfactor);

DROP TRIGGER turn_conversations_drop_log ON turn_conversations;
DROP FUNCTION turn_conversations_drop_log();

CREATE UNIQUE INDEX activation_log_id_key ON activation_log (id);
CREATE INDEX activation_log_recent_idx ON activation_log (conversation_id, id DESC);
ALTER TABLE activation_log
    DROP CONSTRAINT activation_log_pkey,
    ADD CONSTRAINT activation_log_pkey PRIMARY KEY USING INDEX activation_log_id_key,
    ADD CONSTRAINT activation_log_conversation_id_fkey FOREIGN KEY (conversation_id)
        REFERENCES turn_conversations (id) ON DELETE CASCADE;
