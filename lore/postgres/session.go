package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"loregate/lore"
)

// DashboardSession is one dashboard sign-in as stored (docs/dashboard.md
// "Sessions and forms"): who, the member token the dashboard presents to the API,
// the member's guilds as the dashboard encodes them (JSON), the session's
// CSRF token and when it ends.
type DashboardSession struct {
	UserID string
	// UserName is stored clipped to 200 characters.
	UserName string
	Token    string
	Guilds   json.RawMessage
	CSRF     string
	// ExpiresAt ends the session: an expired row is never read and is
	// deleted by the next CreateDashboardSession.
	ExpiresAt time.Time
}

// maxSessionID bounds a session id (a cookie value) before it is hashed.
const maxSessionID = 100

// sessionKey is the row key of session id: only its SHA-256 is stored, so
// the table leaks no cookie.
func sessionKey(id string) []byte {
	s := sha256.Sum256([]byte(id))
	return s[:]
}

// CreateDashboardSession stores s under id (the cookie value) and deletes
// expired sessions in the same transaction.
func (s *Store) CreateDashboardSession(ctx context.Context, id string, ds DashboardSession) error {
	err := pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, sessionDeleteExpired); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, sessionInsert, sessionKey(id), ds.UserID, lore.TruncateRunes(ds.UserName, 200), ds.Token, []byte(ds.Guilds), ds.CSRF, ds.ExpiresAt)
		return err
	})
	return wrapErr("store dashboard session", err)
}

// DashboardSession returns the unexpired session id names; lore.ErrNotFound
// when there is none (unknown, expired, ended, or an id over 100 bytes).
func (s *Store) DashboardSession(ctx context.Context, id string) (DashboardSession, error) {
	if id == "" || len(id) > maxSessionID {
		return DashboardSession{}, notFound("dashboard session", nil)
	}
	var ds DashboardSession
	var guilds []byte
	err := s.db.QueryRow(ctx, sessionGet, sessionKey(id)).Scan(&ds.UserID, &ds.UserName, &ds.Token, &guilds, &ds.CSRF, &ds.ExpiresAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return DashboardSession{}, notFound("dashboard session", nil)
	}
	if err != nil {
		return DashboardSession{}, wrapErr("read dashboard session", err)
	}
	ds.Guilds = guilds
	return ds, nil
}

// DeleteDashboardSession ends the session id names (no error when there is
// none).
func (s *Store) DeleteDashboardSession(ctx context.Context, id string) error {
	if _, err := s.db.Exec(ctx, sessionDelete, sessionKey(id)); err != nil {
		return wrapErr("delete dashboard session", err)
	}
	return nil
}

// LoginState is a Discord sign-in in progress as stored (migration 000081,
// docs/dashboard.md#sessions-and-forms): the PKCE verifier of the code
// exchange and the dashboard page to open after it.
type LoginState struct {
	// Verifier is the PKCE code verifier (at most 128 characters).
	Verifier string
	// Next is the page to open after the sign-in (at most 2048 bytes).
	Next string
	// ExpiresAt ends the sign-in: an expired state is never consumed.
	ExpiresAt time.Time
}

// MaxLoginStates bounds the unexpired sign-ins in progress, so anonymous
// visitors starting sign-ins cannot grow the table without end.
const MaxLoginStates = 10_000

// CreateLoginState stores ls under state (the OAuth state parameter; only
// its SHA-256 is kept) and deletes expired states in the same transaction.
// With MaxLoginStates unexpired states already stored it stores nothing and
// the error wraps lore.ErrUnavailable. Starts are serialised by a
// transaction-scoped advisory lock, so concurrent ones never pass the cap.
func (s *Store) CreateLoginState(ctx context.Context, state string, ls LoginState) error {
	err := pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, loginStateLock); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, loginStateDeleteExpired); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, loginStateInsert, sessionKey(state), ls.Verifier, ls.Next, ls.ExpiresAt, MaxLoginStates)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("%d sign-ins are in progress: %w", MaxLoginStates, lore.ErrUnavailable)
		}
		return nil
	})
	return wrapErr("store dashboard login state", err)
}

// ConsumeLoginState deletes the unexpired sign-in state names and returns
// it: a state is good for one callback. lore.ErrNotFound when there is none
// (unknown, expired, already consumed, or a state over 100 bytes).
func (s *Store) ConsumeLoginState(ctx context.Context, state string) (LoginState, error) {
	if state == "" || len(state) > maxSessionID {
		return LoginState{}, notFound("dashboard login state", nil)
	}
	var ls LoginState
	err := s.db.QueryRow(ctx, loginStateConsume, sessionKey(state)).Scan(&ls.Verifier, &ls.Next, &ls.ExpiresAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return LoginState{}, notFound("dashboard login state", nil)
	}
	if err != nil {
		return LoginState{}, wrapErr("consume dashboard login state", err)
	}
	return ls, nil
}
