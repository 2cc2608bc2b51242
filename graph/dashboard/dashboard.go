// Package dashboard is the web dashboard for server managers, served by
// `loregate serve` at /dashboard/ (docs/dashboard.md): sign in with Discord
// (or, for operators, with a `loregate token` output), browse a server's
// collections and persona books, edit entries with every field of the
// model, change book and server settings, import with a preview and undo,
// export in every format, and try activation in a playground.
//
// It is a client of the public GraphQL API and uses nothing else for lore:
// every page is built from the named operations of the typed client
// graph/client, run in-process as the principal of the signed-in member's
// token (checked on every request as the API's middleware checks it), so
// the member gets exactly the authorisation any caller with that token
// gets. Its own state is the sign-in sessions (session.go; their SQL is in
// lore/postgres).
//
// Every handler returns an error and one wrapper renders it
// (handlers.go).
//
// Pages are server-rendered html/template with a small hand-written script
// (drag and drop, import preview, job progress); every asset is embedded,
// there is no build step, and texts come from the English / Brazilian
// Portuguese catalog mechanism shared with the Discord adapter (lore/i18n).
package dashboard

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"

	"loregate/graph/auth"
	"loregate/graph/client"
	"loregate/lore/i18n"
	"loregate/lore/postgres"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Config configures the dashboard.
type Config struct {
	// API is the typed client of the GraphQL API (client.New with the
	// service's authenticator): it checks the members' tokens and runs
	// their operations in-process.
	API *client.Client
	// Auth mints the member token after a Discord sign-in (it needs
	// LOREGATE_JWT_SECRET).
	Auth *auth.Authenticator
	// Sessions holds the sign-in sessions (migrations/000050).
	Sessions *postgres.Store
	// OAuth is the Discord application; an empty ClientID leaves only the
	// development sign-in.
	OAuth OAuth
	// PublicURL is where browsers reach the service (LOREGATE_PUBLIC_URL,
	// e.g. https://lore.example.com): the OAuth redirect URL is
	// PublicURL + "/dashboard/callback", and https makes cookies Secure.
	PublicURL string
	// SigningKey signs the short-lived sign-in cookie (the JWT secret
	// serves; empty = a random key per process, so a sign-in must come
	// back to the same process).
	SigningKey []byte
	// HTTPClient reaches Discord (nil = a client with a 15 s timeout).
	HTTPClient *http.Client
	Logger     *slog.Logger
	// SessionTTL is how long a sign-in lasts and its member token is
	// valid (0 = 12 hours).
	SessionTTL time.Duration
}

// Dashboard is the /dashboard/ handler set.
type Dashboard struct {
	cfg      Config
	api      *client.Client
	cat      catalog.Catalog
	pages    map[string]*template.Template
	key      []byte
	secure   bool
	redirect string
	hc       *http.Client
	log      *slog.Logger
}

// New returns the dashboard for cfg.
func New(cfg Config) (*Dashboard, error) {
	if cfg.API == nil || cfg.Auth == nil || cfg.Sessions == nil {
		return nil, errors.New("dashboard: API, Auth and Sessions are required")
	}
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = 12 * time.Hour
	}
	pub := strings.TrimRight(cfg.PublicURL, "/")
	u, err := url.Parse(pub)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("dashboard: public URL %q is not an http(s) URL such as https://lore.example.com", cfg.PublicURL)
	}
	d := &Dashboard{cfg: cfg, api: cfg.API,
		cat: i18n.NewCatalog(texts), key: cfg.SigningKey, secure: u.Scheme == "https",
		redirect: pub + "/dashboard/callback", hc: cfg.HTTPClient, log: cfg.Logger}
	if len(d.key) == 0 {
		d.key = make([]byte, 32)
		_, _ = rand.Read(d.key)
	} else {
		// A key of its own, derived from the given secret.
		m := hmac.New(sha256.New, d.key)
		m.Write([]byte("loregate dashboard sign-in cookie"))
		d.key = m.Sum(nil)
	}
	if d.hc == nil {
		d.hc = &http.Client{Timeout: 15 * time.Second}
	}
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	d.pages, err = parsePages()
	if err != nil {
		return nil, err
	}
	return d, nil
}

// RedirectURL is the OAuth2 redirect URL to register in the Discord
// application.
func (d *Dashboard) RedirectURL() string { return d.redirect }

// parsePages parses every page template together with the layout.
func parsePages() (map[string]*template.Template, error) {
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("dashboard templates: %w", err)
	}
	pages := map[string]*template.Template{}
	for _, n := range names {
		base := strings.TrimPrefix(n, "templates/")
		if base == "layout.html" || base == "partials.html" {
			continue
		}
		t, err := template.New(base).Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/partials.html", n)
		if err != nil {
			return nil, fmt.Errorf("dashboard template %s: %w", base, err)
		}
		pages[strings.TrimSuffix(base, ".html")] = t
	}
	return pages, nil
}

// Mount registers the dashboard's routes on mux under /dashboard/.
func (d *Dashboard) Mount(mux *http.ServeMux) {
	static, _ := fs.Sub(staticFS, "static")
	mux.HandleFunc("GET /dashboard/static/{file...}", serveStatic(static))
	mux.Handle("GET /dashboard/{$}", d.handle(d.home))
	mux.HandleFunc("GET /dashboard", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/dashboard/", http.StatusMovedPermanently)
	})
	mux.Handle("GET /dashboard/login", d.handle(d.login))
	mux.Handle("GET /dashboard/callback", d.handle(d.callback))
	mux.Handle("POST /dashboard/dev-login", d.handle(d.devLogin))
	mux.Handle("POST /dashboard/logout", d.handle(d.logout))
	mux.Handle("GET /dashboard/lang/{lang}", d.handle(d.setLang))

	s := "/dashboard/s/{server}/"
	mux.Handle("GET "+s+"{$}", d.member(d.serverPage))
	mux.Handle("POST "+s+"settings", d.member(d.serverSettings))
	mux.Handle("POST "+s+"collections", d.member(d.createCollection))
	mux.Handle("POST "+s+"b/{book}/state", d.member(d.collectionState))
	mux.Handle("GET "+s+"b/{book}/{$}", d.member(d.bookPage))
	mux.Handle("POST "+s+"b/{book}/settings", d.member(d.bookSettings))
	mux.Handle("GET "+s+"b/{book}/export", d.member(d.export))
	mux.Handle("GET "+s+"b/{book}/e/{entry}", d.member(d.entryPage))
	mux.Handle("POST "+s+"b/{book}/e/{entry}", d.member(d.entrySave))
	mux.Handle("POST "+s+"b/{book}/e/{entry}/delete", d.member(d.entryDelete))
	mux.Handle("GET "+s+"import", d.member(d.importPage))
	mux.Handle("POST "+s+"import/preview", d.member(d.importPreview))
	mux.Handle("POST "+s+"import", d.member(d.importCommit))
	mux.Handle("GET "+s+"jobs/{job}", d.member(d.jobPage))
	mux.Handle("GET "+s+"history", d.member(d.historyPage))
	mux.Handle("POST "+s+"history/{id}/undo", d.member(d.undo))
	mux.Handle("GET "+s+"play", d.member(d.playPage))
	mux.Handle("POST "+s+"play", d.member(d.playPage))
	mux.Handle("GET "+s+"log", d.member(d.logPage))
	mux.Handle("GET "+s+"artifacts/{id}", d.member(d.artifact))
	mux.Handle("GET "+s+"personas", d.member(d.personasPage))
	mux.Handle("POST "+s+"personas", d.member(d.personaAction))
	mux.Handle("GET "+s+"backups", d.member(d.backupsPage))
	mux.Handle("POST "+s+"backups", d.member(d.backupAction))
	// The workbench (workbench.go).
	mux.Handle("GET "+s+"b/{book}/e/{entry}/history", d.member(d.revisionsPage))
	mux.Handle("POST "+s+"revisions/{id}/restore", d.member(d.restoreRevision))
	mux.Handle("GET "+s+"deleted", d.member(d.deletedPage))
	mux.Handle("GET "+s+"proposals", d.member(d.proposalsPage))
	mux.Handle("POST "+s+"proposals/{id}/review", d.member(d.reviewProposal))
	mux.Handle("POST "+s+"b/{book}/bulk", d.member(d.bulkAction))
	mux.Handle("POST "+s+"b/{book}/organise", d.member(d.organise))
}

// serveStatic serves an embedded asset, cached for an hour.
func serveStatic(static fs.FS) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		http.ServeFileFS(w, r, static, r.PathValue("file"))
	}
}

// tr translates for one request.
type tr struct {
	p   *message.Printer
	tag language.Tag
}

// Reason renders an API reason key with its params in the request's
// language (lore/i18n's reasons).
func (t tr) Reason(key string, params map[string]any) string { return i18n.Text(t.tag, key, params) }

// S formats the message key with args in the request's language.
func (t tr) S(key string, args ...any) string { return t.p.Sprintf(key, args...) }

// translator picks the request's language: the lang cookie, else
// Accept-Language.
func (d *Dashboard) translator(r *http.Request) (tr, string) {
	pref := r.Header.Get("Accept-Language")
	if c, err := r.Cookie("loregate_lang"); err == nil && dashboardLang(c.Value) {
		pref = c.Value
	}
	tag := i18n.Tag(pref)
	return tr{p: i18n.Printer(d.cat, tag), tag: tag}, i18n.Code(tag)
}

// dashboardLang reports whether lang is one of the dashboard's languages
// (GET /dashboard/lang/{lang}): en, pt-BR, es.
func dashboardLang(lang string) bool { return lang == "en" || lang == "pt-BR" || lang == "es" }

// setLang keeps the chosen language in a cookie and goes back.
func (d *Dashboard) setLang(rq *req) error {
	lang := rq.r.PathValue("lang")
	if !dashboardLang(lang) {
		http.NotFound(rq.w, rq.r)
		return nil
	}
	http.SetCookie(rq.w, d.cookie("loregate_lang", lang, 365*24*time.Hour))
	http.Redirect(rq.w, rq.r, safeNext(rq.r.URL.Query().Get("back")), http.StatusSeeOther)
	return nil
}
