-- 000073_book_organisation (down): categories, entries' categories and
-- creator notes, and books' descriptions and tags written by hand are dropped (a
-- book's file description stays in book_sources); the entries stay.
-- loses: rows book_categories where true
-- loses: column lorebook_entries.note unless ''
-- loses: column lorebook_entries.category_id unless NULL
-- loses: rows book_info where true
DROP TRIGGER lorebook_entries_category_update ON lorebook_entries;
DROP TRIGGER lorebook_entries_category_insert ON lorebook_entries;
DROP FUNCTION lore_entry_category_check();
DROP TABLE book_info;
ALTER TABLE lorebook_entries DROP COLUMN note, DROP COLUMN category_id;
DROP TABLE book_categories;
