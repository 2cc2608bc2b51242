-- 000066_server_semantic: a server's settings of retrieval by meaning
-- (lore.SemanticSettings as JSON: ranker, allEntries, maxEntries,
-- threshold, queryMessages; docs/contract.md#semantic). '{}' is every
-- default: the AUTO ranker, vectorized entries only, 5 entries, threshold
-- 0.25, the last 2 messages.
ALTER TABLE servers ADD COLUMN semantic jsonb NOT NULL DEFAULT '{}'
    CHECK (jsonb_typeof(semantic) = 'object' AND octet_length(semantic::text) <= 1024);
