DROP TABLE workbench_settings;
DROP TABLE entry_proposals;
