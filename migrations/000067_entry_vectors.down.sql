-- 000067_entry_vectors (down): the stored embeddings are dropped; they are
-- derived data, computed again by the embed job after an upgrade.
DROP TABLE entry_vectors;
