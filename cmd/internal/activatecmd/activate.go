// Package activatecmd implements `loregate activate`, the offline
// activation tool (issue 4):
//
//	loregate activate --book PATH [--book PATH ...] --chat PATH [--scan-depth N]
//	    [--whole-words=true|false] [--case-sensitive] [--budget N | --budget-tokens N]
//	    [--tokenizer o200k_base|cl100k_base] [--recursive] [--max-recursion-steps N]
//	    [--message-count N] [--regex-keys=true|false] [--state PATH [--turn-id ID]]
//	    [--random R | --seed S] [--user NAME] [--char NAME] [--format json|text]
//	    [--generation-type normal|continue|impersonate|swipe|regenerate|quiet]
//	    [--context FILE] [--include-names] [--min-activations N]
//	    [--min-activations-depth-max N] [--max-entries N]
//	    [--ranker auto|embeddings|lexical|off] [--embeddings-url URL --embeddings-model NAME]
//	    [--semantic-all] [--semantic-max-entries N] [--semantic-threshold F]
//	    [--semantic-query-messages N] [--semantic-budget-share F]
//
// Every --book goes through lore/format (any detected format). The books
// are scanned together as one Serverwide set: each book becomes an enabled
// collection named after the book (made unique with " (2)", " (3)"...), and
// entries get ids 1..N in book order. --chat is a JSON array, oldest first,
// of strings or of objects with name, role and content (only content is
// scanned, as "name: content" with --include-names); "-" reads stdin.
// --context FILE is a JSON object {"character": {"name", "tags",
// "description", "personality", "scenario", "creatorNotes",
// "depthPrompt"}, "persona": {"name", "description"}} (every field
// optional): character filters read the character's name and tags, match
// flags scan the texts (docs/authoring.md "Context sources");
// --generation-type (default normal) gates entries' generation types.
// --min-activations, --min-activations-depth-max and --max-entries are
// the selection controls (docs/authoring.md "Selection controls").
// --ranker and the --semantic-* flags set retrieval by meaning
// (docs/contract.md#semantic): without a provider vectorized entries are
// ranked by the built-in lexical ranker, offline; --embeddings-url and
// --embeddings-model (together; LOREGATE_EMBEDDINGS_API_KEY from the
// environment when set) name an OpenAI-compatible provider the
// candidates' texts and the query are sent to, as serve's turns rank.
// Engine options: --scan-depth (default
// activation.DefaultScanDepth), --whole-words (default true),
// --case-sensitive, --budget (UTF-16 code units, default
// activation.DefaultCharBudget, negative = unlimited, 0 refused) or
// --budget-tokens (a token budget, > 0, counted with --tokenizer, default
// o200k_base; exclusive with --budget), --recursive (recursive scanning)
// and --max-recursion-steps (passes including the first, 0 = the engine's
// cap; it does not turn recursion on), --message-count (messages in the
// conversation, default the chat's length), --random (every draw returns
// R, in [0, 1)) or --seed (a PCG source; without either, draws are
// random), --user and --char (identity macro names; {{bot}} is --char),
// --regex-keys (default true: /pattern/flags keys are RE2 expressions, as
// a book's author tries it; false mimics a new server; --regex is an alias).
// These flags are the server layer of docs/authoring.md: settings a book
// file carries (scan depth, budget limit, recursion, case and whole-word
// defaults) win over them. The budget unit is the flags' (characters unless
// --budget-tokens); without --budget or --budget-tokens, a book with a token
// budget makes it tokens, and a book budget in the other unit is not used
// (a warning on stderr says so). --state PATH reads a conversation's turn
// state (timed effects, match decorators; docs/turns.md) from a JSON file
// (missing = empty) so books with timed effects can be tried offline;
// with --turn-id ID the turn is recorded in it as activateTurn records one
// (the file is rewritten; chance rolls are seeded from ID unless --random
// or --seed is given; a used ID is refused). Without --turn-id the state is
// only read (a dry run).
//
// Output (--format json, the default) is one JSON object:
//
//	{"admitted":[{"id","title","placement","group","content","tokens","pass","triggeredBy",
//	              "position":{"kind","depth","role","outlet"}}],
//	 "injections":[{"kind","depth","role","outlet","text","entryIds"}],
//	 "outlets":[{"name","text"}],
//	 "blocks":[{"tag","role","text","entries":[{"id","title","content","role"}]}],
//	 "budget":{"unit","limit","used","byBook":[{"collection","used","entries","limit"}]},
//	 "passes":N,
//	 "trace":[{"id","title","verdict","detail","reason","params","pass","triggeredBy"}]}
//
// tokens is the admitted content's token count with --tokenizer;
// triggeredBy is the id of the entry whose content activated this one in a
// recursive pass, or null. position always has its four keys: kind as the
// GraphQL enum (AT_DEPTH), depth and role (lower case) null unless
// AT_DEPTH, outlet null unless OUTLET; injections group the admitted
// entries of the kinds that leave the two blocks (docs/api.md
// "Positions"). The object has the GraphQL Activation's field names but
// storeUnavailable and notices, which come from a server's store and its
// persona registry; the command reads a book file.
//
// --format text prints the same for people. Exit status: 0 on success, 2 on
// bad arguments or bad input (one line on stderr), 1 when the output cannot
// be written.
package activatecmd

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"loregate/cmd/internal/cli"
	"loregate/lore"
	"loregate/lore/activation"
	"loregate/lore/format"
	"loregate/lore/prompt"
	"loregate/lore/tokens"
	"loregate/lore/turn"
	"loregate/lore/turnstate"
)

// maxInput caps the bytes read from one --book or --chat file (the largest
// carrier limit of format.Options defaults, CHARX, 64 MiB).
const maxInput = 64 << 20

const usage = "usage: loregate activate --book PATH [--book PATH ...] --chat PATH [--scan-depth N] " +
	"[--whole-words=true|false] [--case-sensitive] [--budget N | --budget-tokens N] " +
	"[--tokenizer o200k_base|cl100k_base] [--recursive] [--max-recursion-steps N] [--message-count N] " +
	"[--regex-keys=true|false] [--state PATH [--turn-id ID]] [--random R | --seed S] [--user NAME] [--char NAME] [--format json|text] " +
	"[--generation-type normal|continue|impersonate|swipe|regenerate|quiet] [--context FILE] [--include-names] " +
	"[--min-activations N] [--min-activations-depth-max N] [--max-entries N] " +
	"[--ranker auto|embeddings|lexical|off] [--embeddings-url URL --embeddings-model NAME] [--semantic-all] " +
	"[--semantic-max-entries N] [--semantic-threshold F] [--semantic-query-messages N] [--semantic-budget-share F]"

type bookList []string

func (b *bookList) String() string     { return strings.Join(*b, ",") }
func (b *bookList) Set(s string) error { *b = append(*b, s); return nil }

// errHelp carries the --help text (exit 0).
type errHelp struct{ text string }

func (e errHelp) Error() string { return e.text }

// bad is bad arguments or input (exit 2).
func bad(format string, args ...any) error {
	return cli.Usagef(format, args...)
}

// Run executes the command with args (after "activate") without an
// embeddings API key: a cli.Func (cli.Status gives the exit status: 2 for
// bad arguments or input, 1 when the output cannot be written).
func Run(ctx context.Context, env cli.Env, args []string) error {
	return RunWithKey("")(ctx, env, args)
}

// RunWithKey is Run sending apiKey as the bearer token of the provider
// that --embeddings-url names (cmd/loregate reads it from
// LOREGATE_EMBEDDINGS_API_KEY; docs/configuration.md). The key never
// enters the output or an error.
func RunWithKey(apiKey string) cli.Func {
	return func(ctx context.Context, env cli.Env, args []string) error {
		out, warnings, err := run(ctx, args, env.Stdin, apiKey)
		for _, w := range warnings {
			fmt.Fprintf(env.Stderr, "activate: warning: %s\n", w)
		}
		var help errHelp
		if errors.As(err, &help) {
			fmt.Fprint(env.Stdout, help.text)
			return cli.Exit(0)
		}
		if err != nil {
			return err
		}
		if _, err := env.Stdout.Write(out); err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
		return nil
	}
}

type config struct {
	books  bookList
	chat   string
	format string
	// settings is the server layer: the offline defaults, --regex-keys,
	// and a book's token budget (bookBudgets).
	settings lore.ServerSettings
	// over holds the override flags (lore/turn registers them).
	over         turn.Overrides
	messageCount int
	names        turn.Names
	tokenizer    activation.Tokenizer
	// seed is --seed's draw source (nil without it).
	seed func() float64
	// state and turnID are --state and --turn-id (state.go).
	state, turnID string
	// context is --context's file, generation --generation-type.
	context    string
	generation lore.GenerationType
	// provider is --embeddings-url and --embeddings-model (embeddings.go).
	provider provider
}

// flagOf maps a field of lore/turn's errors to its flag.
func flagOf(field string) string {
	switch field {
	case "messageCount":
		return "message-count"
	case "generationType":
		return "generation-type"
	}
	var o turn.Overrides
	for _, f := range turn.Flags(&o) {
		if f.Field == field {
			return f.Name
		}
	}
	return field
}

// asFlagError turns an *lore.InvalidError of lore/turn or the engine into
// bad arguments or input (exit 2), naming the flag of an override or the
// message count; other errors (writing the state file) are returned as
// they are.
func asFlagError(err error) error {
	var ie *lore.InvalidError
	switch {
	case !errors.As(err, &ie):
		return err
	case strings.HasPrefix(ie.Field, "overrides.") || ie.Field == "messageCount" || ie.Field == "generationType":
		return bad("--%s %s", flagOf(ie.Field), ie.Reason)
	}
	return bad("%v", err)
}

func parseArgs(args []string) (config, error) {
	c := config{settings: lore.ServerSettings{BudgetUnit: lore.BudgetCharacters, BudgetLimit: activation.DefaultCharBudget}}
	fs := flag.NewFlagSet("activate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(&c.books, "book", "lorebook file (repeatable)")
	fs.StringVar(&c.chat, "chat", "", "chat JSON file, - for stdin")
	for _, f := range turn.Flags(&c.over) {
		fs.Var(f.Value, f.Name, f.Usage)
	}
	tokenizer := fs.String("tokenizer", string(lore.TokenizerO200k), "tokenizer: o200k_base or cl100k_base")
	fs.IntVar(&c.messageCount, "message-count", 0, "messages in the conversation (default: the chat's length)")
	fs.StringVar(&c.state, "state", "", "turn-state JSON file: read, and rewritten with --turn-id")
	fs.StringVar(&c.turnID, "turn-id", "", "record this turn in the --state file (chance rolls seeded from it)")
	seed := fs.String("seed", "", "seed of the random source")
	regex := fs.Bool("regex-keys", true, "regex keys: /pattern/flags keys are RE2 expressions")
	fs.BoolVar(regex, "regex", true, "alias of --regex-keys")
	fs.StringVar(&c.names.User, "user", "User", "{{user}} name")
	fs.StringVar(&c.names.Char, "char", "Character", "{{char}} and {{bot}} name")
	fs.StringVar(&c.format, "format", "json", "json or text")
	fs.StringVar(&c.context, "context", "", "context sources JSON file: {\"character\": {...}, \"persona\": {...}}")
	gen := fs.String("generation-type", "normal", "normal, continue, impersonate, swipe, regenerate or quiet")
	fs.StringVar(&c.provider.url, "embeddings-url", "", "base URL of an OpenAI-compatible embeddings provider (with --embeddings-model)")
	fs.StringVar(&c.provider.model, "embeddings-model", "", "embeddings model name (with --embeddings-url)")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		var b strings.Builder
		fs.SetOutput(&b)
		fs.PrintDefaults()
		return c, errHelp{usage + "\n" + b.String()}
	} else if err != nil {
		return c, bad("%v; %s", err, usage)
	}
	if fs.NArg() > 0 {
		return c, bad("unexpected argument %q; %s", fs.Arg(0), usage)
	}
	if len(c.books) == 0 {
		return c, bad("missing --book; %s", usage)
	}
	if c.chat == "" {
		return c, bad("missing --chat; %s", usage)
	}
	if err := c.provider.check(); err != nil {
		return c, err
	}
	if c.format != "json" && c.format != "text" {
		return c, bad("--format %q is not json or text", c.format)
	}
	if c.generation = lore.GenerationType(*gen); !c.generation.Valid() {
		return c, bad("--generation-type %q is not normal, continue, impersonate, swipe, regenerate or quiet", *gen)
	}
	// --scan-depth 0 scans no chat message (case BUG-36).
	if err := c.over.Check(turn.OfflineBounds); err != nil {
		return c, asFlagError(err)
	}
	c.settings.RegexKeys = *regex
	tok, err := tokens.New(lore.TokenizerName(*tokenizer))
	if err != nil {
		return c, bad("--tokenizer %q is not o200k_base or cl100k_base", *tokenizer)
	}
	c.tokenizer = tok
	if c.messageCount < 0 {
		return c, bad("--message-count %d is negative", c.messageCount)
	}
	if c.over.Random != nil && *seed != "" {
		return c, bad("--random and --seed are exclusive")
	}
	if c.turnID != "" && c.state == "" {
		return c, bad("--turn-id needs --state (the file the turn is recorded in)")
	}
	if *seed != "" {
		s, err := strconv.ParseUint(*seed, 10, 64)
		if err != nil {
			return c, bad("--seed %q is not a non-negative integer", *seed)
		}
		c.seed = rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15)).Float64
	}
	return c, nil
}

// request is the request layer of the turn (lore/turn) for msgs, sent
// by speakers, with the context sources cx.
func (c *config) request(msgs, speakers []string, cx *chatContext) turn.Request {
	req := turn.Request{Messages: msgs, Names: c.names, Overrides: c.over, Bounds: turn.OfflineBounds,
		Random: c.seed, Tokenizer: c.tokenizer, Trace: true, // the CLI is a preview: its trace names near misses
		Speakers: speakers, GenerationType: c.generation, Character: cx.Character, Persona: cx.Persona}
	if c.messageCount > 0 {
		n := c.messageCount
		req.MessageCount = &n
	}
	return req
}

func run(ctx context.Context, args []string, stdin io.Reader, apiKey string) ([]byte, []string, error) {
	c, err := parseArgs(args)
	if err != nil {
		return nil, nil, err
	}
	c.provider.apiKey = apiKey
	rankers, err := c.provider.rankers()
	if err != nil {
		return nil, nil, err
	}
	entries, collections, units, err := loadBooks(ctx, c.books)
	if err != nil {
		return nil, nil, err
	}
	warnings := bookBudgets(&c, collections, units)
	msgs, speakers, err := loadChat(c.chat, stdin)
	if err != nil {
		return nil, nil, err
	}
	cx, err := loadContext(c.context)
	if err != nil {
		return nil, nil, err
	}
	var states *stateStore
	if c.state != "" {
		if states, err = readState(c.state); err != nil {
			return nil, nil, err
		}
	}
	t, err := turn.Prepare(lore.Snapshot{Server: lore.Server{Settings: c.settings}, Entries: entries, Collections: collections}, c.request(msgs, speakers, cx))
	if err != nil {
		return nil, nil, asFlagError(err)
	}
	t.Rank(ctx, rankers)
	m := activation.CompileInput(&t.Input, t.Options.MatchOptions())
	var out turn.Outcome
	switch {
	case c.turnID != "":
		out, err = turn.Record(ctx, m, t, states, turnstate.Conversation{}, turn.Recording{TurnID: c.turnID,
			Now: func() time.Time { return time.Now().UTC() }})
	case states != nil:
		out, err = turn.DryRun(ctx, m, t, states, turnstate.Conversation{})
	default:
		out, err = turn.DryRun(ctx, m, t, nil, turnstate.Conversation{})
	}
	if err != nil {
		return nil, nil, asFlagError(err)
	}
	res := out.Result
	blocks := prompt.Blocks(&res)
	if c.format == "text" {
		return renderText(res, blocks), warnings, nil
	}
	data, err := renderJSON(res, blocks, entries)
	return data, warnings, err
}

// bookBudgets reconciles the books' budget limits with the budget unit,
// which is a server setting (the flags): without --budget or
// --budget-tokens, a book whose file sets a token budget makes the budget
// count tokens (a book's own settings win over defaults); a book budget in
// the other unit is not used, and the returned warning says so.
func bookBudgets(c *config, collections map[string]lore.Collection, units map[string]lore.BudgetUnit) []string {
	names := slices.Sorted(maps.Keys(units))
	unitSet := c.over.Budget != nil || c.over.BudgetTokens != nil
	if !unitSet {
		for _, name := range names {
			if l := collections[name].Settings.BudgetLimit; l != nil && units[name] == lore.BudgetTokens && *l > 0 {
				// The server layer counts tokens; the engine takes the
				// highest book limit.
				c.settings.BudgetUnit, c.settings.BudgetLimit = lore.BudgetTokens, *l
				break
			}
		}
	}
	unit := c.settings.Unit()
	switch {
	case c.over.BudgetTokens != nil:
		unit = lore.BudgetTokens
	case c.over.Budget != nil:
		unit = lore.BudgetCharacters
	}
	var warnings []string
	for _, name := range names {
		coll := collections[name]
		if l := coll.Settings.BudgetLimit; l != nil && units[name] != unit {
			warnings = append(warnings, fmt.Sprintf("book %q: its budget limit of %d %s is not used: the budget counts %s (see --budget and --budget-tokens)",
				name, *l, units[name], unit))
			coll.Settings.BudgetLimit = nil
			collections[name] = coll
		}
	}
	return warnings
}

func readFile(path string, stdin io.Reader) ([]byte, error) {
	var r io.Reader
	if path == "-" {
		r = stdin
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxInput {
		return nil, fmt.Errorf("larger than %d bytes", maxInput)
	}
	return data, nil
}

// loadBooks imports every book and gives its entries a Serverwide scope:
// an enabled collection per book, carrying the book's settings from the
// file, and unique ids. units holds the unit of each book's budget limit.
func loadBooks(ctx context.Context, paths []string) (entries []lore.Entry, collections map[string]lore.Collection, units map[string]lore.BudgetUnit, err error) {
	collections, units = map[string]lore.Collection{}, map[string]lore.BudgetUnit{}
	for _, path := range paths {
		if err := ctx.Err(); err != nil {
			return nil, nil, nil, err
		}
		data, err := readFile(path, nil)
		if err != nil {
			return nil, nil, nil, bad("book %s: %v", path, err)
		}
		// The safety ceilings, not the store's limits: any book convert
		// reads is read whole (docs/formats.md "Limits").
		res, err := format.Import(filepath.Base(path), data, format.Options{Limits: lore.CeilingLimits()})
		if err != nil {
			return nil, nil, nil, bad("book %s: %v", path, err)
		}
		name := res.Book.Name
		if strings.TrimSpace(name) == "" {
			name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		}
		unique := name
		for i := 2; ; i++ {
			if _, taken := collections[unique]; !taken {
				break
			}
			unique = name + " (" + strconv.Itoa(i) + ")"
		}
		collections[unique] = lore.Collection{Name: unique, Enabled: true, Settings: res.Book.Settings}
		units[unique] = res.Book.BudgetUnit
		// The engine sees a split entry as one (docs/formats.md "Long
		// entries"), as the service's store read gives it.
		for _, e := range lore.JoinSplit(res.Book.Entries) {
			e = e.Clone()
			e.ID = int64(len(entries) + 1)
			e.Server, e.Lineage, e.Collection = "", lore.Serverwide, unique
			entries = append(entries, e)
		}
	}
	return entries, collections, units, nil
}

// loadChat reads a JSON array of strings or {name, role, content}
// objects: the messages and their speakers (nil when no message has a
// name).
func loadChat(path string, stdin io.Reader) ([]string, []string, error) {
	data, err := readFile(path, stdin)
	if err != nil {
		return nil, nil, bad("chat %s: %v", path, err)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(data, &items); err != nil {
		return nil, nil, bad("chat %s: must be a JSON array of strings or of {name, role, content} objects, oldest first", path)
	}
	msgs := make([]string, len(items))
	var speakers []string
	for i, raw := range items {
		var s string
		if err := json.Unmarshal(raw, &s); err == nil {
			msgs[i] = s
			continue
		}
		var m struct {
			Name    string  `json:"name"`
			Role    string  `json:"role"`
			Content *string `json:"content"`
		}
		if err := json.Unmarshal(raw, &m); err != nil || m.Content == nil {
			return nil, nil, bad("chat %s: message %d is neither a string nor an object with a string content", path, i)
		}
		msgs[i] = *m.Content
		if m.Name != "" {
			if speakers == nil {
				speakers = make([]string, len(items))
			}
			speakers[i] = m.Name
		}
	}
	return msgs, speakers, nil
}

// chatContext is the --context file.
type chatContext struct {
	Character *activation.Character `json:"character"`
	Persona   *activation.Persona   `json:"persona"`
}

// loadContext reads the --context file ("" none): unknown fields and
// other JSON types are refused, naming the file.
func loadContext(path string) (*chatContext, error) {
	var cx chatContext
	if path == "" {
		return &cx, nil
	}
	data, err := readFile(path, nil)
	if err != nil {
		return nil, bad("context %s: %v", path, err)
	}
	var raw struct {
		Character *struct {
			Name         string   `json:"name"`
			Tags         []string `json:"tags"`
			Description  string   `json:"description"`
			Personality  string   `json:"personality"`
			Scenario     string   `json:"scenario"`
			CreatorNotes string   `json:"creatorNotes"`
			DepthPrompt  string   `json:"depthPrompt"`
		} `json:"character"`
		Persona *struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"persona"`
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, bad("context %s: %v; want {\"character\": {\"name\", \"tags\", \"description\", \"personality\", \"scenario\", "+
			"\"creatorNotes\", \"depthPrompt\"}, \"persona\": {\"name\", \"description\"}}", path, err)
	}
	if ch := raw.Character; ch != nil {
		cx.Character = &activation.Character{Name: ch.Name, Tags: ch.Tags, Description: ch.Description, Personality: ch.Personality,
			Scenario: ch.Scenario, CreatorNotes: ch.CreatorNotes, DepthPrompt: ch.DepthPrompt}
	}
	if p := raw.Persona; p != nil {
		cx.Persona = &activation.Persona{Name: p.Name, Description: p.Description}
	}
	return &cx, nil
}

type jsonAdmitted struct {
	ID          int64  `json:"id"`
	Title       string `json:"title"`
	Placement   string `json:"placement"`
	Group       string `json:"group"`
	Content     string `json:"content"`
	Tokens      *int   `json:"tokens"`
	Pass        int    `json:"pass"`
	TriggeredBy *int64 `json:"triggeredBy"`
	// Position has its four keys always (lore.Position's JSON).
	Position lore.Position `json:"position"`
	// Score is the similarity of a candidate of retrieval by meaning.
	Score *float64 `json:"score"`
}

type jsonInjection struct {
	Kind     lore.PositionKind `json:"kind"`
	Depth    *int              `json:"depth"`
	Role     *lore.Role        `json:"role"`
	Outlet   *string           `json:"outlet"`
	Text     string            `json:"text"`
	EntryIDs []int64           `json:"entryIds"`
}

type jsonOutlet struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

type jsonBookUse struct {
	Collection string `json:"collection"`
	Used       int    `json:"used"`
	Entries    int    `json:"entries"`
	// Limit is the book's own cap (its maxBudgetShare of the budget), null
	// without one: BookBudget.limit in the API.
	Limit *int `json:"limit"`
}

type jsonBlock struct {
	Tag     string           `json:"tag"`
	Role    string           `json:"role"`
	Text    string           `json:"text"`
	Entries []jsonBlockEntry `json:"entries"`
}

// jsonBlockEntry is one entry of a block (GraphQL PromptBlockEntry).
type jsonBlockEntry struct {
	ID      int64  `json:"id"`
	Title   string `json:"title"`
	Content string `json:"content"`
	Role    string `json:"role"`
}

type jsonBudget struct {
	Unit   string        `json:"unit"`
	Limit  int           `json:"limit"`
	Used   int           `json:"used"`
	ByBook []jsonBookUse `json:"byBook"`
}

type jsonTrace struct {
	ID          int64          `json:"id"`
	Title       string         `json:"title"`
	Verdict     string         `json:"verdict"`
	Detail      string         `json:"detail"`
	Reason      string         `json:"reason"`
	Params      map[string]any `json:"params"`
	Pass        int            `json:"pass"`
	TriggeredBy *int64         `json:"triggeredBy"`
	Score       *float64       `json:"score"`
}

type jsonOutput struct {
	Admitted   []jsonAdmitted  `json:"admitted"`
	Injections []jsonInjection `json:"injections"`
	Outlets    []jsonOutlet    `json:"outlets"`
	Blocks     []jsonBlock     `json:"blocks"`
	Budget     jsonBudget      `json:"budget"`
	Passes     int             `json:"passes"`
	Trace      []jsonTrace     `json:"trace"`
}

// idOrNil is nil for 0 (no triggering entry).
func idOrNil(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}

func renderJSON(res activation.Result, blocks []prompt.Block, entries []lore.Entry) ([]byte, error) {
	out := jsonOutput{
		Admitted:   []jsonAdmitted{},
		Injections: []jsonInjection{},
		Outlets:    []jsonOutlet{},
		Blocks:     []jsonBlock{},
		Budget: jsonBudget{Unit: string(res.Budget.Unit), Limit: res.Budget.Limit, Used: res.Budget.Used,
			ByBook: []jsonBookUse{}},
		Passes: res.Passes,
		Trace:  []jsonTrace{},
	}
	for _, a := range res.Admitted() {
		out.Admitted = append(out.Admitted, jsonAdmitted{ID: a.Entry.ID, Title: a.Entry.Title,
			Placement: string(a.Placement), Group: string(a.Group), Content: a.Content,
			Tokens: a.Tokens, Pass: a.Pass, TriggeredBy: idOrNil(a.TriggeredBy), Position: a.Position, Score: a.Score})
	}
	for _, in := range res.Injections {
		out.Injections = append(out.Injections, jsonInjection{Kind: in.Kind, Depth: in.Depth, Role: in.Role, Outlet: in.Outlet,
			Text: in.Text, EntryIDs: in.EntryIDs})
	}
	for _, o := range res.Outlets {
		out.Outlets = append(out.Outlets, jsonOutlet(o))
	}
	for _, b := range res.Budget.ByBook {
		u := jsonBookUse{Collection: b.Collection, Used: b.Used, Entries: b.Entries}
		if b.Limit >= 0 {
			u.Limit = &b.Limit
		}
		out.Budget.ByBook = append(out.Budget.ByBook, u)
	}
	for _, b := range blocks {
		jb := jsonBlock{Tag: string(b.Tag), Role: string(b.Role), Text: b.Text, Entries: make([]jsonBlockEntry, len(b.Entries))}
		for i, e := range b.Entries {
			jb.Entries[i] = jsonBlockEntry{ID: e.ID, Title: e.Title, Content: e.Content, Role: string(e.Role)}
		}
		out.Blocks = append(out.Blocks, jb)
	}
	byID := make(map[int64]*lore.Entry, len(entries))
	for i := range entries {
		byID[entries[i].ID] = &entries[i]
	}
	for _, t := range res.Trace {
		reason, params := t.Reason(byID[t.ID])
		out.Trace = append(out.Trace, jsonTrace{ID: t.ID, Title: t.Title, Verdict: string(t.Verdict), Detail: t.Detail,
			Reason: reason, Params: params, Pass: t.Pass, TriggeredBy: idOrNil(t.TriggeredBy), Score: t.Score})
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding output: %w", err)
	}
	return append(data, '\n'), nil
}

func title(t string) string {
	if strings.TrimSpace(t) == "" {
		return "(untitled)"
	}
	return strconv.Quote(t)
}

func renderText(res activation.Result, blocks []prompt.Block) []byte {
	var b strings.Builder
	limit := strconv.Itoa(res.Budget.Limit)
	if res.Budget.Limit < 0 {
		limit = "unlimited"
	}
	fmt.Fprintf(&b, "%d of %s admitted in %s; budget %d of %s %s used\n",
		res.NumAdmitted(), lore.Count(len(res.Trace), "entry", "entries"), lore.Count(res.Passes, "pass", "passes"), res.Budget.Used, limit, res.Budget.Unit)
	if res.NumAdmitted() > 0 {
		b.WriteString("\nAdmitted (insertion order):\n")
		for _, t := range res.Trace {
			if t.Verdict.Entered() {
				fmt.Fprintf(&b, "  + #%d %s: %s\n", t.ID, title(t.Title), t.Detail)
			}
		}
	}
	if res.NumAdmitted() < len(res.Trace) {
		b.WriteString("\nNot admitted:\n")
		for _, t := range res.Trace {
			if !t.Verdict.Entered() {
				fmt.Fprintf(&b, "  - #%d %s: %s (%s)\n", t.ID, title(t.Title), t.Verdict, t.Detail)
			}
		}
	}
	for _, s := range prompt.Inspect(blocks, nil) {
		fmt.Fprintf(&b, "\n%s: %s, %s\n", s.Label, lore.Count(s.Entries, "entry", "entries"), lore.Count(s.Chars, "character", "characters"))
		for _, bl := range blocks {
			if bl.Tag == s.Tag {
				fmt.Fprintf(&b, "  %s block, %s role:\n", bl.Group, bl.Role)
				for _, line := range strings.Split(bl.Text, "\n") {
					fmt.Fprintf(&b, "    %s\n", line)
				}
			}
		}
	}
	writeInjections(&b, res.Injections)
	return []byte(b.String())
}

// writeInjections prints the injections of a turn for --format text.
func writeInjections(b *strings.Builder, ins []activation.Injection) {
	if len(ins) == 0 {
		return
	}
	b.WriteString("\nInjections (kind, depth, role, outlet):\n")
	for _, in := range ins {
		where := string(in.Kind)
		switch {
		case in.Depth != nil:
			where += " depth " + strconv.Itoa(*in.Depth) + " as " + string(*in.Role)
		case in.Outlet != nil:
			where += " " + strconv.Quote(*in.Outlet)
		}
		ids := make([]string, len(in.EntryIDs))
		for i, id := range in.EntryIDs {
			ids[i] = "#" + strconv.FormatInt(id, 10)
		}
		fmt.Fprintf(b, "  %s: %s\n", where, strings.Join(ids, ", "))
		for _, line := range strings.Split(in.Text, "\n") {
			fmt.Fprintf(b, "    %s\n", line)
		}
	}
}
