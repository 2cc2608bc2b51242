package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"loregate/cmd/internal/cli"
	"loregate/graph/auth"
	"loregate/lore"
)

// snowflakeSyntax is what lore.ValidSnowflake accepts, for the token
// command's errors.
const snowflakeSyntax = "a snowflake: 17 to 20 digits, no leading zero, e.g. 123456789012345678"

// guildFlags collects repeated --guild ID[:manage] flags.
type guildFlags map[string]auth.Membership

func (g guildFlags) String() string { return fmt.Sprint(map[string]auth.Membership(g)) }

func (g guildFlags) Set(v string) error {
	id, role, _ := strings.Cut(v, ":")
	if id == "" {
		return fmt.Errorf("--guild needs a guild id, e.g. 123456789012345678:manage")
	}
	if !lore.ValidSnowflake(id) {
		return fmt.Errorf("--guild id %q is not a Discord server id (%s)", lore.ClipBytes(id, 40), snowflakeSyntax)
	}
	switch role {
	case "", "member":
		g[id] = auth.Membership{}
	case "manage":
		g[id] = auth.Membership{Manage: true}
	default:
		return fmt.Errorf("--guild role %q is not member or manage", role)
	}
	return nil
}

// roleFlags collects repeated --role GUILD_ID:ROLE_ID flags: a role the
// member holds in a guild named by --guild (a server's lore editor role,
// docs/workbench.md#lore-editor-role).
type roleFlags map[string][]string

func (r roleFlags) String() string { return fmt.Sprint(map[string][]string(r)) }

func (r roleFlags) Set(v string) error {
	guild, role, _ := strings.Cut(v, ":")
	if !lore.ValidSnowflake(guild) || !lore.ValidSnowflake(role) {
		return fmt.Errorf("--role %q is not GUILD_ID:ROLE_ID (two Discord ids, %s)", lore.ClipBytes(v, 80), snowflakeSyntax)
	}
	r[guild] = append(r[guild], role)
	return nil
}

// withRoles puts the --role flags into the memberships of their guilds; a
// role of a guild without --guild is a usage error.
func withRoles(guilds guildFlags, roles roleFlags) error {
	for g, ids := range roles {
		m, ok := guilds[g]
		if !ok {
			return fmt.Errorf("--role names guild %s, which no --guild names", g)
		}
		if len(ids) > auth.MaxRoles {
			return fmt.Errorf("--role: at most %d roles per guild", auth.MaxRoles)
		}
		m.Roles = ids
		guilds[g] = m
	}
	return nil
}

// runToken mints a member token for development (signed with
// LOREGATE_JWT_SECRET) and prints it.
func runToken(_ context.Context, env cli.Env, args []string) error {
	fs := env.FlagSet("token")
	user := fs.String("user", "", "Discord user id (the token's subject)")
	ttl := fs.Duration("ttl", 24*time.Hour, "validity")
	guilds := guildFlags{}
	fs.Var(guilds, "guild", "GUILD_ID[:manage] the member belongs to (repeatable); :manage grants Manage Server")
	roles := roleFlags{}
	fs.Var(roles, "role", "GUILD_ID:ROLE_ID a role the member holds there (repeatable), e.g. the server's lore editor role")
	if err := fs.Parse(args); err != nil {
		return cli.FlagError(err)
	}
	if err := withRoles(guilds, roles); err != nil {
		return cli.Usagef("%v", err)
	}
	if *user == "" {
		return cli.Usagef("token needs --user")
	}
	// The API checks Discord ids with lore.ValidSnowflake: a token for any
	// other subject or guild would name no member the API knows.
	if !lore.ValidSnowflake(*user) {
		return cli.Usagef("--user %q is not a Discord user id (%s)", lore.ClipBytes(*user, 40), snowflakeSyntax)
	}
	a, err := auth.NewAuthenticator(nil, loadConfig(env.Getenv, nil).JWTSecret)
	if err != nil {
		return cli.Usagef("%v", err)
	}
	tok, err := a.Mint(*user, guilds, *ttl, time.Now())
	if err != nil {
		return cli.Usagef("%v", err)
	}
	fmt.Fprintln(env.Stdout, tok)
	return nil
}
