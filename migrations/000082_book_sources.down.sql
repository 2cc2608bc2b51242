-- 000082_book_sources (down): the kept book-level source fields are
-- dropped; exports through the API then write only what the store's
-- columns hold (a book's `_meta`, `originalData`, description and foreign
-- book fields are lost).
-- loses: rows book_sources where true
DROP TABLE book_sources;
