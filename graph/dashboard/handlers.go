package dashboard

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"loregate/graph/auth"
	"loregate/graph/client"
	"loregate/lore"
	"loregate/lore/i18n"
	"loregate/lore/postgres"
)

// Every handler has one shape (pkgsite's): it gets the request as a *req
// and returns an error, and the wrapper (handle, member) renders a failure
// once (serveError). A handler that answers (a page, a redirect, a
// download) returns nil.

// req is one request: the writer and request, the translator and, once
// signed in, the session and the member's principal; under
// /dashboard/s/{server}/ the server as the API shows it to the member.
type req struct {
	w    http.ResponseWriter
	r    *http.Request
	t    tr
	lang string
	s    *session
	// p is the principal of the session's member token, checked on every
	// request as the API's middleware checks a bearer token.
	p *auth.Principal
	// sid is the server's Discord id from the URL; srv its API view.
	sid string
	srv *serverView
	// problems are a refused write's failures, shown in the page's error
	// banner (problems.go).
	problems []problem
}

// ctx is the request's context.
func (rq *req) ctx() context.Context { return rq.r.Context() }

// view is what every page template gets.
type view struct {
	T       tr
	Lang    string
	Path    string
	Session *session
	CSRF    string
	Server  *serverView
	Title   string
	// Flash is a one-line notice (?done=...); Error a page-level error.
	Flash string
	Error string
	// Problems are the error banner's lines (a refused write).
	Problems []problem
	Data     any
}

var snowflake = regexp.MustCompile(`^[0-9]{1,20}$`)

// pageError is a failure shown to the member as the error page: its
// status and message (already translated).
type pageError struct {
	status int
	msg    string
}

func (e *pageError) Error() string { return e.msg }

// fail returns the error page with status and msg.
func fail(status int, msg string) error { return &pageError{status: status, msg: msg} }

// render executes the page template name with data and status.
func (d *Dashboard) render(rq *req, name, title string, status int, data any) {
	d.renderError(rq, name, title, status, data, "")
}

// page renders a member page with status 200.
func (d *Dashboard) page(rq *req, name, title string, data any) {
	d.render(rq, name, title, http.StatusOK, data)
}

// renderError renders a page with a page-level error message.
func (d *Dashboard) renderError(rq *req, name, title string, status int, data any, errMsg string) {
	v := view{T: rq.t, Lang: rq.lang, Path: rq.r.URL.RequestURI(), Session: rq.s, Server: rq.srv, Title: title, Data: data, Error: errMsg, Problems: rq.problems}
	if rq.s != nil {
		v.CSRF = rq.s.CSRF
	}
	if done := rq.r.URL.Query().Get("done"); done != "" {
		v.Flash = flashText(rq.t, done)
	}
	var buf bytes.Buffer
	if err := d.pages[name].ExecuteTemplate(&buf, "layout", v); err != nil {
		d.log.ErrorContext(rq.ctx(), "dashboard template", "page", name, "err", err)
		http.Error(rq.w, "internal error rendering the page", http.StatusInternalServerError)
		return
	}
	h := rq.w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; form-action 'self' "+d.cfg.OAuth.base())
	rq.w.WriteHeader(status)
	_, _ = rq.w.Write(buf.Bytes())
}

// serveError answers a handler's failure, once:
//   - a refused member token ends the session (back to sign-in);
//   - a pageError is the error page with its status and message;
//   - a mutation payload's typed error is the error page (422) with the
//     API's message: nothing was written;
//   - anything else is the lore service failing: 502, details in the log,
//     the API's message (if it gave one) on the page.
func (d *Dashboard) serveError(rq *req, err error) {
	var pe *pageError
	var ce *client.Error
	switch {
	case errors.Is(err, client.ErrUnauthenticated):
		http.SetCookie(rq.w, d.cookie(sessionCookie, "", 0))
		http.Redirect(rq.w, rq.r, "/dashboard/?done=expired", http.StatusSeeOther)
		return
	case errors.As(err, &pe):
		d.renderError(rq, "error", rq.t.S("Error"), pe.status, nil, pe.msg)
		return
	case errors.As(err, &ce) && ce.Payload:
		rq.problems = problems(rq.t, ce, nil)
		d.renderError(rq, "error", rq.t.S("Error"), http.StatusUnprocessableEntity, nil, "")
		return
	case errors.Is(err, client.ErrForbidden):
		d.renderError(rq, "error", rq.t.S("Error"), http.StatusForbidden, nil, forbiddenText(rq.t, err))
		return
	}
	d.log.WarnContext(rq.ctx(), "dashboard API call failed", "path", rq.r.URL.Path, "err", err)
	msg := rq.t.S("The lore service could not answer. Try again in a moment.")
	if errors.As(err, &ce) {
		msg += " (" + lore.ClipRunes(ce.Message, 300) + ")"
	}
	d.renderError(rq, "error", rq.t.S("Error"), http.StatusBadGateway, nil, msg)
}

// forbiddenText is the page's text for a call the API refused with
// FORBIDDEN (a member without the permission it needs; a form shown before
// the permission was taken away): what the call needs, in the member's
// language, from the error's reason key (forbidden_lore_write,
// forbidden_settings, forbidden_export, ...; docs/api.md "Reason keys").
// An error without a key is taken for a lore write.
func forbiddenText(t tr, err error) string {
	reason, params := i18n.ForbiddenLoreWrite, map[string]any(nil)
	var ce *client.Error
	if errors.As(err, &ce) && ce.Reason != "" {
		reason, params = ce.Reason, ce.Params
	}
	return t.S("Nothing was changed: %s", t.Reason(reason, params))
}

// unavailable is the failure of the dashboard's own store (the sessions).
func unavailable(rq *req) error {
	return fail(http.StatusServiceUnavailable, rq.t.S("The lore service could not answer. Try again in a moment."))
}

// handle wraps a handler that needs no session.
func (d *Dashboard) handle(h func(*req) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rq := &req{w: w, r: r}
		rq.t, rq.lang = d.translator(r)
		if err := h(rq); err != nil {
			d.serveError(rq, err)
		}
	})
}

// member wraps a handler that needs a signed-in member. The session's
// token is checked as the API checks it (an expired token ends the
// session). Under /dashboard/s/{server}/ it loads the server through the
// API: a server the member cannot see (another server's URL) is refused
// with 404. Every POST must carry the session's CSRF token.
func (d *Dashboard) member(h func(*req) error) http.Handler {
	return d.handle(func(rq *req) error {
		if err := d.signedIn(rq); err != nil {
			return err
		}
		if rq.s == nil {
			if rq.r.Method == http.MethodGet {
				http.Redirect(rq.w, rq.r, "/dashboard/?next="+url.QueryEscape(rq.r.URL.RequestURI()), http.StatusSeeOther)
				return nil
			}
			return fail(http.StatusUnauthorized, rq.t.S("Your session has ended. Sign in again."))
		}
		if rq.r.Method == http.MethodPost {
			if err := d.readForm(rq); err != nil {
				return err
			}
		}
		if err := d.authorize(rq); err != nil {
			return err
		}
		rq.sid = rq.r.PathValue("server")
		if rq.sid != "" {
			notMember := fail(http.StatusNotFound, rq.t.S("This server does not exist or you are not a member of it."))
			if !snowflake.MatchString(rq.sid) {
				return notMember
			}
			srv, err := d.loadServer(rq)
			if err != nil {
				return err
			}
			if srv == nil {
				return notMember
			}
			rq.srv = srv
		}
		return h(rq)
	})
}

// signedIn sets the request's session (nil when not signed in).
func (d *Dashboard) signedIn(rq *req) error {
	s, _, err := d.session(rq.r)
	if err != nil {
		d.log.ErrorContext(rq.ctx(), "dashboard session", "err", err)
		return unavailable(rq)
	}
	rq.s = s
	return nil
}

// authorize sets the principal of the session's member token, checked as
// the API's middleware checks a bearer token: an expired or revoked token
// is client.ErrUnauthenticated, which ends the session.
func (d *Dashboard) authorize(rq *req) error {
	p, err := d.api.Principal(rq.s.Token)
	if err != nil {
		return err
	}
	rq.p = p
	return nil
}

// readForm bounds and parses a POST's form and checks its CSRF token.
func (d *Dashboard) readForm(rq *req) error {
	w, r := rq.w, rq.r
	if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
		r.Body = http.MaxBytesReader(w, r.Body, maxUploadForm)
		if err := r.ParseMultipartForm(8 << 20); err != nil {
			return fail(http.StatusRequestEntityTooLarge, rq.t.S("The file is too large or the form is damaged."))
		}
	} else {
		r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
	}
	if !checkCSRF(r, rq.s.CSRF) {
		return errForgedForm(rq)
	}
	return nil
}

// errForgedForm refuses a form without the expected CSRF token.
func errForgedForm(rq *req) error {
	return fail(http.StatusForbidden, rq.t.S("This form has expired or did not come from the dashboard. Reload the page and try again."))
}

// maxUploadForm bounds an import form: the largest upload (a 16 MiB card)
// and the form's fields.
const maxUploadForm = 17 << 20

// safeNext returns next when it is a path under /dashboard/ (a sign-in's
// next, a language switch's back), else "/dashboard/". The path is judged
// as http.Redirect cleans it ("/dashboard/../x" is "/x"), and a backslash
// or control character refuses it: browsers read "\\" as "/" and drop tabs,
// so "/dashboard/../\\evil.example" would leave the site.
func safeNext(next string) string {
	const home = "/dashboard/"
	if strings.ContainsFunc(next, func(r rune) bool { return r == '\\' || r < 0x20 || r == 0x7f }) {
		return home
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.Opaque != "" || !strings.HasPrefix(path.Clean(u.Path)+"/", home) {
		return home
	}
	return next
}

// home is the sign-in page, or the servers list once signed in.
func (d *Dashboard) home(rq *req) error {
	if err := d.signedIn(rq); err != nil {
		return err
	}
	if rq.s == nil {
		// A fresh value on every render: a value planted in the browser by
		// someone else (login CSRF) is never reused.
		pre := randomToken()
		http.SetCookie(rq.w, d.cookie(preCookie, pre, loginTTL))
		d.page(rq, "signin", rq.t.S("Sign in"), map[string]any{
			"Discord": d.cfg.OAuth.ClientID != "", "Pre": pre, "Next": safeNext(rq.r.URL.Query().Get("next")),
			"Redirect": d.redirect})
		return nil
	}
	if err := d.authorize(rq); err != nil {
		return err
	}
	servers, err := d.loadServers(rq)
	if err != nil {
		return err
	}
	d.page(rq, "servers", rq.t.S("Servers"), servers)
	return nil
}

// login starts the Discord sign-in: the OAuth state, the PKCE verifier and
// the page to open afterwards are stored server-side for ten minutes
// (dashboard_login_states, consumed by the one callback that may use them),
// and a signed, short-lived cookie binds the state to this browser.
func (d *Dashboard) login(rq *req) error {
	if d.cfg.OAuth.ClientID == "" {
		return fail(http.StatusNotFound, rq.t.S("Discord sign-in is not configured on this deployment (LOREGATE_DISCORD_CLIENT_ID)."))
	}
	state, verifier := randomToken(), randomToken()
	next := safeNext(rq.r.URL.Query().Get("next"))
	if len(next) > maxNext {
		next = "/dashboard/"
	}
	err := d.cfg.Sessions.CreateLoginState(rq.ctx(), state, postgres.LoginState{Verifier: verifier, Next: next, ExpiresAt: time.Now().Add(loginTTL)})
	if err != nil {
		d.log.WarnContext(rq.ctx(), "dashboard sign-in state", "err", err)
		return fail(http.StatusServiceUnavailable, rq.t.S("The sign-in could not be started. Try again in a moment."))
	}
	http.SetCookie(rq.w, d.cookie(loginCookie, d.signed(state), loginTTL))
	http.Redirect(rq.w, rq.r, d.cfg.OAuth.authorizeURL(d.redirect, state, verifier), http.StatusSeeOther)
	return nil
}

// maxNext bounds the page a sign-in opens afterwards (a longer one opens
// the servers list).
const maxNext = 2048

// callback finishes the Discord sign-in: checks the state, exchanges the
// code with the PKCE verifier, reads the member's guilds, mints the member
// token the API understands and starts a session.
func (d *Dashboard) callback(rq *req) error {
	c, err := rq.r.Cookie(loginCookie)
	http.SetCookie(rq.w, d.cookie(loginCookie, "", 0))
	var bound string
	if err == nil {
		if v, ok := d.verify(c.Value); ok {
			bound = v
		}
	}
	q := rq.r.URL.Query()
	expired := fail(http.StatusBadRequest, rq.t.S("The sign-in could not be completed (it expired or was started elsewhere). Try again."))
	if bound == "" || q.Get("state") != bound {
		return expired
	}
	// Consumed before anything else: a replay of this callback, with or
	// without the cookie, finds no state.
	ls, err := d.cfg.Sessions.ConsumeLoginState(rq.ctx(), bound)
	if errors.Is(err, lore.ErrNotFound) {
		return expired
	}
	if err != nil {
		d.log.ErrorContext(rq.ctx(), "dashboard sign-in state", "err", err)
		return fail(http.StatusServiceUnavailable, rq.t.S("The sign-in could not be started. Try again in a moment."))
	}
	if e := q.Get("error"); e != "" || q.Get("code") == "" {
		return fail(http.StatusBadRequest, rq.t.S("Discord did not authorise the sign-in. Try again."))
	}
	u, err := d.cfg.OAuth.exchange(rq.ctx(), d.hc, q.Get("code"), d.redirect, ls.Verifier)
	if err != nil {
		d.log.WarnContext(rq.ctx(), "dashboard Discord sign-in failed", "err", err)
		return fail(http.StatusBadGateway, rq.t.S("Discord could not be reached to complete the sign-in. Try again in a moment."))
	}
	memberships := make(map[string]auth.Membership, len(u.Guilds))
	for _, g := range u.Guilds {
		memberships[g.ID] = auth.Membership{Manage: g.Manage}
	}
	now := time.Now()
	token, err := d.cfg.Auth.Mint(u.ID, memberships, d.cfg.SessionTTL, now)
	if err != nil {
		return fail(http.StatusServiceUnavailable, rq.t.S("Member tokens are not configured on this deployment (LOREGATE_JWT_SECRET)."))
	}
	if granted := d.loreEditorGrants(rq.ctx(), u, token, memberships); granted {
		if token, err = d.cfg.Auth.Mint(u.ID, memberships, d.cfg.SessionTTL, now); err != nil {
			return fail(http.StatusServiceUnavailable, rq.t.S("Member tokens are not configured on this deployment (LOREGATE_JWT_SECRET)."))
		}
	}
	return d.start(rq, &session{UserID: u.ID, UserName: u.Name, Token: token, Guilds: u.Guilds, ExpiresAt: now.Add(d.cfg.SessionTTL)}, ls.Next)
}

// devLogin signs in with a member token pasted by an operator (the output
// of `loregate token`); it is checked exactly as the API checks it.
func (d *Dashboard) devLogin(rq *req) error {
	rq.r.Body = http.MaxBytesReader(rq.w, rq.r.Body, 64<<10)
	c, err := rq.r.Cookie(preCookie)
	if err != nil || !checkCSRF(rq.r, c.Value) {
		return errForgedForm(rq)
	}
	token := strings.TrimSpace(rq.r.PostFormValue("token"))
	p, err := d.api.Principal(token)
	if err != nil || p.Kind != auth.Member {
		return fail(http.StatusUnauthorized, rq.t.S("That is not a valid, unexpired member token. Mint one with loregate token --user USER_ID --guild GUILD_ID:manage."))
	}
	exp := time.Now().Add(d.cfg.SessionTTL)
	if claims, err := tokenExpiry(token); err == nil && claims.Before(exp) {
		exp = claims
	}
	guilds := make([]guild, 0, len(p.Guilds))
	for id, m := range p.Guilds {
		guilds = append(guilds, guild{ID: id, Manage: m.Manage})
	}
	slices.SortFunc(guilds, func(a, b guild) int { return strings.Compare(a.ID, b.ID) })
	name := devName(rq.r.PostFormValue("name"))
	return d.start(rq, &session{UserID: p.UserID, UserName: name, Token: token, Guilds: guilds, ExpiresAt: exp}, rq.r.PostFormValue("next"))
}

// maxDevNameLen bounds the name a token sign-in gives itself, in runes.
const maxDevNameLen = 100

// devName is the header name a token sign-in typed (a member token carries
// no name): trimmed, at most maxDevNameLen runes, control characters and
// invalid UTF-8 dropped; "" when none is left (the header then says
// "Member" and the id).
func devName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > maxDevNameLen {
		s = strings.TrimSpace(string(r[:maxDevNameLen]))
	}
	return s
}

// start stores the session and sends the browser on to next.
func (d *Dashboard) start(rq *req, s *session, next string) error {
	id, err := d.createSession(rq.ctx(), s)
	if err != nil {
		d.log.ErrorContext(rq.ctx(), "dashboard session", "err", err)
		return unavailable(rq)
	}
	http.SetCookie(rq.w, d.cookie(sessionCookie, id, time.Until(s.ExpiresAt)))
	http.Redirect(rq.w, rq.r, safeNext(next), http.StatusSeeOther)
	return nil
}

// logout ends the session (a form with the session's CSRF token).
func (d *Dashboard) logout(rq *req) error {
	s, id, err := d.session(rq.r)
	if err == nil && s != nil {
		rq.s = s
		rq.r.Body = http.MaxBytesReader(rq.w, rq.r.Body, 64<<10)
		if !checkCSRF(rq.r, s.CSRF) {
			return errForgedForm(rq)
		}
		_ = d.cfg.Sessions.DeleteDashboardSession(context.WithoutCancel(rq.ctx()), id)
	}
	http.SetCookie(rq.w, d.cookie(sessionCookie, "", 0))
	http.Redirect(rq.w, rq.r, "/dashboard/?done=signedout", http.StatusSeeOther)
	return nil
}
