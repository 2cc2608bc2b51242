-- 000016_book_cards (down): drops the kept cards and the card export
-- artifacts.
-- loses: rows job_artifacts where kind = 'card_export' OR job_id IS NULL
DELETE FROM job_artifacts WHERE kind = 'card_export' OR job_id IS NULL;
ALTER TABLE job_artifacts DROP CONSTRAINT job_artifacts_kind_check;
ALTER TABLE job_artifacts ADD CONSTRAINT job_artifacts_kind_check CHECK (kind IN ('backup'));
ALTER TABLE job_artifacts ALTER COLUMN job_id SET NOT NULL;
DROP TABLE book_cards;
