-- 000068_book_semantic_all: a book's own semanticAllEntries
-- (lore.BookSettings.SemanticAllEntries, docs/contract.md#semantic): true
-- makes every entry of the book a candidate of retrieval by meaning;
-- NULL = the server's and the request's setting decide.

ALTER TABLE lorebooks ADD COLUMN semantic_all_entries boolean;

ALTER TABLE persona_books ADD COLUMN semantic_all_entries boolean;
