// Package turn is the one home of a chat turn: preparing the engine's
// options and input from the server, book and request layers (Prepare), a
// dry run (DryRun: the activate and assemblePrompt queries, `loregate
// activate`) and a recorded run (Record: the activateTurn mutation,
// `loregate activate --turn-id`), whose Outcome says when it was a replay.
// The GraphQL resolvers (graph/activate.go, graph/turn.go) and the CLI
// (cmd/internal/activatecmd) both call it; they keep only their I/O: the
// API its authorisation, scope caches and model, the CLI its files.
//
// # Layers
//
// The engine's server layer (activation.Options) starts from the server's
// settings (regex keys, budget unit and limit, channel scoping), then the
// request's Overrides replace what they set. Book settings travel in the
// engine input and win over both (docs/contract.md#settings-layers,
// docs/authoring.md). The API checks overrides against the deployment's
// ranges (APIBounds: those of the server and book settings); the offline
// CLI only against the safety ceilings (OfflineBounds: a negative budget
// is no limit).
//
// # Adding an activation override
//
// An override is added in one place, this package, plus its line of the
// schema:
//
//  1. a pointer field of Overrides, with its doc comment, a json tag (the
//     field of the GraphQL input ActivationOverrides) with ",omitempty" (so
//     a request without it hashes as before: a recorded turn's retry is
//     told by that hash; TestTurnInputEncodingStable in graph), a flag tag
//     (the `loregate activate` flag; omit it for an API-only override) and
//     a usage tag (the flag's help);
//  2. its rule in Overrides.apply: check the value against the Bounds and
//     set the engine option;
//  3. the field in the `input ActivationOverrides` of graph/activation.graphqls
//     and `make generate`.
//
// gqlgen binds ActivationOverrides to Overrides, so the API decodes the new
// field with no resolver change (`make generate` fails while the schema and
// the struct disagree); the CLI registers a flag for every tagged field
// (Flags), so it needs no change either. TestOverridesEverywhere checks
// that every field is in the schema and has a rule.
package turn
