// Package pglocal runs a private PostgreSQL cluster from the PostgreSQL
// binaries installed on the machine, for `loregate serve` without
// DATABASE_URL and for the test run's throwaway database.
//
// Layout of a data directory:
//
//	DIR/pg/            the cluster (PGDATA), created by initdb on first use
//	                   (under AltRoot when root runs us on a directory the
//	                   server user cannot reach)
//	DIR/password       the generated superuser password (mode 0600)
//	DIR/postgres.log   the server log
//	DIR/loregate.lock  flock held while a launcher owns the cluster
//
// The cluster listens on 127.0.0.1 only, on a free port picked at each start,
// with password (SCRAM) authentication and no unix socket. Postgres refuses
// to run as root, so when the launcher is root it runs initdb, pg_ctl and the
// server as an unprivileged system user ("postgres", else "nobody") and hands
// the cluster directory to that user.
package pglocal

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrNoBinaries is returned when no PostgreSQL installation is found.
var ErrNoBinaries = errors.New("no PostgreSQL binaries found (looked on PATH, in `pg_config --bindir` and /usr/lib/postgresql/*/bin): install PostgreSQL (Debian: apt-get install postgresql) or set DATABASE_URL")

// ErrInUse is returned when another launcher owns the data directory.
var ErrInUse = errors.New("data directory is in use by another loregate process")

// Options configure a cluster.
type Options struct {
	// Dir is the data directory (created if missing).
	Dir string
	// BinDir overrides binary discovery (the directory holding initdb,
	// pg_ctl and postgres).
	BinDir string
	// Database is created after start if missing; default "loregate".
	Database string
	// Ephemeral trades durability for speed (fsync off), for test runs.
	Ephemeral bool
	// Logger receives lifecycle lines; nil discards them.
	Logger *slog.Logger
}

// WithDefaults returns a copy of o with every zero field set to its
// default: Database "loregate", Logger one that discards (BinDir stays
// empty: Start discovers the binaries).
func (o Options) WithDefaults() Options {
	if o.Database == "" {
		o.Database = "loregate"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Cluster is a running private cluster.
type Cluster struct {
	opts     Options
	bin      string
	pgdata   string
	logDir   string
	port     int
	password string
	runAs    *user.User
	lockFile *os.File
}

// FindBinDir returns the directory holding initdb and pg_ctl: PATH first
// (when it also holds pg_ctl), then `pg_config --bindir`, then the newest
// /usr/lib/postgresql/*/bin.
func FindBinDir() (string, error) {
	var candidates []string
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		candidates = append(candidates, filepath.Dir(p))
	}
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		candidates = append(candidates, strings.TrimSpace(string(out)))
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(matches, func(i, j int) bool { return versionOf(matches[i]) > versionOf(matches[j]) })
	candidates = append(candidates, matches...)
	for _, dir := range candidates {
		if isExec(filepath.Join(dir, "initdb")) && isExec(filepath.Join(dir, "pg_ctl")) && isExec(filepath.Join(dir, "postgres")) {
			return dir, nil
		}
	}
	return "", ErrNoBinaries
}

func versionOf(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// Start launches the cluster in opts.Dir, running initdb on first use, and
// waits until it accepts connections. It fails with ErrInUse when another
// launcher holds the directory. A server left running by a launcher that
// died is stopped and restarted.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	opts = opts.WithDefaults()
	bin := opts.BinDir
	if bin == "" {
		var err error
		if bin, err = FindBinDir(); err != nil {
			return nil, err
		}
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("data directory %q: %w", opts.Dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	c := &Cluster{opts: opts, bin: bin, pgdata: filepath.Join(dir, "pg"), logDir: dir}
	if err := c.lock(dir); err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			c.unlock()
		}
	}()
	if os.Geteuid() == 0 {
		if c.runAs, err = unprivilegedUser(); err != nil {
			return nil, err
		}
		if err := c.checkReachable(dir); err != nil {
			// e.g. a checkout under /root (mode 0700): keep the cluster in a
			// directory of its own that the server user can reach, tied to
			// this data directory by a hash of its path.
			alt := filepath.Join(AltRoot, pathHash(dir))
			if mkErr := os.MkdirAll(alt, 0o755); mkErr != nil {
				return nil, fmt.Errorf("%v; and creating %s failed: %w", err, alt, mkErr)
			}
			opts.Logger.Warn("data directory not reachable by the Postgres user; keeping the cluster elsewhere",
				"data_dir", dir, "cluster_dir", alt, "user", c.runAs.Username)
			c.pgdata = filepath.Join(alt, "pg")
			c.logDir = alt
		}
	}
	if err := c.loadOrCreatePassword(dir); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(c.pgdata, "PG_VERSION")); errors.Is(err, os.ErrNotExist) {
		if err := c.initdb(ctx, dir); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, fmt.Errorf("inspect cluster: %w", err)
	}
	if c.runAs != nil {
		if err := chownTree(c.pgdata, c.runAs); err != nil {
			return nil, err
		}
	}
	// A server still running here belongs to a launcher that died (we hold
	// the lock): stop it before starting our own.
	if c.pgctl(ctx, "status") == nil {
		opts.Logger.Warn("stopping a Postgres left running by an earlier loregate", "dir", dir)
		if err := c.pgctl(ctx, "stop", "-m", "fast", "-w"); err != nil {
			return nil, fmt.Errorf("stop leftover Postgres: %w", err)
		}
	}
	if c.port, err = freePort(); err != nil {
		return nil, err
	}
	settings := fmt.Sprintf("-c listen_addresses=127.0.0.1 -c port=%d -c unix_socket_directories=''", c.port)
	if opts.Ephemeral {
		settings += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
	}
	logPath := filepath.Join(c.logDir, "postgres.log")
	if c.runAs != nil {
		if err := touchOwned(logPath, c.runAs); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	if err := c.pgctl(ctx, "start", "-w", "-t", "60", "-l", logPath, "-o", settings); err != nil {
		return nil, fmt.Errorf("start Postgres (log: %s): %w", logPath, err)
	}
	if err := c.ensureDatabase(ctx); err != nil {
		_ = c.pgctl(context.WithoutCancel(ctx), "stop", "-m", "fast", "-w")
		return nil, err
	}
	opts.Logger.Info("local Postgres started", "cluster", c.pgdata, "port", c.port, "took", time.Since(start).Round(time.Millisecond))
	ok = true
	return c, nil
}

// URL returns the connection string of opts.Database (password included:
// never log it; see MaskURL).
func (c *Cluster) URL() string { return c.urlFor(c.opts.Database) }

func (c *Cluster) urlFor(db string) string {
	return fmt.Sprintf("postgres://postgres:%s@127.0.0.1:%d/%s?sslmode=disable", c.password, c.port, db)
}

// Stop shuts the server down (fast mode: open sessions are ended) and
// releases the directory.
func (c *Cluster) Stop(ctx context.Context) error {
	defer c.unlock()
	if err := c.pgctl(ctx, "stop", "-m", "fast", "-w", "-t", "60"); err != nil {
		return fmt.Errorf("stop Postgres: %w", err)
	}
	c.opts.Logger.Info("local Postgres stopped")
	return nil
}

func (c *Cluster) lock(dir string) error {
	f, err := os.OpenFile(filepath.Join(dir, "loregate.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return fmt.Errorf("open lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("%w: %s (stop the other `loregate serve` or use another --data-dir)", ErrInUse, dir)
		}
		return fmt.Errorf("lock data directory: %w", err)
	}
	c.lockFile = f
	return nil
}

func (c *Cluster) unlock() {
	if c.lockFile != nil {
		_ = syscall.Flock(int(c.lockFile.Fd()), syscall.LOCK_UN)
		c.lockFile.Close()
		c.lockFile = nil
	}
}

func unprivilegedUser() (*user.User, error) {
	for _, name := range []string{"postgres", "nobody"} {
		if u, err := user.Lookup(name); err == nil {
			return u, nil
		}
	}
	return nil, errors.New("running as root, and Postgres refuses to run as root: no unprivileged user (postgres or nobody) exists to run it as")
}

// AltRoot holds the clusters of data directories that the unprivileged
// server user cannot reach when the launcher runs as root (a checkout
// under /root, say): AltRoot/<hash of the data directory path>/pg.
const AltRoot = "/var/lib/loregate"

func pathHash(dir string) string {
	sum := sha256.Sum256([]byte(dir))
	return hex.EncodeToString(sum[:8])
}

// checkReachable verifies that the unprivileged user can reach dir: every
// ancestor must grant it search permission.
func (c *Cluster) checkReachable(dir string) error {
	uid, _ := strconv.Atoi(c.runAs.Uid)
	gid, _ := strconv.Atoi(c.runAs.Gid)
	for p := dir; ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("inspect %s: %w", p, err)
		}
		sys := st.Sys().(*syscall.Stat_t)
		mode := st.Mode().Perm()
		ok := mode&0o001 != 0 ||
			(int(sys.Gid) == gid && mode&0o010 != 0) ||
			(int(sys.Uid) == uid && mode&0o100 != 0)
		if !ok {
			return fmt.Errorf("data directory %s is not reachable by user %s (Postgres cannot run as root): %s lacks search permission for it; use --data-dir under /tmp or /var/lib, or run as a normal user", dir, c.runAs.Username, p)
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

func (c *Cluster) loadOrCreatePassword(dir string) error {
	path := filepath.Join(dir, "password")
	b, err := os.ReadFile(path)
	if err == nil && len(bytes.TrimSpace(b)) > 0 {
		c.password = string(bytes.TrimSpace(b))
		return nil
	}
	if _, err := os.Stat(filepath.Join(c.pgdata, "PG_VERSION")); err == nil {
		return fmt.Errorf("cluster exists in %s but its password file %s is missing", c.pgdata, path)
	}
	raw := make([]byte, 18)
	if _, err := rand.Read(raw); err != nil {
		return fmt.Errorf("generate password: %w", err)
	}
	c.password = hex.EncodeToString(raw)
	if err := os.WriteFile(path, []byte(c.password+"\n"), 0o600); err != nil {
		return fmt.Errorf("write password file: %w", err)
	}
	return nil
}

func (c *Cluster) initdb(ctx context.Context, dir string) error {
	if err := os.RemoveAll(c.pgdata); err != nil {
		return fmt.Errorf("clear partial cluster: %w", err)
	}
	if err := os.MkdirAll(c.pgdata, 0o700); err != nil {
		return fmt.Errorf("create cluster directory: %w", err)
	}
	// initdb reads the password from a file the server user can read; it
	// lives next to the cluster only for the duration of initdb.
	pw, err := os.CreateTemp(filepath.Dir(c.pgdata), "initdb-pw-*")
	if err != nil {
		return fmt.Errorf("write initdb password file: %w", err)
	}
	defer os.Remove(pw.Name())
	if _, err := pw.WriteString(c.password + "\n"); err != nil {
		pw.Close()
		return fmt.Errorf("write initdb password file: %w", err)
	}
	pw.Close()
	if c.runAs != nil {
		if err := chownTree(c.pgdata, c.runAs); err != nil {
			return err
		}
		if err := chownTree(pw.Name(), c.runAs); err != nil {
			return err
		}
	}
	start := time.Now()
	cmd := c.command(ctx, "initdb", "-D", c.pgdata, "-U", "postgres", "--auth=scram-sha-256",
		"--pwfile="+pw.Name(), "-E", "UTF8", "--locale=C.UTF-8", "--no-instructions")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb failed: %w: %s", err, lastLines(out, 5))
	}
	c.opts.Logger.Info("initialised local Postgres cluster", "dir", c.pgdata, "took", time.Since(start).Round(time.Millisecond))
	return nil
}

func (c *Cluster) pgctl(ctx context.Context, args ...string) error {
	args = append([]string{"-D", c.pgdata}, args...)
	cmd := c.command(ctx, "pg_ctl", args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("pg_ctl %s: %w: %s", args[2], err, lastLines(out, 5))
	}
	return nil
}

func (c *Cluster) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, name), args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
	// Postgres must outlive a Ctrl-C delivered to our process group; the
	// launcher stops it itself.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if c.runAs != nil {
		uid, _ := strconv.ParseUint(c.runAs.Uid, 10, 32)
		gid, _ := strconv.ParseUint(c.runAs.Gid, 10, 32)
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		cmd.Dir = "/"
		cmd.Env = append(cmd.Env, "HOME="+c.runAs.HomeDir)
	}
	return cmd
}

func (c *Cluster) ensureDatabase(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, c.urlFor("postgres"))
	if err != nil {
		return fmt.Errorf("connect to local Postgres: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", c.opts.Database).Scan(&exists); err != nil {
		return fmt.Errorf("look up database %s: %w", c.opts.Database, err)
	}
	if exists {
		return nil
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{c.opts.Database}.Sanitize()); err != nil {
		return fmt.Errorf("create database %s: %w", c.opts.Database, err)
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func chownTree(root string, u *user.User) error {
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if err := os.Lchown(p, uid, gid); err != nil {
			return fmt.Errorf("hand %s to user %s: %w", p, u.Username, err)
		}
		return nil
	})
}

func touchOwned(path string, u *user.User) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	f.Close()
	return chownTree(path, u)
}

func lastLines(out []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// MaskURL returns a database URL fit for logs: a postgres:// URL with its
// password replaced by "xxxxx" (url.URL.Redacted), and anything else (a
// key=value connection string, an unparsable URL) replaced by a
// placeholder, since it may hold a password in a form we cannot mask.
func MaskURL(u string) string {
	parsed, err := url.Parse(u)
	if err != nil || (parsed.Scheme != "postgres" && parsed.Scheme != "postgresql") {
		return "(connection string set, masked)"
	}
	if q := parsed.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		parsed.RawQuery = q.Encode()
	}
	return parsed.Redacted()
}
