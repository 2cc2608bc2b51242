-- 000010_jobs (down): drops exactly what 000010_jobs.up.sql creates. Pending
-- uploads, downloadable backups and job reports are lost; lore is untouched.
DROP TABLE job_reports;
DROP TABLE job_artifacts;
DROP TABLE job_blobs;
