package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"loregate/cmd/internal/cli"
	"loregate/discord"
	"loregate/graph"
	"loregate/graph/auth"
	"loregate/graph/client"
	"loregate/graph/dashboard"
	"loregate/lore"
	"loregate/lore/activation"
	"loregate/lore/postgres"
	"loregate/lore/scopecache"
	"loregate/lore/turnstate"
	"loregate/migrations"
)

func runServe(ctx context.Context, env cli.Env, args []string) error {
	stderr := env.Stderr
	fs := env.FlagSet("serve")
	cfg := loadConfig(env.Getenv, fs)
	fs.StringVar(&cfg.Addr, "addr", cfg.Addr, "HTTP listen address (env LOREGATE_ADDR)")
	if err := fs.Parse(args); err != nil {
		return cli.FlagError(err)
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	// Once serving, log lines are written in batches (docs/operations.md#logs);
	// the last ones when runServe returns.
	logOut := newLogBuffer(stderr, cfg.LogFlushInterval)
	defer logOut.Close()
	logger := slog.New(flushingHandler{cfg.logHandler(logOut), logOut})
	logger.Info("loregate starting", cfg.logAttrs()...)
	defer startGCTuner(uint64(cfg.GCHeapFloor))()
	warnNoCredential(logger, cfg)
	warnIgnoredSettings(logger, cfg)
	// Settings that can be wrong are checked before Postgres is started.
	authn, err := auth.NewAuthenticator(cfg.ServiceKeys, cfg.JWTSecret)
	if err != nil {
		return cli.Usagef("%v", err)
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return cli.Usagef("listen on %s: %v", cfg.Addr, err)
	}
	defer ln.Close()

	dbURL, releaseDB, err := openDatabase(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer releaseDB()

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	metrics := graph.NewMetrics(reg)
	pool, err := openPool(ctx, dbURL, func(stmt string, d time.Duration) {
		metrics.StoreQuery.WithLabelValues(stmt).Observe(d.Seconds())
	})
	if err != nil {
		return err
	}
	// stopBy is the shutdown's end, set at the signal: twice the grace
	// period (docs/operations.md#shutdown).
	var stopBy time.Time
	defer closePool(pool, &stopBy, logger)
	if err := migrateUp(ctx, pool, logger); err != nil {
		return err
	}

	store := postgres.New(pool).WithLimits(cfg.Limits)
	if cfg.TurnCommit == "sync" {
		store = store.WithDurableTurns()
	}
	resolver := &graph.Resolver{Store: store, Turns: store.TurnStore(), Logger: logger, Cache: activation.NewCache(activation.DefaultCacheSize), Metrics: metrics,
		Limits: cfg.Limits}
	if cfg.TurnCommit == "deferred" {
		turns, stopFlusher, err := startTurnFlusher(ctx, store, postgres.DeferredTurns{Interval: cfg.TurnFlushInterval, MaxQueuedBytes: cfg.TurnQueueBytes}, reg, logger)
		if err != nil {
			return err
		}
		// Runs after the HTTP server and the bot stopped (deferred
		// later, run earlier) and before pool.Close: every turn answered
		// is written or counted by stopBy.
		defer func() { stopFlusher(stopBy) }()
		resolver.Turns = turns
	}
	if cfg.TextCacheBytes > 0 {
		resolver.Texts = activation.NewTextCache(int(cfg.TextCacheBytes))
		registerTextCache(reg, resolver.Texts)
	}
	trigger, err := wireEmbeddings(cfg, resolver, reg, logger)
	if err != nil {
		return err
	}
	var hooks []func(server string)
	if trigger != nil {
		hooks = append(hooks, trigger.Touch)
	}
	if cfg.ScopeCacheBytes > 0 {
		scopes := scopecache.New(store, scopecache.Config{MaxBytes: cfg.ScopeCacheBytes, Registerer: reg, Logger: logger})
		// Writes of this process drop the scopes they change before they
		// are answered; other processes' writes arrive by notification.
		hooks = append([]func(string){scopes.Invalidate}, hooks...)
		resolver.Scopes = scopes
		lctx, stopListen := context.WithCancel(ctx)
		listening := make(chan struct{})
		go func() {
			defer close(listening)
			scopes.Listen(lctx, listenConnect(dbURL))
		}()
		defer func() { stopListen(); <-listening }()
	}
	if len(hooks) > 0 {
		resolver.Store = store.WithLoreWriteHook(func(server string) {
			for _, h := range hooks {
				h(server)
			}
		})
	}
	// One P while requests come one at a time and no job runs
	// (docs/configuration.md#processors); a scrape on the operator's
	// metrics address counts as a request.
	procsWrap, procsJobs, procsStarted, stopProcs := startProcsTuner(cfg.ProcsTuning)
	defer stopProcs()
	cfg.Jobs.middleware = procsJobs
	jobClient, stopJobs, err := startJobs(ctx, pool, cfg.Jobs, cfg.Jobs.Workers > 0, logger, cfg.ShutdownTimeout)
	if err != nil {
		return err
	}
	defer runTrigger(ctx, trigger, jobClient)()
	stopJobs = sync.OnceFunc(stopJobs)
	defer stopJobs() // before pool.Close (deferred earlier, runs later); gracefulStop runs it first
	resolver.Jobs = resolverJobs(pool, jobClient, cfg.Jobs)
	var channels *discord.ChannelDirectory
	if cfg.DiscordToken != "" { // Server.channels: the guild's channels by name
		rest, err := discord.NewREST(cfg.DiscordToken, discord.RESTOptions{APIBase: cfg.Jobs.DiscordAPIURL})
		if err != nil {
			return cli.Usagef("%v", err)
		}
		channels = discord.NewChannelDirectory(rest)
		resolver.Channels = channels
	}
	// In-process callers (the bot, the dashboard) share one typed client.
	api, err := client.New(graph.NewExecutor(graph.Config{Resolver: resolver, Logger: logger, Metrics: metrics}), authn)
	if err != nil {
		return err
	}
	gateway, stopBot, err := startDiscord(ctx, cfg, api, channels, reg, logger)
	if err != nil {
		return err
	}
	defer stopBot() // runs before stopJobs: the bot stops first

	mux := http.NewServeMux()
	graph.Mount(mux, graph.Config{
		Resolver:       resolver,
		Auth:           authn,
		Logger:         logger,
		Metrics:        metrics,
		Introspection:  cfg.Introspection,
		AllowedOrigins: cfg.CORSOrigins,
	})
	dash, err := dashboard.New(dashboard.Config{
		API:      api,
		Auth:     authn,
		Sessions: store,
		OAuth: dashboard.OAuth{ClientID: cfg.Dashboard.ClientID, ClientSecret: cfg.Dashboard.ClientSecret,
			BaseURL: cfg.Dashboard.OAuthURL},
		PublicURL:  cfg.Dashboard.publicURL(ln.Addr().String()),
		SigningKey: []byte(cfg.JWTSecret),
		Logger:     logger,
	})
	if err != nil {
		return cli.Usagef("%v", err)
	}
	dash.Mount(mux)
	logger.Info("dashboard serving", "url", cfg.Dashboard.publicURL(ln.Addr().String())+"/dashboard/", "discord_redirect_url", dash.RedirectURL())
	metricsHandler := promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	// On the API listener /metrics needs a service key; an operator address
	// (LOREGATE_METRICS_ADDR) serves it openly, for a scraper on a private
	// network.
	mux.Handle("GET /metrics", serviceOnly(authn, metricsHandler))
	var metricsSrv *http.Server
	if cfg.MetricsAddr != "" {
		mln, err := net.Listen("tcp", cfg.MetricsAddr)
		if err != nil {
			return cli.Usagef("listen on LOREGATE_METRICS_ADDR %s: %v", cfg.MetricsAddr, err)
		}
		mmux := http.NewServeMux()
		mmux.Handle("GET /metrics", metricsHandler)
		metricsSrv = &http.Server{Handler: procsWrap(mmux), ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second}
		logger.Info("metrics serving", "addr", mln.Addr().String())
		go func() { _ = metricsSrv.Serve(mln) }()
		defer metricsSrv.Close()
	}
	mux.HandleFunc("GET /healthz", healthHandler(gateway))
	mux.HandleFunc("GET /readyz", readyHandler(pool))

	// Requests run on their own base context, not on ctx: a signal must not
	// cancel them (a write the client is told failed could still commit).
	// It is cancelled only when the grace period ends.
	base, cancelBase := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelBase()
	srv := &http.Server{
		Handler:           fairTurns(procsWrap(mux), procsStarted),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		BaseContext:       func(net.Listener) context.Context { return base },
	}
	logger.Info("loregate serving", "addr", ln.Addr().String())
	warnNoCredential(logger, cfg) // again: the migration lines pushed the first one up
	if cfg.LogFlushInterval > 0 {
		logOut.start()
	}
	errc := make(chan error, 1)
	// Connections read and write without waking the runtime's sysmon
	// (rawio_linux.go).
	go func() { errc <- srv.Serve(rawIOListener(ln)) }()

	select {
	case err := <-errc:
		return fmt.Errorf("http server: %w", err)
	case <-ctx.Done():
	}
	stopBy = time.Now().Add(2 * cfg.ShutdownTimeout)
	gracefulStop(srv, cancelBase, stopJobs, cfg.ShutdownTimeout, logger)
	return nil
}

// startTurnFlusher returns store's turn store for LOREGATE_TURN_COMMIT=deferred
// (postgres.Store.DeferredTurnStore, docs/turns.md#durability) with its
// flusher started (cfg's Interval and MaxQueuedBytes), and the function
// that stops it once no turn runs: it writes what is queued, its writes
// cut at by (zero: none but the flush's WriteTimeout), and returns. The
// turns a flush could not record count in loregate_turns_unrecorded_total;
// its errors are logged.
func startTurnFlusher(ctx context.Context, store *postgres.Store, cfg postgres.DeferredTurns, reg prometheus.Registerer,
	logger *slog.Logger) (turnstate.Store, func(by time.Time), error) {
	lost := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "loregate_turns_unrecorded_total",
		Help: "Recorded turns answered with LOREGATE_TURN_COMMIT=deferred that their flush did not write (their conversation or their server's lore moved on first, or the write failed).",
	})
	if err := reg.Register(lost); err != nil {
		return nil, nil, fmt.Errorf("register turn metrics: %w", err)
	}
	var unrecorded atomic.Int64
	cfg.OnLost = func(n int) { lost.Add(float64(n)); unrecorded.Add(int64(n)) }
	cfg.OnError = func(err error) { logger.Warn("deferred turns: a flush failed", "err", err) }
	turns, flusher, err := store.DeferredTurnStore(cfg)
	if err != nil {
		return nil, nil, cli.Usagef("%v", err)
	}
	// Not cancelled by the signal: the flusher stops when stop is called.
	stop := flusher.Start(context.WithoutCancel(ctx))
	return turns, func(by time.Time) {
		written, dropped := flusher.Written(), unrecorded.Load()
		if !by.IsZero() {
			flusher.Cut(by)
		}
		stop()
		// Counts only (docs/operations.md#shutdown): the turns the last
		// flushes wrote once the requests had stopped.
		logger.Info("deferred turns: the queue is written", "turns_written", flusher.Written()-written,
			"turns_unrecorded", unrecorded.Load()-dropped)
	}, nil
}

// closePool closes pool, waiting at most until *stopBy (when set; a
// second at least) for the connections still in use: past the shutdown's
// end they are left to the process's exit, with a warning.
func closePool(pool *pgxpool.Pool, stopBy *time.Time, logger *slog.Logger) {
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		pool.Close()
	}()
	if stopBy.IsZero() {
		<-closed
		return
	}
	timer := time.NewTimer(max(time.Until(*stopBy), time.Second))
	defer timer.Stop()
	select {
	case <-closed:
	case <-timer.C:
		logger.Warn("database connections still in use at the end of the shutdown: left to the exit")
	}
}

// gracefulStop is serve's shutdown (docs/operations.md "Shutdown"): the
// listener closes at once (new connections are refused), while requests
// and jobs in flight get the grace period to finish, side by side; then
// requests still running are cancelled (their context ends, so their
// transactions roll back) and their connections closed, and running jobs
// are cancelled (they are retried).
func gracefulStop(srv *http.Server, cancelRequests context.CancelFunc, stopJobs func(), grace time.Duration, logger *slog.Logger) {
	logger.Info("shutting down: no new requests; in-flight requests and jobs may finish", "grace", grace.String())
	jobsDone := make(chan struct{})
	go func() { defer close(jobsDone); stopJobs() }()
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Warn("requests still running after the grace period: cancelling them", "err", err)
		cancelRequests()
		_ = srv.Close()
	}
	<-jobsDone
	logger.Info("shut down")
}

// serviceOnly lets only service-key principals through (401 without a
// credential, 403 for member tokens).
func serviceOnly(authn *auth.Authenticator, next http.Handler) http.Handler {
	return authn.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := auth.FromContext(r.Context()); p == nil || p.Kind != auth.Service {
			http.Error(w, "metrics need a service key (or use LOREGATE_METRICS_ADDR)", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	}))
}

// registerTextCache exports the text cache's counters on reg.
func registerTextCache(reg prometheus.Registerer, t *activation.TextCache) {
	stat := func(f func(activation.TextCacheStats) float64) func() float64 {
		return func() float64 { return f(t.Stats()) }
	}
	reg.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "loregate_text_cache_hits_total",
			Help: "Non-ASCII messages whose matching form came from the text cache."},
			stat(func(s activation.TextCacheStats) float64 { return float64(s.Hits) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "loregate_text_cache_misses_total",
			Help: "Non-ASCII messages normalised and marked because they were not cached."},
			stat(func(s activation.TextCacheStats) float64 { return float64(s.Misses) })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "loregate_text_cache_bytes",
			Help: "Accounted bytes of the cached messages and their matching forms."},
			stat(func(s activation.TextCacheStats) float64 { return float64(s.Bytes) })),
	)
}

// listenConnect opens the scope cache's dedicated LISTEN connection,
// named loregate-scope-listener in pg_stat_activity.
func listenConnect(dbURL string) func(context.Context) (*pgx.Conn, error) {
	return func(ctx context.Context) (*pgx.Conn, error) {
		cfg, err := pgx.ParseConfig(dbURL)
		if err != nil {
			return nil, fmt.Errorf("database URL: %w", err)
		}
		cfg.RuntimeParams["application_name"] = "loregate-scope-listener"
		return pgx.ConnectConfig(ctx, cfg)
	}
}

// healthHandler answers 200 "ok" while the process serves, followed by
// details: the Discord gateway state when the bot is on ("discord:
// connected", "discord: reconnecting (attempt 2): ...", "discord: failed:
// ..."). The bot's state never fails the check: the API serves without it.
func healthHandler(gateway discord.GatewayReporter) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "ok\n")
		if gateway != nil {
			_, _ = io.WriteString(w, "discord: "+gateway.GatewayStatus().String()+"\n")
		}
	}
}

// readyHandler answers 200 when the database answers and every embedded
// migration is applied, 503 otherwise.
func readyHandler(pool *pgxpool.Pool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
		defer cancel()
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		conn, err := pool.Acquire(ctx)
		if err != nil {
			http.Error(w, "database unreachable", http.StatusServiceUnavailable)
			return
		}
		defer conn.Release()
		current, err := migrations.Current(ctx, conn.Conn())
		switch {
		case errors.Is(err, migrations.ErrUnknownMigration):
			http.Error(w, "database schema is newer than this binary", http.StatusServiceUnavailable)
		case errors.Is(err, migrations.ErrMigrationMismatch):
			http.Error(w, "database applied another migration under one of this binary's numbers", http.StatusServiceUnavailable)
		case err != nil:
			http.Error(w, "database unreachable", http.StatusServiceUnavailable)
		case !current:
			http.Error(w, "migrations pending", http.StatusServiceUnavailable)
		default:
			_, _ = io.WriteString(w, "ready\n")
		}
	}
}

// noCredentialWarning is logged at start when neither service keys nor a
// member-token secret are configured (docs/configuration.md).
const noCredentialWarning = "no credential configured: every /graphql request will be refused (401). " +
	"Set a service key of 16+ characters and send it as a bearer token, e.g. " +
	"LOREGATE_SERVICE_KEYS=dev-key-change-me-0123 make run, then header 'Authorization: Bearer dev-key-change-me-0123' " +
	"(or LOREGATE_JWT_SECRET for member tokens; the built-in Discord bot needs neither)"

func warnNoCredential(logger *slog.Logger, cfg *config) {
	if len(cfg.ServiceKeys) == 0 && cfg.JWTSecret == "" {
		logger.Warn(noCredentialWarning)
	}
}

// warnIgnoredSettings warns at start of a setting that the others make
// void: LOREGATE_TURN_FLUSH_INTERVAL or LOREGATE_TURN_QUEUE_BYTES without
// LOREGATE_TURN_COMMIT=deferred (docs/configuration.md; serve starts all
// the same, so that switching the commit mode back needs no other change).
func warnIgnoredSettings(logger *slog.Logger, cfg *config) {
	if cfg.turnFlushSet && cfg.TurnCommit != "deferred" {
		logger.Warn("LOREGATE_TURN_FLUSH_INTERVAL is ignored: it applies only with LOREGATE_TURN_COMMIT=deferred",
			"turn_commit", cfg.TurnCommit, "turn_flush_interval", lore.ClipBytes(cfg.turnFlushInterval, 24))
	}
	if cfg.turnQueueSet && cfg.TurnCommit != "deferred" {
		logger.Warn("LOREGATE_TURN_QUEUE_BYTES is ignored: it applies only with LOREGATE_TURN_COMMIT=deferred",
			"turn_commit", cfg.TurnCommit, "turn_queue_bytes", lore.ClipBytes(cfg.turnQueueBytes, 24))
	}
}
