package postgres

// LoadEnabledSQL exposes the per-turn statement to the external tests, which
// EXPLAIN exactly the production SQL.
const LoadEnabledSQL = entryLoadEnabled
