package postgrestest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Reuse: cloning the template costs about 0.2 s of server CPU per
// database (a CREATE DATABASE plus its DROP), and a test package creates
// dozens. A database whose test passed and left the schema as the
// template has it (same relations, columns, constraints, indexes,
// functions, triggers, enum labels, database settings and migration rows:
// the fingerprint) is emptied instead (every table's rows deleted, every
// sequence set back to the template's value: a few milliseconds) and
// handed to the process's next NewDatabase call. Connections the test
// left open are terminated first. Anything else (a failed test, a test
// that migrated down, added a trigger, altered the database, or a
// connection that comes back while the database is emptied) drops the
// database as before.
//
// Spare databases belong to the process that made them: it keeps one
// connection open for as long as it runs, named after its owner token
// (application_name loregate-test-owner-TOKEN, visible in pg_stat_activity
// from every database of the server), and the next process to start
// drops the spares of any owner without that connection (a process that
// ended). An advisory lock would not do: it belongs to one database, and
// processes may connect to different ones.

// ownerApp prefixes the owner connection's application_name.
const ownerApp = "loregate-test-owner-"

// fingerprintSQL digests everything about a database's schema a test
// could change, plus the rows of the tables the template already fills
// (the migration history); %[1]s is the user-schema filter, %[2]s those
// tables' row digests.
const fingerprintSQL = `SELECT md5(coalesce(string_agg(x, E'\n' ORDER BY x), '')) FROM (
SELECT 'c ' || c.oid::regclass::text || ' ' || c.relkind::text || ' ' || c.relnatts || ' ' || c.relpersistence::text
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE %[1]s
UNION ALL SELECT 'a ' || a.attrelid::regclass::text || ' ' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull
  || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
  FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
  WHERE a.attnum > 0 AND NOT a.attisdropped AND %[1]s
UNION ALL SELECT 'k ' || r.conrelid::regclass::text || ' ' || r.conname || ' ' || pg_get_constraintdef(r.oid)
  FROM pg_constraint r JOIN pg_namespace n ON n.oid = r.connamespace WHERE %[1]s
UNION ALL SELECT 'i ' || pg_get_indexdef(i.indexrelid)
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE %[1]s
UNION ALL SELECT 'p ' || p.oid::regprocedure::text || ' ' || md5(p.prosrc)
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE %[1]s
UNION ALL SELECT 't ' || g.tgrelid::regclass::text || ' ' || g.tgname || ' ' || g.tgenabled::text FROM pg_trigger g WHERE NOT g.tgisinternal
UNION ALL SELECT 'e ' || e.enumtypid::regtype::text || ' ' || e.enumlabel || ' ' || e.enumsortorder FROM pg_enum e
UNION ALL SELECT 'x ' || extname || ' ' || extversion FROM pg_extension
UNION ALL SELECT 'v ' || schemaname || '.' || viewname || ' ' || md5(definition) FROM pg_views WHERE schemaname NOT IN ('pg_catalog', 'information_schema')
UNION ALL SELECT 'y ' || polrelid::regclass::text || ' ' || polname FROM pg_policy
UNION ALL SELECT 's ' || array_to_string(setconfig, ',') FROM pg_db_role_setting
  WHERE setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
%[2]s) f(x)`

// userNamespace selects the schemas a test's objects live in.
const userNamespace = `n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%' AND n.nspname NOT LIKE 'pg_temp%'`

// reuse is the process's state for reusing databases.
var reuse struct {
	once  sync.Once
	token string    // this process's owner token (8 hex digits)
	owner *pgx.Conn // the owner connection, open for the process's life
	off   string    // why reuse is off (empty: on)

	fingerprint string // the template's fingerprint
	digestSQL   string // fingerprintSQL completed with the kept tables
	cleanSQL    string // empties a database back to the template's state

	mu     sync.Mutex
	spares []string
}

// takeSpare returns a spare database's name, or "" when there is none.
func takeSpare() string {
	reuse.mu.Lock()
	defer reuse.mu.Unlock()
	if n := len(reuse.spares); n > 0 {
		name := reuse.spares[n-1]
		reuse.spares = reuse.spares[:n-1]
		return name
	}
	return ""
}

// newName returns a new database name carrying this process's owner token.
func newName() string {
	if reuse.token == "" {
		return "loregate_t_" + randomSuffix()
	}
	return "loregate_t_" + reuse.token + "_" + randomSuffix()
}

// prepareReuse opens the process's owner connection, drops spare
// databases left by processes that ended, and reads what cleaning needs
// from a fresh clone of the template. Any failure only turns reuse off.
func prepareReuse(ctx context.Context, base, tpl string) {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	token := hex.EncodeToString(b)
	cfg, err := pgx.ParseConfig(base)
	if err != nil {
		reuse.off = err.Error()
		return
	}
	cfg.RuntimeParams["application_name"] = ownerApp + token
	owner, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		reuse.off = err.Error()
		return
	}
	reuse.owner, reuse.token = owner, token
	sweepEnded(ctx, owner)
	if err := readTemplate(ctx, base, tpl); err != nil {
		reuse.off = err.Error()
	}
}

// sweepEnded drops the databases of owners whose owner connection is gone.
func sweepEnded(ctx context.Context, c *pgx.Conn) {
	rows, err := c.Query(ctx, `SELECT d.datname FROM pg_database d
WHERE d.datname ~ '^loregate_t_[0-9a-f]{8}_[0-9a-f]{16}$'
  AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.application_name = $1 || split_part(d.datname, '_', 3))`, ownerApp)
	if err != nil {
		return
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return
	}
	for _, name := range names {
		if strings.Split(name, "_")[2] == reuse.token {
			continue
		}
		_, _ = c.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	}
}

// readTemplate builds the fingerprint and cleaning statements from a
// throwaway clone of the template (the template itself takes no
// connections but CREATE DATABASE's).
func readTemplate(ctx context.Context, base, tpl string) error {
	probe := "loregate_p_" + randomSuffix()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		return err
	}
	defer admin.Close(context.Background())
	if _, err := admin.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", probe, tpl)); err != nil {
		return err
	}
	defer admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+probe+" WITH (FORCE)")
	c, err := pgx.Connect(ctx, replaceDatabase(base, probe))
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	empty, kept, err := tables(ctx, c)
	if err != nil {
		return err
	}
	seqs, err := sequenceResets(ctx, c)
	if err != nil {
		return err
	}
	var digests strings.Builder
	for _, k := range kept {
		fmt.Fprintf(&digests, "UNION ALL SELECT 'r %s ' || t::text FROM %s t\n", strings.ReplaceAll(k, "'", "''"), k)
	}
	reuse.digestSQL = fmt.Sprintf(fingerprintSQL, userNamespace, digests.String())
	if err := c.QueryRow(ctx, reuse.digestSQL).Scan(&reuse.fingerprint); err != nil {
		return fmt.Errorf("fingerprint the template: %w", err)
	}
	var clean strings.Builder
	clean.WriteString("SET session_replication_role = replica;\n")
	for _, e := range empty {
		clean.WriteString("DELETE FROM " + e + ";\n")
	}
	clean.WriteString(seqs)
	clean.WriteString("RESET session_replication_role;\n")
	reuse.cleanSQL = clean.String()
	return nil
}

// tables lists the template's tables (partitions excluded: deleting from
// the parent reaches them) split into those without rows, which cleaning
// empties, and those with rows, whose rows the fingerprint covers.
func tables(ctx context.Context, c *pgx.Conn) (empty, kept []string, err error) {
	rows, err := c.Query(ctx, `SELECT c.oid::regclass::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND `+userNamespace+` ORDER BY 1`)
	if err != nil {
		return nil, nil, err
	}
	all, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, nil, err
	}
	for _, name := range all {
		var has bool
		if err := c.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM "+name+")").Scan(&has); err != nil {
			return nil, nil, err
		}
		if has {
			kept = append(kept, name)
		} else {
			empty = append(empty, name)
		}
	}
	return empty, kept, nil
}

// sequenceResets returns the statements that set every sequence back to
// its state in the template.
func sequenceResets(ctx context.Context, c *pgx.Conn) (string, error) {
	rows, err := c.Query(ctx, `SELECT format('SELECT setval(%L, %s, %s);', quote_ident(schemaname) || '.' || quote_ident(sequencename),
  coalesce(last_value, start_value), CASE WHEN last_value IS NULL THEN 'false' ELSE 'true' END) FROM pg_sequences`)
	if err != nil {
		return "", err
	}
	stmts, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return "", err
	}
	return strings.Join(stmts, "\n") + "\n", nil
}

// release hands the database name back for reuse when the test passed and
// left its schema as the template's, and drops it otherwise.
func release(base, name string, failed bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if !failed && reuse.off == "" && clean(ctx, base, name) == nil {
		reuse.mu.Lock()
		reuse.spares = append(reuse.spares, name)
		reuse.mu.Unlock()
		return nil
	}
	c, err := pgx.Connect(ctx, base)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	_, err = c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	return err
}

// clean empties the database back to the template's state; it returns
// nil when the database may be reused: its fingerprint is the template's
// and nothing else is connected to it once it is empty.
func clean(ctx context.Context, base, name string) error {
	c, err := pgx.Connect(ctx, replaceDatabase(base, name))
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(ctx, `SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`); err != nil {
		return err
	}
	var digest string
	if err := c.QueryRow(ctx, reuse.digestSQL).Scan(&digest); err != nil {
		return err
	}
	if digest != reuse.fingerprint {
		return errors.New("the schema differs from the template's")
	}
	if _, err := c.Exec(ctx, reuse.cleanSQL); err != nil {
		return err
	}
	var n int
	if err := c.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return fmt.Errorf("%d connections came back while it was emptied", n)
	}
	return nil
}
