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

	"loregate/graph/auth"
	"loregate/lore"
)

// req is one member request: the session, the translator and, under
// /dashboard/s/{server}/, the server as the API shows it to the member.
type req struct {
	w    http.ResponseWriter
	r    *http.Request
	s    *session
	t    tr
	lang string
	// sid is the server's Discord id from the URL; srv its API view.
	sid string
	srv *serverInfo
}

// view is what every page template gets.
type view struct {
	T       tr
	Lang    string
	Path    string
	Session *session
	CSRF    string
	Server  *serverInfo
	Title   string
	// Flash is a one-line notice (?done=...); Error a page-level error.
	Flash string
	Error string
	Data  any
}

var snowflake = regexp.MustCompile(`^[0-9]{1,20}$`)

// render executes the page template name with data.
func (d *Dashboard) render(w http.ResponseWriter, r *http.Request, t tr, lang string, s *session, srv *serverInfo, name, title string, status int, data any, errMsg string) {
	v := view{T: t, Lang: lang, Path: r.URL.RequestURI(), Session: s, Server: srv, Title: title, Data: data, Error: errMsg}
	if s != nil {
		v.CSRF = s.CSRF
	}
	if done := r.URL.Query().Get("done"); done != "" {
		v.Flash = flashText(t, done)
	}
	var buf bytes.Buffer
	if err := d.pages[name].ExecuteTemplate(&buf, "layout", v); err != nil {
		d.log.ErrorContext(r.Context(), "dashboard template", "page", name, "err", err)
		http.Error(w, "internal error rendering the page", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; form-action 'self' "+d.cfg.OAuth.base())
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// page renders a member page with the request's context.
func (rq *req) page(d *Dashboard, name, title string, data any) {
	d.render(rq.w, rq.r, rq.t, rq.lang, rq.s, rq.srv, name, title, http.StatusOK, data, "")
}

// fail renders the error page with status and a message.
func (d *Dashboard) fail(w http.ResponseWriter, r *http.Request, t tr, lang string, s *session, status int, msg string) {
	d.render(w, r, t, lang, s, nil, "error", t.S("Error"), status, nil, msg)
}

// apiFailed answers a failed API call: a refused token ends the session,
// anything else is an error page (details in the log, not the page).
func (d *Dashboard) apiFailed(rq *req, err error) {
	if errors.Is(err, errUnauthenticated) {
		http.SetCookie(rq.w, d.cookie(sessionCookie, "", 0))
		http.Redirect(rq.w, rq.r, "/dashboard/?done=expired", http.StatusSeeOther)
		return
	}
	d.log.WarnContext(rq.r.Context(), "dashboard API call failed", "path", rq.r.URL.Path, "err", err)
	msg := rq.t.S("The lore service could not answer. Try again in a moment.")
	var ae *apiError
	if errors.As(err, &ae) && len(ae.Errors) > 0 {
		msg += " (" + lore.ClipRunes(ae.Errors[0].Message, 300) + ")"
	}
	d.fail(rq.w, rq.r, rq.t, rq.lang, rq.s, http.StatusBadGateway, msg)
}

// session returns the request's session, or nil.
func (d *Dashboard) session(r *http.Request) (*session, string, error) {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil, "", nil
	}
	s, err := d.sessions.get(r.Context(), c.Value)
	if errors.Is(err, errNoSession) {
		return nil, "", nil
	}
	return s, c.Value, err
}

// member wraps a page that needs a signed-in member. Under
// /dashboard/s/{server}/ it loads the server through the API: a server the
// member cannot see (another server's URL) is refused with 404. Every POST
// must carry the session's CSRF token.
func (d *Dashboard) member(h func(*Dashboard, *req)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t, lang := d.translator(r)
		s, _, err := d.session(r)
		if err != nil {
			d.log.ErrorContext(r.Context(), "dashboard session", "err", err)
			d.fail(w, r, t, lang, nil, http.StatusServiceUnavailable, t.S("The lore service could not answer. Try again in a moment."))
			return
		}
		if s == nil {
			if r.Method == http.MethodGet {
				http.Redirect(w, r, "/dashboard/?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			d.fail(w, r, t, lang, nil, http.StatusUnauthorized, t.S("Your session has ended. Sign in again."))
			return
		}
		if r.Method == http.MethodPost {
			if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
				r.Body = http.MaxBytesReader(w, r.Body, maxUploadForm)
				if err := r.ParseMultipartForm(8 << 20); err != nil {
					d.fail(w, r, t, lang, s, http.StatusRequestEntityTooLarge, t.S("The file is too large or the form is damaged."))
					return
				}
			} else {
				r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
			}
			if !checkCSRF(r, s.CSRF) {
				d.fail(w, r, t, lang, s, http.StatusForbidden, t.S("This form has expired or did not come from the dashboard. Reload the page and try again."))
				return
			}
		}
		rq := &req{w: w, r: r, s: s, t: t, lang: lang, sid: r.PathValue("server")}
		if rq.sid != "" {
			if !snowflake.MatchString(rq.sid) {
				d.fail(w, r, t, lang, s, http.StatusNotFound, t.S("This server does not exist or you are not a member of it."))
				return
			}
			srv, err := d.loadServer(r.Context(), s.Token, rq.sid)
			if err != nil {
				d.apiFailed(rq, err)
				return
			}
			if srv == nil {
				d.fail(w, r, t, lang, s, http.StatusNotFound, t.S("This server does not exist or you are not a member of it."))
				return
			}
			rq.srv = srv
		}
		h(d, rq)
	})
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
func (d *Dashboard) home(w http.ResponseWriter, r *http.Request) {
	t, lang := d.translator(r)
	s, _, err := d.session(r)
	if err != nil {
		d.fail(w, r, t, lang, nil, http.StatusServiceUnavailable, t.S("The lore service could not answer. Try again in a moment."))
		return
	}
	if s == nil {
		// A fresh value on every render: a value planted in the browser by
		// someone else (login CSRF) is never reused.
		pre := randomToken()
		http.SetCookie(w, d.cookie(preCookie, pre, loginTTL))
		d.render(w, r, t, lang, nil, nil, "signin", t.S("Sign in"), http.StatusOK, map[string]any{
			"Discord": d.cfg.OAuth.ClientID != "", "Pre": pre, "Next": safeNext(r.URL.Query().Get("next")),
			"Redirect": d.redirect}, "")
		return
	}
	rq := &req{w: w, r: r, s: s, t: t, lang: lang}
	servers, err := d.loadServers(r.Context(), s)
	if err != nil {
		d.apiFailed(rq, err)
		return
	}
	rq.page(d, "servers", t.S("Servers"), servers)
}

// login starts the Discord sign-in: a signed, short-lived cookie keeps the
// OAuth state and the PKCE verifier for the callback.
func (d *Dashboard) login(w http.ResponseWriter, r *http.Request) {
	t, lang := d.translator(r)
	if d.cfg.OAuth.ClientID == "" {
		d.fail(w, r, t, lang, nil, http.StatusNotFound, t.S("Discord sign-in is not configured on this deployment (LOREGATE_DISCORD_CLIENT_ID)."))
		return
	}
	state, verifier := randomToken(), randomToken()
	next := safeNext(r.URL.Query().Get("next"))
	http.SetCookie(w, d.cookie(loginCookie, d.signed(state+"|"+verifier+"|"+next), loginTTL))
	http.Redirect(w, r, d.cfg.OAuth.authorizeURL(d.redirect, state, verifier), http.StatusSeeOther)
}

// callback finishes the Discord sign-in: checks the state, exchanges the
// code with the PKCE verifier, reads the member's guilds, mints the member
// token the API understands and starts a session.
func (d *Dashboard) callback(w http.ResponseWriter, r *http.Request) {
	t, lang := d.translator(r)
	c, err := r.Cookie(loginCookie)
	http.SetCookie(w, d.cookie(loginCookie, "", 0))
	var parts []string
	if err == nil {
		if v, ok := d.verify(c.Value); ok {
			parts = strings.SplitN(v, "|", 3)
		}
	}
	q := r.URL.Query()
	if len(parts) != 3 || q.Get("state") == "" || q.Get("state") != parts[0] {
		d.fail(w, r, t, lang, nil, http.StatusBadRequest, t.S("The sign-in could not be completed (it expired or was started elsewhere). Try again."))
		return
	}
	if e := q.Get("error"); e != "" || q.Get("code") == "" {
		d.fail(w, r, t, lang, nil, http.StatusBadRequest, t.S("Discord did not authorise the sign-in. Try again."))
		return
	}
	u, err := d.cfg.OAuth.exchange(r.Context(), d.hc, q.Get("code"), d.redirect, parts[1])
	if err != nil {
		d.log.WarnContext(r.Context(), "dashboard Discord sign-in failed", "err", err)
		d.fail(w, r, t, lang, nil, http.StatusBadGateway, t.S("Discord could not be reached to complete the sign-in. Try again in a moment."))
		return
	}
	memberships := make(map[string]auth.Membership, len(u.Guilds))
	for _, g := range u.Guilds {
		memberships[g.ID] = auth.Membership{Manage: g.Manage}
	}
	now := time.Now()
	token, err := d.cfg.Auth.Mint(u.ID, memberships, d.cfg.SessionTTL, now)
	if err != nil {
		d.fail(w, r, t, lang, nil, http.StatusServiceUnavailable, t.S("Member tokens are not configured on this deployment (LOREGATE_JWT_SECRET)."))
		return
	}
	d.start(w, r, t, lang, &session{UserID: u.ID, UserName: u.Name, Token: token, Guilds: u.Guilds, ExpiresAt: now.Add(d.cfg.SessionTTL)}, parts[2])
}

// devLogin signs in with a member token pasted by an operator (the output
// of `loregate token`); it is checked exactly as the API checks it.
func (d *Dashboard) devLogin(w http.ResponseWriter, r *http.Request) {
	t, lang := d.translator(r)
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	c, err := r.Cookie(preCookie)
	if err != nil || !checkCSRF(r, c.Value) {
		d.fail(w, r, t, lang, nil, http.StatusForbidden, t.S("This form has expired or did not come from the dashboard. Reload the page and try again."))
		return
	}
	token := strings.TrimSpace(r.PostFormValue("token"))
	p, err := d.cfg.Auth.Authenticate(token)
	if err != nil || p.Kind != auth.Member {
		d.fail(w, r, t, lang, nil, http.StatusUnauthorized, t.S("That is not a valid, unexpired member token. Mint one with loregate token --user USER_ID --guild GUILD_ID:manage."))
		return
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
	d.start(w, r, t, lang, &session{UserID: p.UserID, Token: token, Guilds: guilds, ExpiresAt: exp}, r.PostFormValue("next"))
}

func (d *Dashboard) start(w http.ResponseWriter, r *http.Request, t tr, lang string, s *session, next string) {
	id, err := d.sessions.create(r.Context(), s)
	if err != nil {
		d.log.ErrorContext(r.Context(), "dashboard session", "err", err)
		d.fail(w, r, t, lang, nil, http.StatusServiceUnavailable, t.S("The lore service could not answer. Try again in a moment."))
		return
	}
	http.SetCookie(w, d.cookie(sessionCookie, id, time.Until(s.ExpiresAt)))
	http.Redirect(w, r, safeNext(next), http.StatusSeeOther)
}

func (d *Dashboard) logout(w http.ResponseWriter, r *http.Request) {
	t, lang := d.translator(r)
	s, id, err := d.session(r)
	if err == nil && s != nil {
		r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
		if !checkCSRF(r, s.CSRF) {
			d.fail(w, r, t, lang, s, http.StatusForbidden, t.S("This form has expired or did not come from the dashboard. Reload the page and try again."))
			return
		}
		_ = d.sessions.delete(context.WithoutCancel(r.Context()), id)
	}
	http.SetCookie(w, d.cookie(sessionCookie, "", 0))
	http.Redirect(w, r, "/dashboard/?done=signedout", http.StatusSeeOther)
}
