-- 000071_proposals: entry proposals members make and managers review, and
-- the workbench's server settings (issue 29, docs/workbench.md#proposals).
-- lore/postgres (proposal.go) reads and writes both.
--
-- A proposal creates, changes or deletes one entry. base is the entry as
-- it was when proposed (update, delete) and proposed the entry as the
-- proposer wants it (create, update), both lore.Entry JSON; an approval
-- writes through the store's entry writes under the server lock and
-- checks base's updated_at against the entry's. Rows go with their server.
CREATE TABLE entry_proposals (
    id            bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    server_id     snowflake   NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
    -- the proposing member's Discord user id.
    proposer      text        NOT NULL CHECK (char_length(proposer) <= 40),
    kind          text        NOT NULL CHECK (kind IN ('create', 'update', 'delete')),
    state         text        NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'approved', 'rejected', 'withdrawn')),
    lineage_id    bigint,
    lorebook_name text,
    -- the entry changed or deleted; for an approved create, the entry made.
    entry_id      bigint,
    base          jsonb,
    proposed      jsonb,
    note          text        NOT NULL DEFAULT '' CHECK (char_length(note) <= 1000),
    reviewer      text        NOT NULL DEFAULT '' CHECK (char_length(reviewer) <= 200),
    review_note   text        NOT NULL DEFAULT '' CHECK (char_length(review_note) <= 1000),
    created_at    timestamptz NOT NULL DEFAULT now(),
    reviewed_at   timestamptz
);

CREATE INDEX entry_proposals_server_idx ON entry_proposals (server_id, state, id DESC);
CREATE INDEX entry_proposals_proposer_idx ON entry_proposals (server_id, proposer, id DESC);

-- workbench_settings: per server, absent = the defaults (proposals on, no
-- notice channel, no lore editor role).
CREATE TABLE workbench_settings (
    server_id           snowflake   PRIMARY KEY REFERENCES servers (id) ON DELETE CASCADE,
    proposals_enabled   boolean     NOT NULL DEFAULT true,
    -- the channel the bot posts "a proposal arrived" notices in.
    proposal_channel_id snowflake,
    -- members with this Discord role may write lore (not server settings).
    lore_editor_role_id snowflake,
    updated_at          timestamptz NOT NULL DEFAULT now()
);
