// Package activation is loregate's pure activation engine: per chat turn it
// decides which lorebook entries enter the prompt, in which group and
// placement, and why every other entry did not. It does no I/O, never
// mutates its inputs, takes randomness through [Options.Random], and stops
// with the context's error when the context ends.
//
// The contract is docs/contract.md#activation and docs/contract.md#prompt;
// SillyTavern's world info behaviour (docs/authoring.md) settles what
// TomoriBot's contract leaves open. [Matcher.Activate] lists the rules in order.
//
// # Entry points
//
// [Activate] compiles and runs one turn. [Compile] builds a [Matcher] once
// for a set of entries; [Cache] keeps Matchers per (server, lineage,
// lore version) so a repeated turn does not rebuild them. [ResolveIdentity]
// is the identity-macro rule the engine applies to admitted content.
//
// # Matching
//
// Keys and message text are normalised with NFKC and, unless the key is
// case-sensitive, Unicode full case folding followed by NFKC again (fold,
// not lowercase: "ς" matches "Σ", "ß" matches "ss"). Keys are not trimmed:
// the importer decides what surrounding spaces mean (case BUG-08b); blank
// keys never match.
//
// Word boundaries (docs/contract.md#matching): a key edge that is a Latin, Cyrillic
// or Greek letter or a decimal digit needs a boundary there, meaning the
// neighbouring text character is not such a letter or digit, not a
// combining mark and not a supplementary-plane letter. Han, Kana, Hangul,
// Thai, punctuation and space are boundaries. Edges of other kinds need
// none, so CJK keys and keys like "#hello" or "C++" match as substrings at
// those edges. An entry's WholeWords false (or [Options.Substring]) makes
// every edge a substring edge.
//
// The engine inserts a marker byte (0xFF, never valid UTF-8) into the
// normalised text at every position where a word character meets a
// non-joiner, and into each key the same way (whole-word keys also at their
// word-character edges). A key then occurs in the marked text exactly where
// a match obeying the boundary rule exists, so one Aho-Corasick pass finds
// every key of every entry with no per-match checks. Each message is
// scanned separately from the root state, so matches never cross message
// boundaries. The window scanned is the newest N messages where N is the
// largest scan depth among the entries still in play; for every key the
// engine records only the newest message it occurred in, and an entry of
// depth d accepts it when that message is among the newest d. Marking a
// key as seen stops the walk of its output chain, so overlapping keys cost
// nothing extra and a turn is linear in the text plus the number of keys.
// ASCII messages take a fused path (fold, mark and classify in one pass).
//
// Regex keys (when [Options.RegexKeys]): a key shaped /pattern/flags is an
// RE2 expression (Go regexp, linear time, safe for untrusted keys). Flags
// i, m and s are honoured, g, y and u ignored. It is tested against each
// raw message separately (newest first, within the entry's depth); case
// and whole-word rules do not apply (use the i flag), as in SillyTavern. A
// pattern RE2 cannot compile (lookaround, backreferences) or longer than
// [MaxRegexLen] never matches and its error appears in the trace detail.
//
// # Model II
//
// [Matcher.Activate] lists the rules. Settings come in layers (server or
// request [Options], book settings, entry fields, decorator lines; the most
// specific set value wins). A turn runs in passes: pass 1 scans the chat;
// with recursion on, later passes scan the content admitted so far, only
// the new text each time, remembering earlier hits. Inclusion groups keep
// one member per group; the budget (UTF-16 units or tokens from a
// [Tokenizer], counts cached with the Matcher) is spent pass by pass in
// priority order, skipping entries that do not fit. Decorator lines at the
// start of content (package lore/decorator) act at run time and are never
// sent to the model. Keys holding {{user}}, {{char}} or {{bot}} are
// resolved per turn with the names of [Options] (the Matcher keeps them
// apart, so one compiled scope serves every set of names). Turn state
// (sticky and cooldown windows, match latches: [EntryState]) is the
// caller's; [Admitted.State] says what an admitted entry opens.
// docs/authoring.md explains all of it for book authors.
//
// Regex evaluation happens in one place (turnScan.matchRegex), which spends
// the per-turn [RegexBudget]; an entry whose keys could not be decided
// within it gets [VerdictRegexBudgetExhausted].
package activation
