DROP TABLE IF EXISTS dashboard_sessions;
