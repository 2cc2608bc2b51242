-- 000066_server_semantic (down): servers forget their settings of retrieval
-- by meaning and turns use the defaults again.
-- loses: column servers.semantic unless '{}'
ALTER TABLE servers DROP COLUMN semantic;
