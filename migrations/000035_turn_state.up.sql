-- 000035_turn_state: per-conversation turn state and the activation log
-- (issue 12, docs/turns.md). lore/postgres (turn.go) is the only code that
-- reads or writes them.
--
-- A conversation is (server, lineage, channel); a thread is its own
-- conversation. Counts are chat message counts, never turns.

-- turn_conversations: one row per conversation that recorded a turn. A
-- recorded turn locks its row (INSERT ... ON CONFLICT DO UPDATE), which
-- serialises the turns of one conversation across replicas.
CREATE TABLE turn_conversations (
    id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    server_id    snowflake   NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
    -- 0 = Serverwide (not NULL, so that the key below is unique).
    lineage_id   bigint      NOT NULL CHECK (lineage_id >= 0),
    channel_id   snowflake   NOT NULL,
    -- the latest recorded turn.
    last_turn_at timestamptz NOT NULL DEFAULT now(),
    created_at   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (server_id, lineage_id, channel_id)
);

-- turn_entry_state: one entry's state in one conversation: its sticky and
-- cooldown windows in message counts ([start, end)) and its first and
-- latest activation. Deleted with the entry (an edited entry keeps it) and
-- with the conversation.
CREATE TABLE turn_entry_state (
    conversation_id    bigint      NOT NULL REFERENCES turn_conversations (id) ON DELETE CASCADE,
    entry_id           bigint      NOT NULL REFERENCES lorebook_entries (id) ON DELETE CASCADE,
    sticky_start       integer,
    sticky_end         integer,
    cooldown_start     integer,
    cooldown_end       integer,
    -- a cooldown opened by a closing sticky window survives a swipe.
    cooldown_protected boolean     NOT NULL DEFAULT false,
    first_count        integer,
    first_at           timestamptz,
    last_count         integer,
    last_at            timestamptz,
    PRIMARY KEY (conversation_id, entry_id),
    CHECK ((sticky_start IS NULL) = (sticky_end IS NULL) AND sticky_start <= sticky_end),
    CHECK ((cooldown_start IS NULL) = (cooldown_end IS NULL) AND cooldown_start <= cooldown_end),
    CHECK ((first_at IS NULL) = (first_count IS NULL) AND (last_at IS NULL) = (last_count IS NULL))
);

-- Serves the entry FK cascade and an entry's latest activation over every
-- conversation.
CREATE INDEX turn_entry_state_entry_idx ON turn_entry_state (entry_id);

-- activation_log: one row per recorded turn: which entries entered it, with
-- their group, placement, recursion pass and budget share, and the budget.
-- No message text. (conversation_id, turn_id) is unique: a retry of a turn
-- returns response, the result recorded the first time; input_sha256 tells
-- a retry from a different input under a used id. Pruned by age and by a
-- row count per conversation (the periodic activation-log job).
CREATE TABLE activation_log (
    id              bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    conversation_id bigint      NOT NULL REFERENCES turn_conversations (id) ON DELETE CASCADE,
    turn_id         text        NOT NULL CHECK (btrim(turn_id) <> '' AND char_length(turn_id) <= 128),
    input_sha256    text        NOT NULL CHECK (input_sha256 ~ '^[0-9a-f]{64}$'),
    message_count   integer     NOT NULL CHECK (message_count >= 0),
    -- [{id, group, placement, pass, cost}], in insertion order.
    admitted        jsonb       NOT NULL CHECK (jsonb_typeof(admitted) = 'array'),
    budget_unit     text        NOT NULL,
    budget_limit    integer     NOT NULL,
    budget_used     integer     NOT NULL,
    -- the API result returned to retries of the same turn.
    response        jsonb       NOT NULL CHECK (jsonb_typeof(response) = 'object'),
    created_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (conversation_id, turn_id)
);

CREATE INDEX activation_log_recent_idx ON activation_log (conversation_id, id DESC);
CREATE INDEX activation_log_created_idx ON activation_log (created_at);
