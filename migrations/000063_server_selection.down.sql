-- 000063_server_selection (down): drops exactly what the up file adds.
-- loses: column servers.min_activations unless 0
-- loses: column servers.min_activations_depth_max unless 0
-- loses: column servers.max_entries unless 0
-- loses: column servers.include_names unless false
ALTER TABLE servers
    DROP COLUMN min_activations,
    DROP COLUMN min_activations_depth_max,
    DROP COLUMN max_entries,
    DROP COLUMN include_names;
