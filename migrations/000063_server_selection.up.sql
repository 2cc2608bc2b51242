-- 000063_server_selection: the server's selection controls
-- (lore.Selection, docs/authoring.md "Selection controls"). The defaults
-- change nothing: no min activations, no entry cap, names not scanned.

ALTER TABLE servers
    ADD COLUMN min_activations           integer NOT NULL DEFAULT 0 CHECK (min_activations BETWEEN 0 AND 1000),
    ADD COLUMN min_activations_depth_max integer NOT NULL DEFAULT 0 CHECK (min_activations_depth_max BETWEEN 0 AND 1000),
    ADD COLUMN max_entries               integer NOT NULL DEFAULT 0 CHECK (max_entries BETWEEN 0 AND 1000),
    ADD COLUMN include_names             boolean NOT NULL DEFAULT false;
