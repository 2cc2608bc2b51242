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

	"loregate/lore"
	"loregate/lore/postgres"
)

// Sessions are server-side, one row per sign-in in the dashboard_sessions
// table (migrations/000050, read and written by lore/postgres), and the browser holds only a random id in an
// HttpOnly, SameSite=Lax cookie (Secure when the public URL is https).
// Server-side rather than a signed cookie because:
//   - the member token carries every guild the member is in: for members of
//     many servers it does not fit a 4 KB cookie;
//   - signing out (or an operator deleting rows) ends a session at once,
//     while a signed cookie stays valid until it expires;
//   - the token never reaches the browser, so page script cannot leak it.
//
// The Discord sign-in's short-lived state (OAuth state, PKCE verifier and
// the page to open afterwards) is server-side too, a row of
// dashboard_login_states (migrations/000081) for ten minutes that the
// callback consumes, so a replayed callback finds nothing; the browser
// holds the state in an HMAC-signed cookie that binds it to the sign-in.

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

func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// createSession stores s (with a fresh CSRF token) and returns the cookie
// value naming it.
func (d *Dashboard) createSession(ctx context.Context, s *session) (string, error) {
	id := randomToken()
	s.CSRF = randomToken()
	guilds, err := json.Marshal(s.Guilds)
	if err != nil {
		return "", fmt.Errorf("encode guilds: %w", err)
	}
	err = d.cfg.Sessions.CreateDashboardSession(ctx, id, postgres.DashboardSession{UserID: s.UserID, UserName: s.UserName,
		Token: s.Token, Guilds: guilds, CSRF: s.CSRF, ExpiresAt: s.ExpiresAt})
	if err != nil {
		return "", err
	}
	return id, nil
}

// session returns the request's session and its cookie value; nil when
// there is none (no cookie, unknown, expired or ended).
func (d *Dashboard) session(r *http.Request) (*session, string, error) {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil, "", nil
	}
	ds, err := d.cfg.Sessions.DashboardSession(r.Context(), c.Value)
	if errors.Is(err, lore.ErrNotFound) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	s := &session{UserID: ds.UserID, UserName: ds.UserName, Token: ds.Token, CSRF: ds.CSRF, ExpiresAt: ds.ExpiresAt}
	if err := json.Unmarshal(ds.Guilds, &s.Guilds); err != nil {
		return nil, "", fmt.Errorf("decode session guilds: %w", err)
	}
	return s, c.Value, nil
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
