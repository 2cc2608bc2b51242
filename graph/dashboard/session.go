package dashboard

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"loregate/lore"
)

// Sessions are server-side, one row per sign-in in the dashboard_sessions
// table (migrations/000050), and the browser holds only a random id in an
// HttpOnly, SameSite=Lax cookie (Secure when the public URL is https).
// Server-side rather than a signed cookie because:
//   - the member token carries every guild the member is in: for members of
//     many servers it does not fit a 4 KB cookie;
//   - signing out (or an operator deleting rows) ends a session at once,
//     while a signed cookie stays valid until it expires;
//   - the token never reaches the browser, so page script cannot leak it.
//
// The Discord sign-in's short-lived state (OAuth state and PKCE verifier)
// is the exception: it lives in an HMAC-signed cookie for ten minutes, so
// anonymous visitors cause no database writes.

const (
	sessionCookie = "loregate_session"
	loginCookie   = "loregate_login"
	preCookie     = "loregate_pre"
	// loginTTL bounds the Discord round trip.
	loginTTL = 10 * time.Minute
)

// session is one signed-in member.
type session struct {
	UserID   string
	UserName string
	// Token is the member token presented to the API.
	Token  string
	Guilds []guild
	// CSRF is the session's write-form token.
	CSRF      string
	ExpiresAt time.Time
}

// guild is a server the member signed in with.
type guild struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Manage bool   `json:"manage"`
}

// sessionStore keeps sessions in Postgres.
type sessionStore struct {
	pool *pgxpool.Pool
}

func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func hashID(id string) []byte {
	s := sha256.Sum256([]byte(id))
	return s[:]
}

// create stores s and returns the cookie value naming it. Expired rows are
// deleted in the same transaction.
func (st *sessionStore) create(ctx context.Context, s *session) (string, error) {
	id := randomToken()
	s.CSRF = randomToken()
	guilds, err := json.Marshal(s.Guilds)
	if err != nil {
		return "", fmt.Errorf("encode guilds: %w", err)
	}
	err = pgx.BeginFunc(ctx, st.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM dashboard_sessions WHERE expires_at < now()`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO dashboard_sessions (id_hash, user_id, user_name, token, guilds, csrf, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`, hashID(id), s.UserID, lore.TruncateRunes(s.UserName, 200), s.Token, guilds, s.CSRF, s.ExpiresAt)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("store session: %w", err)
	}
	return id, nil
}

// errNoSession is returned for a missing, unknown or expired session.
var errNoSession = errors.New("no session")

// get returns the session named by the cookie value id.
func (st *sessionStore) get(ctx context.Context, id string) (*session, error) {
	if id == "" || len(id) > 100 {
		return nil, errNoSession
	}
	var s session
	var guilds []byte
	err := st.pool.QueryRow(ctx, `SELECT user_id, user_name, token, guilds, csrf, expires_at FROM dashboard_sessions
		WHERE id_hash = $1 AND expires_at > now()`, hashID(id)).Scan(&s.UserID, &s.UserName, &s.Token, &guilds, &s.CSRF, &s.ExpiresAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, errNoSession
	}
	if err != nil {
		return nil, fmt.Errorf("read session: %w", err)
	}
	if err := json.Unmarshal(guilds, &s.Guilds); err != nil {
		return nil, fmt.Errorf("decode session guilds: %w", err)
	}
	return &s, nil
}

// delete ends the session named by id.
func (st *sessionStore) delete(ctx context.Context, id string) error {
	if _, err := st.pool.Exec(ctx, `DELETE FROM dashboard_sessions WHERE id_hash = $1`, hashID(id)); err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	return nil
}

// cookie returns a dashboard cookie: HttpOnly, SameSite=Lax, Secure when
// the dashboard is served over https, scoped to /dashboard/.
func (d *Dashboard) cookie(name, value string, maxAge time.Duration) *http.Cookie {
	c := &http.Cookie{Name: name, Value: value, Path: "/dashboard/", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: d.secure}
	if maxAge > 0 {
		c.MaxAge = int(maxAge / time.Second)
		c.Expires = time.Now().Add(maxAge)
	} else {
		c.MaxAge = -1
	}
	return c
}

// signed returns value with an HMAC-SHA256 tag under the dashboard's key.
func (d *Dashboard) signed(value string) string {
	m := hmac.New(sha256.New, d.key)
	m.Write([]byte(value))
	return value + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// verify returns the value of a signed string, or false.
func (d *Dashboard) verify(s string) (string, bool) {
	i := strings.LastIndexByte(s, '.')
	if i < 0 {
		return "", false
	}
	want := d.signed(s[:i])
	if subtle.ConstantTimeCompare([]byte(want), []byte(s)) != 1 {
		return "", false
	}
	return s[:i], true
}

// checkCSRF reports whether the form's csrf field matches want.
func checkCSRF(r *http.Request, want string) bool {
	got := r.PostFormValue("csrf")
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}
