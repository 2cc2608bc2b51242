-- 000062_book_budget_share: a book's own share of the turn's shared budget
-- (lore.BookSettings.MaxBudgetShare, docs/authoring.md "Selection
-- controls"), a percent 1-100; NULL = no share of its own.

ALTER TABLE lorebooks
    ADD COLUMN max_budget_share integer CHECK (max_budget_share BETWEEN 1 AND 100);

ALTER TABLE persona_books
    ADD COLUMN max_budget_share integer CHECK (max_budget_share BETWEEN 1 AND 100);
