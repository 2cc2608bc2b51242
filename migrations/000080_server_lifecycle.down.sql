-- 000080_server_lifecycle (down): servers no longer record that the bot left
-- them (left servers are members again, kept forever) and the life cycle
-- record is dropped.
-- loses: column servers.left_at unless NULL
DROP TABLE server_lifecycle_events;
ALTER TABLE servers DROP COLUMN left_at;
