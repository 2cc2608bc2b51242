package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"loregate/cmd/internal/pglocal"
	"loregate/lore"
	"loregate/lore/activation"
	"loregate/lore/scopecache"
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
	// ShutdownTimeout is the grace period of the orderly shutdown
	// (LOREGATE_SHUTDOWN_TIMEOUT): in-flight requests and jobs may finish
	// within it, then they are cancelled.
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
	// Jobs configures the background jobs (cmd/loregate/jobs.go).
	Jobs jobsConfig
	// ScopeCacheBytes is the memory budget of the scope cache
	// (LOREGATE_SCOPE_CACHE_BYTES, default 256 MiB; 0 turns it off and
	// every turn reads its scope from Postgres).
	ScopeCacheBytes int64
	// TextCacheBytes is the memory budget of the non-ASCII message cache
	// (LOREGATE_TEXT_CACHE_BYTES, default 16 MiB; 0 turns it off).
	TextCacheBytes int64
	err            error
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
func loadLimits() (lore.Limits, error) {
	var l lore.Limits
	for _, v := range []struct {
		env string
		set func(int64)
	}{
		{lore.EnvMaxScopeEntries, func(n int64) { l.ScopeEntries = int(n) }},
		{lore.EnvMaxContentChars, func(n int64) { l.ContentChars = int(n) }},
		{lore.EnvMaxJSONBytes, func(n int64) { l.JSONBytes = n }},
	} {
		s := strings.TrimSpace(os.Getenv(v.env))
		if s == "" {
			continue
		}
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil || n <= 0 {
			return l, usageError("%s=%q is not a positive whole number", v.env, lore.Clip(s, 24))
		}
		v.set(n)
	}
	l = l.WithDefaults()
	if err := l.Validate(); err != nil {
		return l, usageError("%v", err)
	}
	return l, nil
}

func envOr(key, def string) string {
	if v, ok := os.LookupEnv(key); ok && v != "" {
		return v
	}
	return def
}

// loadConfig reads the environment and registers the shared flags on fs.
// Call validate after fs.Parse.
func loadConfig(fs *flag.FlagSet) *config {
	c := &config{
		Addr:        envOr("LOREGATE_ADDR", "127.0.0.1:8080"),
		DataDir:     envOr("LOREGATE_DATA_DIR", ".loregate"),
		DatabaseURL: os.Getenv("DATABASE_URL"),
		LogLevel:    envOr("LOREGATE_LOG_LEVEL", "info"),
		LogFormat:   envOr("LOREGATE_LOG_FORMAT", "text"),
		MetricsAddr: os.Getenv("LOREGATE_METRICS_ADDR"),
	}
	c.ShutdownTimeout, _ = time.ParseDuration(envOr("LOREGATE_SHUTDOWN_TIMEOUT", "15s"))
	c.ServiceKeys = splitList(os.Getenv("LOREGATE_SERVICE_KEYS"))
	c.JWTSecret = os.Getenv("LOREGATE_JWT_SECRET")
	c.Introspection = envOr("LOREGATE_INTROSPECTION", "true") == "true"
	c.CORSOrigins = splitList(os.Getenv("LOREGATE_CORS_ORIGINS"))
	c.Jobs = loadJobsConfig()
	c.Limits, c.limitsErr = loadLimits()
	c.Jobs.Limits = c.Limits
	c.ScopeCacheBytes = c.bytesVar("LOREGATE_SCOPE_CACHE_BYTES", scopecache.DefaultMaxBytes)
	c.TextCacheBytes = c.bytesVar("LOREGATE_TEXT_CACHE_BYTES", activation.DefaultTextCacheBytes)
	fs.StringVar(&c.DataDir, "data-dir", c.DataDir, "directory of the local Postgres cluster, used when DATABASE_URL is unset (env LOREGATE_DATA_DIR)")
	fs.StringVar(&c.LogLevel, "log-level", c.LogLevel, "debug, info, warn or error (env LOREGATE_LOG_LEVEL)")
	return c
}

func (c *config) validate() error {
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return usageError("log level %q is not debug, info, warn or error", c.LogLevel)
	}
	switch c.LogFormat {
	case "json", "text":
	default:
		return usageError("log format %q is not json or text", c.LogFormat)
	}
	if c.ShutdownTimeout <= 0 {
		return usageError("LOREGATE_SHUTDOWN_TIMEOUT must be a positive duration such as 15s")
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
	if c.DatabaseURL == "" && c.DataDir == "" {
		return usageError("set DATABASE_URL or a data directory (--data-dir)")
	}
	return nil
}

// logAttrs returns the configuration as log attributes with secrets masked.
func (c *config) logAttrs() []any {
	db := "local cluster in " + c.DataDir
	if c.DatabaseURL != "" {
		db = pglocal.MaskURL(c.DatabaseURL)
	}
	jwt := "unset (member tokens disabled)"
	if c.JWTSecret != "" {
		jwt = "set (masked)"
	}
	attrs := []any{"addr", c.Addr, "database", db, "log_level", c.LogLevel,
		"service_keys", fmt.Sprintf("%d configured (masked)", len(c.ServiceKeys)), "jwt_secret", jwt,
		"introspection", c.Introspection, "cors_origins", strings.Join(c.CORSOrigins, ","),
		"scope_cache_bytes", c.ScopeCacheBytes, "text_cache_bytes", c.TextCacheBytes,
		"shutdown_timeout", c.ShutdownTimeout.String(), "metrics_addr", c.MetricsAddr}
	attrs = append(attrs, c.Jobs.logAttrs()...)
	attrs = append(attrs, "max_scope_entries", c.Limits.ScopeEntries, "max_content_chars", c.Limits.ContentChars,
		"max_json_bytes", c.Limits.JSONBytes)
	return attrs
}

// bytesVar reads a byte size: a non-negative integer with an optional
// KiB, MiB or GiB suffix ("256MiB"). A bad value is reported by validate.
func (c *config) bytesVar(key string, def int64) int64 {
	v := envOr(key, strconv.FormatInt(def, 10))
	num, mult := v, int64(1)
	for suffix, m := range map[string]int64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30} {
		if n, ok := strings.CutSuffix(v, suffix); ok {
			num, mult = n, m
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil || n < 0 || n > (1<<50)/mult {
		c.err = usageError("%s must be a byte size such as 268435456 or 256MiB (0 = off), got %q", key, v)
		return def
	}
	return n * mult
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
	var level slog.Level
	_ = level.UnmarshalText([]byte(strings.ToUpper(c.LogLevel)))
	opts := &slog.HandlerOptions{Level: level}
	if c.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

func (c *config) String() string {
	return fmt.Sprint(c.logAttrs()...)
}
