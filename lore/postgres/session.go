package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
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
