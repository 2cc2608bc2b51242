package dashboard

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"
)

// OAuth configures "Sign in with Discord": the OAuth2 authorization-code
// flow with PKCE (RFC 7636, S256) and the Scopes (docs/dashboard.md).
type OAuth struct {
	// ClientID and ClientSecret are the Discord application's
	// (LOREGATE_DISCORD_CLIENT_ID, LOREGATE_DISCORD_CLIENT_SECRET; secret).
	// Empty ClientID turns Discord sign-in off.
	ClientID     string
	ClientSecret string
	// BaseURL replaces https://discord.com/ for the authorize page, the
	// token endpoint and the user and guild reads
	// (LOREGATE_DISCORD_OAUTH_URL; tests point it at a fake).
	BaseURL string
}

// Scopes are the OAuth2 scopes the sign-in asks for: who the member is,
// their guilds, and (guilds.members.read) their roles in a guild, read
// only for servers that name a lore editor role
// (docs/workbench.md#lore-editor-role).
const Scopes = "identify guilds guilds.members.read"

// DefaultDiscordURL is Discord's origin.
const DefaultDiscordURL = "https://discord.com/"

func (o OAuth) base() string {
	b := o.BaseURL
	if b == "" {
		b = DefaultDiscordURL
	}
	if !strings.HasSuffix(b, "/") {
		b += "/"
	}
	return b
}

// pkceChallenge is the S256 code challenge of verifier.
func pkceChallenge(verifier string) string {
	s := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(s[:])
}

// authorizeURL is the Discord page the browser is sent to.
func (o OAuth) authorizeURL(redirect, state, verifier string) string {
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {o.ClientID},
		"scope":                 {Scopes},
		"redirect_uri":          {redirect},
		"state":                 {state},
		"code_challenge":        {pkceChallenge(verifier)},
		"code_challenge_method": {"S256"},
	}
	return o.base() + "oauth2/authorize?" + q.Encode()
}

// discordUser is who signed in, with their guilds.
type discordUser struct {
	ID     string
	Name   string
	Guilds []guild
	// roles reads the member's roles in one guild with the sign-in's
	// access token (nil when the guilds.members.read scope was not
	// granted). The token is not kept past the sign-in.
	roles func(ctx context.Context, guild string) ([]string, error)
}

// exchange trades the authorization code for an access token and reads
// the member's identity and guilds with it. The access token is used for
// these reads and the sign-in's role reads only, and not kept.
func (o OAuth) exchange(ctx context.Context, hc *http.Client, code, redirect, verifier string) (*discordUser, error) {
	form := url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {code},
		"redirect_uri":  {redirect},
		"code_verifier": {verifier},
		"client_id":     {o.ClientID},
		"client_secret": {o.ClientSecret},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.base()+"api/oauth2/token", strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("token request: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(url.QueryEscape(o.ClientID), url.QueryEscape(o.ClientSecret))
	var tok struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
		Scope       string `json:"scope"`
	}
	if err := getJSON(hc, req, &tok); err != nil {
		return nil, fmt.Errorf("discord token exchange: %w", err)
	}
	if tok.AccessToken == "" {
		return nil, fmt.Errorf("discord token exchange: no access token in the answer")
	}
	var me struct {
		ID         string `json:"id"`
		Username   string `json:"username"`
		GlobalName string `json:"global_name"`
	}
	if err := o.get(ctx, hc, tok.AccessToken, "api/v10/users/@me", &me); err != nil {
		return nil, err
	}
	if me.ID == "" {
		return nil, fmt.Errorf("discord user: no id in the answer")
	}
	var gs []struct {
		ID          string `json:"id"`
		Name        string `json:"name"`
		Owner       bool   `json:"owner"`
		Permissions string `json:"permissions"`
	}
	if err := o.get(ctx, hc, tok.AccessToken, "api/v10/users/@me/guilds", &gs); err != nil {
		return nil, err
	}
	u := &discordUser{ID: me.ID, Name: me.GlobalName}
	if slices.Contains(strings.Fields(tok.Scope), "guilds.members.read") {
		u.roles = func(ctx context.Context, guild string) ([]string, error) {
			var m struct {
				Roles []string `json:"roles"`
			}
			err := o.get(ctx, hc, tok.AccessToken, "api/v10/users/@me/guilds/"+url.PathEscape(guild)+"/member", &m)
			return m.Roles, err
		}
	}
	if u.Name == "" {
		u.Name = me.Username
	}
	for _, g := range gs {
		perms, _ := strconv.ParseUint(g.Permissions, 10, 64)
		u.Guilds = append(u.Guilds, guild{ID: g.ID, Name: g.Name,
			Manage: g.Owner || perms&(discordgo.PermissionAdministrator|discordgo.PermissionManageGuild) != 0})
	}
	return u, nil
}

func (o OAuth) get(ctx context.Context, hc *http.Client, token, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, o.base()+path, nil)
	if err != nil {
		return fmt.Errorf("discord %s: %w", path, err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if err := getJSON(hc, req, out); err != nil {
		return fmt.Errorf("discord %s: %w", path, err)
	}
	return nil
}

// getJSON sends req and decodes a 200 JSON answer of at most 1 MiB.
func getJSON(hc *http.Client, req *http.Request, out any) error {
	ctx, cancel := context.WithTimeout(req.Context(), 15*time.Second)
	defer cancel()
	resp, err := hc.Do(req.WithContext(ctx))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("answered %d", resp.StatusCode)
	}
	return json.Unmarshal(body, out)
}
