-- 000068_book_semantic_all (down): drops exactly what the up file adds.
-- loses: column lorebooks.semantic_all_entries unless NULL
-- loses: column persona_books.semantic_all_entries unless NULL
ALTER TABLE lorebooks DROP COLUMN semantic_all_entries;

ALTER TABLE persona_books DROP COLUMN semantic_all_entries;
