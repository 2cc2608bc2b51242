-- 000062_book_budget_share (down): drops exactly what the up file adds.
-- loses: column lorebooks.max_budget_share unless NULL
-- loses: column persona_books.max_budget_share unless NULL
ALTER TABLE lorebooks DROP COLUMN max_budget_share;

ALTER TABLE persona_books DROP COLUMN max_budget_share;
