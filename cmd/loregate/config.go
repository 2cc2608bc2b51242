package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"loregate/cmd/internal/activatecmd"
	"loregate/cmd/internal/cli"
	"loregate/cmd/internal/pglocal"
	"loregate/graph"
	"loregate/jobs"
	"loregate/lore"
	"loregate/lore/activation"
	"loregate/lore/embeddings"
	"loregate/lore/postgres"
	"loregate/lore/scopecache"
	"loregate/lore/semantic"
)

// config is the service configuration: environment first, flags override.
// Every field is documented in docs/configuration.md.
type config struct {
	// Addr is the HTTP listen address (LOREGATE_ADDR, --addr).
	Addr string
	// DataDir holds the local Postgres cluster when DatabaseURL is empty
	// (LOREGATE_DATA_DIR, --data-dir).
	DataDir string
	// DatabaseURL points at an external Postgres (DATABASE_URL). Secret:
	// masked when printed.
	DatabaseURL string
	// LogLevel is debug, info, warn or error (LOREGATE_LOG_LEVEL).
	LogLevel string
	// LogFormat is json or text (LOREGATE_LOG_FORMAT).
	LogFormat string
	// LogFlushInterval is the longest serve holds a log line to write it
	// with others (LOREGATE_LOG_FLUSH_INTERVAL, default 100ms, at most
	// 10s; 0 writes each line at once; docs/operations.md#logs).
	LogFlushInterval time.Duration
	// ShutdownTimeout is the grace period of the orderly shutdown
	// (LOREGATE_SHUTDOWN_TIMEOUT): in-flight requests and jobs may finish
	// within it, then they are cancelled; serve's whole stop takes at most
	// twice it (docs/operations.md#shutdown).
	ShutdownTimeout time.Duration
	// MetricsAddr, when set, serves /metrics without a credential on this
	// separate operator address (LOREGATE_METRICS_ADDR); on the API
	// listener /metrics needs a service key.
	MetricsAddr string
	// ServiceKeys are the bearer keys of trusted services
	// (LOREGATE_SERVICE_KEYS, comma-separated). Secret.
	ServiceKeys []string
	// JWTSecret signs member tokens (LOREGATE_JWT_SECRET, >= 32 bytes).
	// Secret.
	JWTSecret string
	// Introspection enables GraphQL schema introspection
	// (LOREGATE_INTROSPECTION, default true).
	Introspection bool
	// CORSOrigins are the dashboard origins allowed to call the API
	// (LOREGATE_CORS_ORIGINS, comma-separated; empty = no CORS).
	CORSOrigins []string
	// DiscordToken is the bot token (LOREGATE_DISCORD_TOKEN). Secret.
	// Unset: the bot and the channel-name backfill are off.
	DiscordToken string
	// DiscordGuildID registers the bot's commands in one guild, for
	// development (LOREGATE_DISCORD_GUILD_ID).
	DiscordGuildID string
	// Jobs configures the background jobs (cmd/loregate/jobs.go).
	Jobs jobsConfig
	// ScopeCacheBytes is the memory budget of the scope cache
	// (LOREGATE_SCOPE_CACHE_BYTES, default 256 MiB; 0 turns it off and
	// every turn reads its scope from Postgres).
	ScopeCacheBytes int64
	// TextCacheBytes is the memory budget of the non-ASCII message cache
	// (LOREGATE_TEXT_CACHE_BYTES, default 16 MiB; 0 turns it off).
	TextCacheBytes int64
	// GCHeapFloor is the heap serve grows to before its collector runs,
	// while the live heap is under half of it (LOREGATE_GC_HEAP_FLOOR,
	// default 64 MiB; 0, or GOGC in the environment, leaves the
	// collector at Go's default).
	GCHeapFloor int64
	// ProcsTuning runs serve on one P while its requests come one at a
	// time and no job runs (procs.go): LOREGATE_PROCS_TUNER=on; auto (the
	// default) turns it on for a serve that runs no Discord bot (no
	// LOREGATE_DISCORD_TOKEN: the bot's work below 80% of a core would
	// share that one P with the requests); off, and whenever GOMAXPROCS is
	// set in the environment, turns it off
	// (docs/configuration.md#processors).
	ProcsTuning bool
	procsTuner  string
	// TurnCommit is async (default: a recorded turn is answered before its
	// WAL flush), sync (it waits for it) or deferred (a turn on the
	// conversation's kept state is answered before it is written, and
	// written within TurnFlushInterval with the turns queued beside it)
	// (LOREGATE_TURN_COMMIT; docs/turns.md#durability).
	TurnCommit string
	// TurnFlushInterval is how long a deferred turn waits at most before
	// its batch is written (LOREGATE_TURN_FLUSH_INTERVAL, 10ms; 1ms to
	// 1s; read with TurnCommit=deferred only: set with another commit
	// mode, serve warns at start, warnIgnoredSettings).
	TurnFlushInterval time.Duration
	turnFlushInterval string // as set, for validate's error
	// TurnQueueBytes bounds the bytes of the deferred turns queued or
	// being written (LOREGATE_TURN_QUEUE_BYTES, 64 MiB; at least 1; read
	// with TurnCommit=deferred only; postgres.DeferredTurns.MaxQueuedBytes).
	TurnQueueBytes int64
	turnQueueBytes string // as set, for warnIgnoredSettings
	turnQueueErr   error  // a value that is not a byte size (validate, deferred only)
	turnQueueSet   bool   // LOREGATE_TURN_QUEUE_BYTES is set
	turnFlushSet   bool   // LOREGATE_TURN_FLUSH_INTERVAL is set
	// Embeddings is the embeddings provider of retrieval by meaning
	// (LOREGATE_EMBEDDINGS_URL, _MODEL, _API_KEY, _DIMENSIONS, _TIMEOUT;
	// docs/operations.md#embeddings). Off (the zero Config) unless both
	// the URL and the model are set: turns then rank vectorized entries
	// with the built-in lexical ranker and no lore leaves the machine.
	Embeddings embeddings.Config
	err        error
	// Dashboard configures the web dashboard (docs/dashboard.md).
	Dashboard dashboardConfig
	// Limits are the deployment's lore limits (LOREGATE_MAX_SCOPE_ENTRIES,
	// LOREGATE_MAX_CONTENT_CHARS, LOREGATE_MAX_JSON_BYTES); Jobs.Limits
	// is the same value.
	Limits lore.Limits
	// limitsErr is the first malformed limit variable.
	limitsErr error
}

// loadLimits reads the limit variables; unset means the default. A value
// that is not a whole number is an error naming the variable; ranges are
// checked by lore.Limits.Validate.
func loadLimits(getenv func(string) string) (lore.Limits, error) {
	var l lore.Limits
	for _, v := range []struct {
		env string
		set func(int64)
	}{
		{lore.EnvMaxScopeEntries, func(n int64) { l.ScopeEntries = int(n) }},
		{lore.EnvMaxContentChars, func(n int64) { l.ContentChars = int(n) }},
		{lore.EnvMaxJSONBytes, func(n int64) { l.JSONBytes = n }},
	} {
		s := strings.TrimSpace(getenv(v.env))
		if s == "" {
			continue
		}
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil || n <= 0 {
			return l, cli.Usagef("%s=%q is not a positive whole number", v.env, lore.ClipBytes(s, 24))
		}
		v.set(n)
	}
	l = l.WithDefaults()
	if err := l.Validate(); err != nil {
		return l, cli.Usagef("%v", err)
	}
	return l, nil
}

// envOr returns a getter of variables that returns def for an unset or
// empty one.
func envOr(getenv func(string) string) func(key, def string) string {
	return func(key, def string) string {
		if v := getenv(key); v != "" {
			return v
		}
		return def
	}
}

// loadConfig reads the environment through getenv (the only place a
// LOREGATE_* variable is read: library packages get their values through
// their config structs) and registers the shared flags on fs (none when fs
// is nil). Call validate after fs.Parse.
func loadConfig(getenv func(string) string, fs *flag.FlagSet) *config {
	or := envOr(getenv)
	var err error
	c := &config{
		Addr:        or("LOREGATE_ADDR", "127.0.0.1:8080"),
		DataDir:     or("LOREGATE_DATA_DIR", ".loregate"),
		DatabaseURL: getenv("DATABASE_URL"),
		LogLevel:    or("LOREGATE_LOG_LEVEL", "info"),
		LogFormat:   or("LOREGATE_LOG_FORMAT", "text"),
		MetricsAddr: getenv("LOREGATE_METRICS_ADDR"),
	}
	c.ShutdownTimeout, _ = time.ParseDuration(or("LOREGATE_SHUTDOWN_TIMEOUT", "15s"))
	if c.LogFlushInterval, err = time.ParseDuration(or("LOREGATE_LOG_FLUSH_INTERVAL", "100ms")); err != nil {
		c.LogFlushInterval = -1 // refused by validate
	}
	c.ServiceKeys = splitList(getenv("LOREGATE_SERVICE_KEYS"))
	c.JWTSecret = getenv("LOREGATE_JWT_SECRET")
	c.Introspection = or("LOREGATE_INTROSPECTION", "true") == "true"
	c.CORSOrigins = splitList(getenv("LOREGATE_CORS_ORIGINS"))
	c.DiscordGuildID = getenv("LOREGATE_DISCORD_GUILD_ID")
	c.Jobs = loadJobsConfig(getenv)
	c.DiscordToken = c.Jobs.DiscordToken
	c.Dashboard = dashboardConfig{
		ClientID:     getenv("LOREGATE_DISCORD_CLIENT_ID"),
		ClientSecret: getenv("LOREGATE_DISCORD_CLIENT_SECRET"),
		PublicURL:    getenv("LOREGATE_PUBLIC_URL"),
		OAuthURL:     getenv("LOREGATE_DISCORD_OAUTH_URL"),
	}
	c.Limits, c.limitsErr = loadLimits(getenv)
	c.Jobs.Limits = c.Limits
	c.ScopeCacheBytes = c.bytesVar(or, "LOREGATE_SCOPE_CACHE_BYTES", scopecache.DefaultMaxBytes)
	c.TextCacheBytes = c.bytesVar(or, "LOREGATE_TEXT_CACHE_BYTES", activation.DefaultTextCacheBytes)
	c.GCHeapFloor = c.bytesVar(or, "LOREGATE_GC_HEAP_FLOOR", DefaultGCHeapFloor)
	if getenv("GOGC") != "" {
		c.GCHeapFloor = 0 // the operator's GOGC stands
	}
	c.procsTuner = or("LOREGATE_PROCS_TUNER", "auto")
	c.ProcsTuning = getenv("GOMAXPROCS") == "" && // the operator's GOMAXPROCS stands
		(c.procsTuner == "on" || c.procsTuner == "auto" && c.DiscordToken == "")
	c.TurnCommit = or("LOREGATE_TURN_COMMIT", "async")
	c.turnFlushInterval = or("LOREGATE_TURN_FLUSH_INTERVAL", postgres.DefaultTurnFlushInterval.String())
	c.turnFlushSet = getenv("LOREGATE_TURN_FLUSH_INTERVAL") != ""
	// A bad value stops start-up only where it is read (validate): with
	// another commit mode it is ignored, as the flush interval is. The
	// bound is never off: its error offers no "0 = off".
	c.turnQueueBytes = getenv("LOREGATE_TURN_QUEUE_BYTES")
	c.turnQueueSet = c.turnQueueBytes != ""
	c.TurnQueueBytes = postgres.DefaultTurnQueueBytes
	if c.turnQueueSet {
		if n, err := parseBytes("LOREGATE_TURN_QUEUE_BYTES", c.turnQueueBytes, ""); err != nil {
			c.turnQueueErr = err
		} else {
			c.TurnQueueBytes = n
		}
	}
	if c.TurnFlushInterval, err = time.ParseDuration(c.turnFlushInterval); err != nil {
		c.TurnFlushInterval = -1 // refused by validate
	}
	c.Embeddings = c.loadEmbeddings(getenv)
	if fs == nil {
		return c
	}
	fs.StringVar(&c.DataDir, "data-dir", c.DataDir, "directory of the local Postgres cluster, used when DATABASE_URL is unset (env LOREGATE_DATA_DIR)")
	fs.StringVar(&c.LogLevel, "log-level", c.LogLevel, "debug, info, warn or error (env LOREGATE_LOG_LEVEL)")
	return c
}

func (c *config) validate() error {
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return cli.Usagef("log level (--log-level, LOREGATE_LOG_LEVEL) %q is not debug, info, warn or error", lore.ClipBytes(c.LogLevel, 24))
	}
	switch c.LogFormat {
	case "json", "text":
	default:
		return cli.Usagef("log format (LOREGATE_LOG_FORMAT) %q is not json or text", lore.ClipBytes(c.LogFormat, 24))
	}
	switch c.procsTuner {
	case "auto", "on", "off":
	default:
		return cli.Usagef("LOREGATE_PROCS_TUNER=%q is not auto, on or off", lore.ClipBytes(c.procsTuner, 24))
	}
	switch c.TurnCommit {
	case "async", "sync", "deferred":
	default:
		return cli.Usagef("LOREGATE_TURN_COMMIT=%q is not async, sync or deferred", lore.ClipBytes(c.TurnCommit, 24))
	}
	if c.TurnCommit == "deferred" && (c.TurnFlushInterval < postgres.MinTurnFlushInterval || c.TurnFlushInterval > postgres.MaxTurnFlushInterval) {
		return cli.Usagef("LOREGATE_TURN_FLUSH_INTERVAL must be a duration from %v to %v, such as 10ms, got %q",
			postgres.MinTurnFlushInterval, postgres.MaxTurnFlushInterval, lore.ClipBytes(c.turnFlushInterval, 24))
	}
	if c.TurnCommit == "deferred" && c.turnQueueErr != nil {
		return c.turnQueueErr
	}
	if c.TurnCommit == "deferred" && c.TurnQueueBytes < 1 {
		return cli.Usagef("LOREGATE_TURN_QUEUE_BYTES must be a byte size of at least 1, such as 64MiB")
	}
	if c.ShutdownTimeout <= 0 {
		return cli.Usagef("LOREGATE_SHUTDOWN_TIMEOUT must be a positive duration such as 15s")
	}
	if c.LogFlushInterval < 0 || c.LogFlushInterval > maxLogFlushInterval {
		return cli.Usagef("LOREGATE_LOG_FLUSH_INTERVAL must be a duration from 0 to %v, such as 100ms", maxLogFlushInterval)
	}
	if c.Jobs.err != nil {
		return c.Jobs.err
	}
	if c.limitsErr != nil {
		return c.limitsErr
	}
	if c.err != nil {
		return c.err
	}
	if (c.Dashboard.ClientID == "") != (c.Dashboard.ClientSecret == "") {
		return cli.Usagef("set both LOREGATE_DISCORD_CLIENT_ID and LOREGATE_DISCORD_CLIENT_SECRET (Discord sign-in), or neither")
	}
	if c.Dashboard.ClientID != "" && c.JWTSecret == "" {
		return cli.Usagef("Discord sign-in (LOREGATE_DISCORD_CLIENT_ID) needs LOREGATE_JWT_SECRET to sign member tokens")
	}
	if c.DatabaseURL == "" && c.DataDir == "" {
		return cli.Usagef("set DATABASE_URL or a data directory (--data-dir)")
	}
	return validateEmbeddings(c.Embeddings)
}

// loadJobsConfig reads the job variables; the first bad one is c.err.
func loadJobsConfig(getenv func(string) string) jobsConfig {
	var c jobsConfig
	or := envOr(getenv)
	num := func(key string, def int) int {
		v := or(key, strconv.Itoa(def))
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			c.err = cli.Usagef("%s must be a non-negative integer, got %q", key, v)
		}
		return n
	}
	dur := func(key string, def time.Duration) time.Duration {
		v := or(key, def.String())
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			c.err = cli.Usagef("%s must be a positive duration such as 1h, got %q", key, v)
		}
		return d
	}
	c.Workers = num("LOREGATE_JOB_WORKERS", jobs.DefaultMaxWorkers)
	c.InlineImportBytes = num("LOREGATE_INLINE_IMPORT_BYTES", graph.DefaultInlineImportBytes)
	c.ArtifactTTL = dur("LOREGATE_ARTIFACT_TTL", jobs.DefaultArtifactTTL)
	c.BlobTTL = dur("LOREGATE_UPLOAD_TTL", jobs.DefaultBlobTTL)
	c.BackfillInterval = dur("LOREGATE_BACKFILL_INTERVAL", jobs.DefaultBackfillInterval)
	c.LogMaxAge = dur("LOREGATE_ACTIVATION_LOG_MAX_AGE", jobs.DefaultLogMaxAge)
	c.LogRowsPerConversation = num("LOREGATE_ACTIVATION_LOG_ROWS", jobs.DefaultLogRowsPerConversation)
	if c.LogRowsPerConversation == 0 {
		c.err = cli.Usagef("LOREGATE_ACTIVATION_LOG_ROWS must be at least 1")
	}
	c.ImportTimeout = dur("LOREGATE_IMPORT_JOB_TIMEOUT", jobs.DefaultImportTimeout)
	c.JobTimeout = dur("LOREGATE_JOB_TIMEOUT", jobs.DefaultJobTimeout)
	c.RescueStuckJobsAfter = dur("LOREGATE_RESCUE_STUCK_JOBS_AFTER", jobs.RescueAfter(c.ImportTimeout, c.JobTimeout))
	if c.err == nil {
		if longest := max(c.ImportTimeout, c.JobTimeout); c.RescueStuckJobsAfter <= longest {
			c.err = cli.Usagef("LOREGATE_RESCUE_STUCK_JOBS_AFTER (%v) must be longer than the longest job timeout, %v (LOREGATE_IMPORT_JOB_TIMEOUT %v, LOREGATE_JOB_TIMEOUT %v): a job still running would be started a second time",
				c.RescueStuckJobsAfter, longest, c.ImportTimeout, c.JobTimeout)
		}
	}
	c.SnapshotRetention = dur("LOREGATE_HISTORY_SNAPSHOT_RETENTION", jobs.DefaultSnapshotRetention)
	c.ServerRetention = dur("LOREGATE_SERVER_RETENTION", jobs.DefaultServerRetention)
	c.RevisionRetention = num("LOREGATE_REVISION_RETENTION", lore.DefaultRevisionRetention)
	if c.RevisionRetention == 0 {
		c.err = cli.Usagef("LOREGATE_REVISION_RETENTION must be at least 1")
	}
	c.RevisionMaxAge = dur("LOREGATE_REVISION_MAX_AGE", lore.DefaultRevisionMaxAge)
	c.DiscordToken = getenv("LOREGATE_DISCORD_TOKEN")
	c.DiscordAPIURL = getenv("LOREGATE_DISCORD_API_URL")
	return c
}

// databaseAttr is the database of the start-up line, its URL masked.
func (c *config) databaseAttr() string {
	if c.DatabaseURL != "" {
		return pglocal.MaskURL(c.DatabaseURL)
	}
	return "local cluster in " + c.DataDir
}

// workerLogAttrs returns what `loregate worker` uses of the configuration
// as log attributes with secrets masked: the database, logging, shutdown,
// the jobs, the embeddings provider and the limits; none of serve's HTTP,
// credential, cache or turn settings, which a worker never reads.
func (c *config) workerLogAttrs() []any {
	return c.jobLogAttrs([]any{"database", c.databaseAttr(), "log_level", c.LogLevel, "shutdown_timeout", c.ShutdownTimeout.String()})
}

// jobLogAttrs appends to attrs what serve and worker both log: the jobs,
// the embeddings provider and the limits.
func (c *config) jobLogAttrs(attrs []any) []any {
	attrs = append(attrs, c.Jobs.logAttrs()...)
	attrs = append(attrs, embeddingsLogAttrs(c.Embeddings)...)
	return append(attrs, "max_scope_entries", c.Limits.ScopeEntries, "max_content_chars", c.Limits.ContentChars,
		"max_json_bytes", c.Limits.JSONBytes)
}

// logAttrs returns serve's configuration as log attributes with secrets
// masked (workerLogAttrs is the worker's).
func (c *config) logAttrs() []any {
	db := c.databaseAttr()
	jwt := "unset (member tokens disabled)"
	if c.JWTSecret != "" {
		jwt = "set (masked)"
	}
	attrs := []any{"addr", c.Addr, "database", db, "log_level", c.LogLevel, "log_flush_interval", c.LogFlushInterval.String(),
		"service_keys", fmt.Sprintf("%d configured (masked)", len(c.ServiceKeys)), "jwt_secret", jwt,
		"introspection", c.Introspection, "cors_origins", strings.Join(c.CORSOrigins, ","),
		"scope_cache_bytes", c.ScopeCacheBytes, "text_cache_bytes", c.TextCacheBytes,
		"gc_heap_floor", c.GCHeapFloor,
		"shutdown_timeout", c.ShutdownTimeout.String(), "metrics_addr", c.MetricsAddr,
		"public_url", c.Dashboard.publicURL(c.Addr), "discord_sign_in", c.Dashboard.ClientID != ""}
	attrs = append(attrs, "turn_commit", c.TurnCommit)
	if c.TurnCommit == "deferred" {
		attrs = append(attrs, "turn_flush_interval", c.TurnFlushInterval.String(), "turn_queue_bytes", c.TurnQueueBytes)
	}
	tuner := c.procsTuner + ": off"
	if c.ProcsTuning {
		tuner = c.procsTuner + ": on"
	}
	attrs = append(attrs, "procs_tuner", tuner, "inline_import_bytes", c.Jobs.InlineImportBytes)
	return c.jobLogAttrs(attrs)
}

// bytesVar reads a byte size whose 0 turns the setting off (parseBytes).
// A bad value is reported by validate.
func (c *config) bytesVar(or func(key, def string) string, key string, def int64) int64 {
	n, err := parseBytes(key, or(key, strconv.FormatInt(def, 10)), " (0 = off)")
	if err != nil {
		c.err = err
		return def
	}
	return n
}

// parseBytes reads v, key's value, as a byte size: a non-negative integer
// with an optional KiB, MiB or GiB suffix ("256MiB"). hint follows the
// example in the error.
func parseBytes(key, v, hint string) (int64, error) {
	num, mult := v, int64(1)
	for suffix, m := range map[string]int64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30} {
		if n, ok := strings.CutSuffix(v, suffix); ok {
			num, mult = n, m
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil || n < 0 || n > (1<<50)/mult {
		return 0, cli.Usagef("%s must be a byte size such as 268435456 or 256MiB%s, got %q", key, hint, v)
	}
	return n * mult, nil
}

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

func (c *config) logger(w io.Writer) *slog.Logger {
	return slog.New(c.logHandler(w))
}

// logHandler is the handler of the configured level and format, writing
// to w.
func (c *config) logHandler(w io.Writer) slog.Handler {
	var level slog.Level
	_ = level.UnmarshalText([]byte(strings.ToUpper(c.LogLevel)))
	opts := &slog.HandlerOptions{Level: level}
	if c.LogFormat == "json" {
		return slog.NewJSONHandler(w, opts)
	}
	return slog.NewTextHandler(w, opts)
}

// testDatabaseURL is TEST_DATABASE_URL: with-postgres starts no cluster
// when it is set (the tests use that database).
func testDatabaseURL(getenv func(string) string) string {
	return getenv("TEST_DATABASE_URL")
}

// dashboardConfig is the web dashboard's configuration (docs/dashboard.md).
type dashboardConfig struct {
	// ClientID and ClientSecret are the Discord application's OAuth2
	// credentials (LOREGATE_DISCORD_CLIENT_ID,
	// LOREGATE_DISCORD_CLIENT_SECRET; the secret is never logged). Unset:
	// only the development sign-in with a member token.
	ClientID     string
	ClientSecret string
	// PublicURL is where browsers reach the service (LOREGATE_PUBLIC_URL,
	// default http://LOREGATE_ADDR); the Discord redirect URL is
	// PublicURL/dashboard/callback.
	PublicURL string
	// OAuthURL replaces https://discord.com/ for the sign-in
	// (LOREGATE_DISCORD_OAUTH_URL; tests point it at a fake).
	OAuthURL string
}

// publicURL is PublicURL or, unset, http://addr.
func (d dashboardConfig) publicURL(addr string) string {
	if d.PublicURL != "" {
		return d.PublicURL
	}
	return "http://" + addr
}

// loadEmbeddings reads the LOREGATE_EMBEDDINGS_* variables
// (docs/configuration.md; docs/operations.md#embeddings). A malformed
// number or duration is kept in c.err and reported by validate; the rest
// is checked by validateEmbeddings. The API key is kept only in the
// returned Config: it never enters logs or errors.
func (c *config) loadEmbeddings(getenv func(string) string) embeddings.Config {
	e := embeddings.Config{
		URL:    strings.TrimRight(strings.TrimSpace(getenv("LOREGATE_EMBEDDINGS_URL")), "/"),
		Model:  strings.TrimSpace(getenv("LOREGATE_EMBEDDINGS_MODEL")),
		APIKey: getenv("LOREGATE_EMBEDDINGS_API_KEY"),
	}
	if v := strings.TrimSpace(getenv("LOREGATE_EMBEDDINGS_DIMENSIONS")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > semantic.MaxDimensions {
			c.err = cli.Usagef("LOREGATE_EMBEDDINGS_DIMENSIONS must be a whole number from 1 to %d, got %q", semantic.MaxDimensions, lore.ClipBytes(v, 24))
		}
		e.Dimensions = n
	}
	e.Timeout = embeddings.DefaultTimeout
	if v := strings.TrimSpace(getenv("LOREGATE_EMBEDDINGS_TIMEOUT")); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 || d > MaxEmbeddingsTimeout {
			c.err = cli.Usagef("LOREGATE_EMBEDDINGS_TIMEOUT must be a duration from 1ms to %v such as 800ms, got %q", MaxEmbeddingsTimeout, lore.ClipBytes(v, 24))
		}
		e.Timeout = d
	}
	return e
}

// runActivate is the activate command with the provider's API key read
// here, the one place the environment is read: LOREGATE_EMBEDDINGS_API_KEY
// is the bearer token --embeddings-url is called with
// (docs/configuration.md).
func runActivate(ctx context.Context, env cli.Env, args []string) error {
	key := ""
	if env.Getenv != nil {
		key = env.Getenv("LOREGATE_EMBEDDINGS_API_KEY")
	}
	return activatecmd.RunWithKey(key)(ctx, env, args)
}
