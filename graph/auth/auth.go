// Package auth identifies the caller of the API and answers what it may do.
//
// Three kinds of principal exist:
//
//   - a service (the bot, the prompt assembler) presenting one of the keys
//     configured in LOREGATE_SERVICE_KEYS: full access to every server;
//   - a member presenting a bearer token (JWT, HS256, signed with
//     LOREGATE_JWT_SECRET) that names a Discord user and, per guild, whether
//     the member can manage it (Manage Server or Administrator);
//   - a member passed in-process by the Discord adapter (WithPrincipal).
//
// Every member of a server may read either scope; managers and services
// write (docs/contract.md#permissions), and so do members holding the
// server's lore editor role, lore only (docs/workbench.md#lore-editor-role). A request without a
// credential is refused with 401 before GraphQL runs.
package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"loregate/lore"
)

// Kind says how a principal was authenticated.
type Kind int

const (
	// Member is a Discord user with per-guild memberships.
	Member Kind = iota + 1
	// Service is a trusted service holding a service key.
	Service
)

// Membership is the caller's standing in one guild.
type Membership struct {
	// Manage is true for Manage Server or Administrator.
	Manage bool `json:"manage"`
	// Roles are Discord role ids the member holds there that grant lore
	// writes: in a member token, the server's lore editor role when the
	// member had it at sign-in; in-process (the Discord adapter), every
	// role of the interaction's member. A role grants nothing by itself:
	// every write re-checks it against the server's current lore editor
	// role (docs/workbench.md#lore-editor-role). At most MaxRoles.
	Roles []string `json:"roles,omitempty"`
}

// MaxRoles bounds Membership.Roles (Discord's own limit of roles per
// guild).
const MaxRoles = 250

// Principal is the authenticated caller.
type Principal struct {
	Kind Kind
	// UserID is the Discord user snowflake (members) or the service key's
	// label "service#N" (services).
	UserID string
	// Guilds maps guild snowflakes to memberships (members only).
	Guilds map[string]Membership
}

// CanRead reports whether p may read the server's lore.
func (p *Principal) CanRead(server string) bool {
	if p == nil {
		return false
	}
	if p.Kind == Service {
		return true
	}
	_, ok := p.Guilds[server]
	return ok
}

// HasRole reports whether p is a member of server holding role (a
// Discord role id; "" is nobody's). Services hold no roles.
func (p *Principal) HasRole(server, role string) bool {
	if p == nil || p.Kind != Member || role == "" {
		return false
	}
	return slices.Contains(p.Guilds[server].Roles, role)
}

// HasRoles reports whether p carries any role in server (a lore editor
// grant may apply; the server's settings decide).
func (p *Principal) HasRoles(server string) bool {
	return p != nil && p.Kind == Member && len(p.Guilds[server].Roles) > 0
}

// CanManage reports whether p manages the server (Manage Server,
// Administrator or a service key): it may write the server's lore and
// settings. A lore editor writes lore without managing; the graph
// package checks that grant.
func (p *Principal) CanManage(server string) bool {
	if p == nil {
		return false
	}
	if p.Kind == Service {
		return true
	}
	return p.Guilds[server].Manage
}

type ctxKey struct{}

// WithPrincipal returns ctx carrying p; the lore writes of ctx are
// recorded as p's (lore.WithActor, Principal.Actor).
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return lore.WithActor(context.WithValue(ctx, ctxKey{}, p), p.Actor())
}

// Actor names p in revisions and the import history: "user:<discord id>"
// or "service:<label>" ("" for nil).
func (p *Principal) Actor() string {
	switch {
	case p == nil:
		return ""
	case p.Kind == Service:
		return "service:" + p.UserID
	default:
		return "user:" + p.UserID
	}
}

// FromContext returns the principal in ctx, or nil.
func FromContext(ctx context.Context) *Principal {
	p, _ := ctx.Value(ctxKey{}).(*Principal)
	return p
}

// Claims is the JWT payload of a member token.
type Claims struct {
	jwt.RegisteredClaims
	// Guilds maps guild snowflakes to the member's standing there.
	Guilds map[string]Membership `json:"guilds"`
}

// Authenticator checks credentials. The zero value accepts nothing.
type Authenticator struct {
	serviceKeys [][32]byte
	secret      []byte
}

// MinSecretLen is the shortest accepted JWT signing secret, in bytes.
const MinSecretLen = 32

// NewAuthenticator returns an Authenticator for the given service keys and
// JWT secret. Empty keys are ignored; a secret shorter than MinSecretLen is
// an error (an empty secret disables member tokens).
func NewAuthenticator(serviceKeys []string, jwtSecret string) (*Authenticator, error) {
	a := &Authenticator{}
	for _, k := range serviceKeys {
		k = strings.TrimSpace(k)
		if k == "" {
			continue
		}
		if len(k) < 16 {
			return nil, errors.New("service keys must be at least 16 characters long")
		}
		a.serviceKeys = append(a.serviceKeys, sha256.Sum256([]byte(k)))
	}
	if jwtSecret != "" {
		if len(jwtSecret) < MinSecretLen {
			return nil, fmt.Errorf("the JWT secret must be at least %d bytes long", MinSecretLen)
		}
		a.secret = []byte(jwtSecret)
	}
	return a, nil
}

// ErrUnauthenticated is returned for a missing or invalid credential.
var ErrUnauthenticated = errors.New("unauthenticated")

// Authenticate returns the principal of a bearer credential.
func (a *Authenticator) Authenticate(bearer string) (*Principal, error) {
	if bearer == "" {
		return nil, fmt.Errorf("%w: no bearer token", ErrUnauthenticated)
	}
	sum := sha256.Sum256([]byte(bearer))
	for i, k := range a.serviceKeys {
		if subtle.ConstantTimeCompare(sum[:], k[:]) == 1 {
			return &Principal{Kind: Service, UserID: fmt.Sprintf("service#%d", i+1)}, nil
		}
	}
	if a.secret == nil {
		return nil, fmt.Errorf("%w: unknown service key", ErrUnauthenticated)
	}
	var claims Claims
	_, err := jwt.ParseWithClaims(bearer, &claims, func(*jwt.Token) (any, error) { return a.secret, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithExpirationRequired(),
		jwt.WithIssuer(Issuer),
		jwt.WithLeeway(30*time.Second))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnauthenticated, err)
	}
	if claims.Subject == "" {
		return nil, fmt.Errorf("%w: token has no subject", ErrUnauthenticated)
	}
	for _, m := range claims.Guilds {
		if len(m.Roles) > MaxRoles {
			return nil, fmt.Errorf("%w: token carries more than %d roles in a guild", ErrUnauthenticated, MaxRoles)
		}
	}
	return &Principal{Kind: Member, UserID: claims.Subject, Guilds: claims.Guilds}, nil
}

// Issuer is the iss claim of member tokens.
const Issuer = "loregate"

// Mint signs a member token for user with the given guild memberships,
// valid for ttl. It is what `loregate token` uses in development and what a
// dashboard's login service would do after Discord OAuth.
func (a *Authenticator) Mint(user string, guilds map[string]Membership, ttl time.Duration, now time.Time) (string, error) {
	if a.secret == nil {
		return "", errors.New("no JWT secret configured (LOREGATE_JWT_SECRET)")
	}
	claims := Claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    Issuer,
			Subject:   user,
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
		},
		Guilds: guilds,
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(a.secret)
}

// Middleware authenticates every request: 401 with a JSON error body when
// the credential is missing or invalid, else the principal in the context.
func (a *Authenticator) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions {
			next.ServeHTTP(w, r)
			return
		}
		h := r.Header.Get("Authorization")
		token, ok := strings.CutPrefix(h, "Bearer ")
		if !ok {
			token = ""
		}
		token = strings.TrimSpace(token)
		p, err := a.Authenticate(token)
		if err != nil {
			msg := "authentication required: send Authorization: Bearer <service key or member token>"
			if token != "" {
				msg = "invalid credential: the bearer token is neither a configured service key nor a valid, unexpired member token"
			}
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("WWW-Authenticate", `Bearer realm="loregate"`)
			w.WriteHeader(http.StatusUnauthorized)
			body, _ := json.Marshal(map[string]any{"errors": []any{map[string]any{"message": msg, "extensions": map[string]any{"code": "UNAUTHENTICATED"}}}})
			_, _ = w.Write(body)
			return
		}
		next.ServeHTTP(w, r.WithContext(WithPrincipal(r.Context(), p)))
	})
}
