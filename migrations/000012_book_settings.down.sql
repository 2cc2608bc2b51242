-- 000012_book_settings (down): drops exactly what 000012_book_settings.up.sql
-- creates. Book settings are lost; entries are untouched.
-- loses: column lorebooks.scan_depth unless NULL
-- loses: column lorebooks.budget_limit unless NULL
-- loses: column lorebooks.recursive unless NULL
-- loses: column lorebooks.max_recursion_steps unless NULL
-- loses: column lorebooks.case_sensitive unless NULL
-- loses: column lorebooks.whole_words unless NULL
DROP TABLE persona_books;

ALTER TABLE lorebooks
    DROP COLUMN scan_depth,
    DROP COLUMN budget_limit,
    DROP COLUMN recursive,
    DROP COLUMN max_recursion_steps,
    DROP COLUMN case_sensitive,
    DROP COLUMN whole_words;
