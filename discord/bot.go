// Package discord is loregate's Discord adapter: the /memories Lorebooks
// panel (Components V2: scope switcher, persona and collection pickers,
// entry picker, collection controls, modals with file uploads, exports,
// persona cards, settings, workspace backups) in English and Brazilian
// Portuguese, and a gateway session that reconnects by itself, built on
// discordgo v0.29.0.
//
// The adapter is a client of the GraphQL API like any other: every read and
// write is a named operation of the typed client graph/client, run
// in-process (the schema
// with NewServer's limits, loaders, idempotency and error presenter, without
// HTTP), with the interaction's member as principal (guild id plus whether
// the member's permissions include Manage Server or Administrator). It never
// opens SQL. Operations rather than direct resolver calls, because the panel
// reads nested fields (a server's personas, collections and their entries)
// in one operation, which the executor resolves with one store read per
// scope (the per-operation loaders), and because limits, permission
// failures and error codes then come out exactly as a remote client sees
// them. Results decode into graph/model types and switches use
// the schema's enum constants (model.ErrorCodeInvalidInput,
// model.JobStateCompleted); inputs are variable maps keyed by the schema's
// field names, since gqlgen's input models cannot tell an omitted field from
// null when encoded.
//
// Behaviour follows docs/contract.md; the panel, imports, settings,
// backups, languages and the gateway are described in docs/discord.md.
// REST (rest.go) is the Discord REST client of the channel-name backfill
// job (jobs.ChannelLister).
//
// Handlers are found in a table keyed by command name or route action
// (route.go). Each runs with a timeout context and recovers panics; Discord
// REST errors are logged with their codes and never shown to members.
package discord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"runtime/debug"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/text/message/catalog"

	"loregate/graph/auth"
	"loregate/graph/client"
	"loregate/lore"
)

// Defaults of Config.
const (
	// DefaultHandlerTimeout bounds one interaction, imports included. It is
	// well inside the 15-minute interaction token window.
	DefaultHandlerTimeout = 2 * time.Minute
	// DefaultDownloadTimeout bounds one attachment download.
	DefaultDownloadTimeout = 30 * time.Second
	// tokenWindow is how long an interaction token may edit its reply
	// (Discord: 15 minutes); receipts later than this are sent by DM.
	tokenWindow = 14 * time.Minute
)

// Command names registered by Run.
const (
	// CommandMemories opens the panel on its Lorebooks tab.
	CommandMemories = "memories"
	// CommandImport imports an attached lorebook file. discordgo v0.29
	// cannot decode file uploads in modals, so the file travels as a slash
	// command attachment option.
	CommandImport = "memories-import"
)

// Config configures a Bot.
type Config struct {
	// Token is the bot token from the Discord developer portal, without the
	// "Bot " prefix (LOREGATE_DISCORD_TOKEN). Secret.
	Token string
	// API is the typed client of the GraphQL API, run in-process
	// (client.New over graph.NewExecutor): the bot supplies principals
	// itself.
	API *client.Client
	// Logger receives handler, Discord and import logs. Required.
	Logger *slog.Logger
	// GuildID, when set, registers the commands in that guild only
	// (instant, for development); empty registers them globally.
	GuildID string
	// HandlerTimeout bounds one interaction; 0 = DefaultHandlerTimeout.
	HandlerTimeout time.Duration
	// Download fetches attachments from Discord's CDN; nil = a client with
	// DefaultDownloadTimeout.
	Download *http.Client
	// Backoff bounds gateway reconnect delays; zero = DefaultBackoff.
	Backoff Backoff
	// Registerer, when set, receives the gateway metrics
	// (loregate_discord_gateway_state, loregate_discord_gateway_reconnects_total).
	Registerer prometheus.Registerer
	// Channels, when set, is the directory behind Server.channels: the bot
	// drops a guild's listing on each of its channel and thread events.
	Channels *ChannelDirectory
	// MaxJSONBytes is the deployment's JSON lorebook limit
	// (LOREGATE_MAX_JSON_BYTES, lore.Limits.JSONBytes), the most the bot
	// downloads for a JSON attachment: <= 0 is graph.MaxJSONUploadBytes
	// (2 MiB), and it is held to lore.CeilingJSONBytes (16 MiB).
	MaxJSONBytes int64
}

// WithDefaults returns a copy of c with its unset or invalid fields filled:
// HandlerTimeout <= 0 becomes DefaultHandlerTimeout, a nil Download a
// client with DefaultDownloadTimeout that follows only redirects to
// Discord's attachment hosts, and a Backoff with Min <= 0 or Max < Min
// DefaultBackoff, and MaxJSONBytes held to 1 B..lore.CeilingJSONBytes
// (<= 0: graph.MaxJSONUploadBytes). Token, API and Logger have no default
// (New refuses them missing).
func (c Config) WithDefaults() Config {
	if c.HandlerTimeout <= 0 {
		c.HandlerTimeout = DefaultHandlerTimeout
	}
	if c.Download == nil {
		c.Download = &http.Client{Timeout: DefaultDownloadTimeout, CheckRedirect: func(req *http.Request, _ []*http.Request) error {
			return checkAttachmentURL(req.URL.String())
		}}
	}
	if c.Backoff.Min <= 0 || c.Backoff.Max < c.Backoff.Min {
		c.Backoff = DefaultBackoff
	}
	c.MaxJSONBytes = jsonDownloadLimit(c.MaxJSONBytes)
	return c
}

// Bot is the Discord adapter. Build it with New and start it with Run.
type Bot struct {
	// channels is the Server.channels directory events refresh (nil none).
	channels *ChannelDirectory
	session  *discordgo.Session
	api      *client.Client
	log      *slog.Logger
	guild    string
	timeout  time.Duration
	download *http.Client
	// maxJSON is the download budget of a JSON attachment (Config.MaxJSONBytes).
	maxJSON  int64
	importer inlineImporter
	// now is the clock (tests may replace it).
	now func() time.Time
	// guildName returns a guild's name from the gateway cache, or "".
	guildName func(id string) string
	commands  map[string]handlerFunc
	routes    map[string]handlerFunc
	// cat is the message catalog; missingText, when set (tests), is told
	// about texts missing from it.
	cat         catalog.Catalog
	missingText func(key string)
	// gw is the gateway connection state; backoff and rnd pace reconnects.
	gw      *gateway
	backoff Backoff
	rnd     func() float64
	// pollMin is the first job polling interval (0 = the package default).
	pollMin time.Duration
}

// handlerFunc handles one interaction.
type handlerFunc func(ctx context.Context, in *request) error

// request is one interaction being handled.
type request struct {
	i *discordgo.Interaction
	// p is the member as API principal (its Manage bit and roles).
	p     *auth.Principal
	guild string
	// manage is true when the member may write lore: Manage Server (or
	// Administrator), or the server's lore editor role as the API answers
	// (Server.canWriteLore). The API re-checks every write.
	manage bool
	rt     route
	// values are a select's picked values.
	values []string
	// fields are a modal's text inputs by custom id.
	fields map[string]string
	// modal is the decoded modal submit (nil for other interactions).
	modal *modalSubmit
	// t translates for the interaction's locale.
	t tr
	// acked is set once the interaction got its first response.
	acked bool
}

// New returns a Bot for cfg. It does not connect; Run does.
func New(cfg Config) (*Bot, error) {
	if cfg.Token == "" {
		return nil, errors.New("discord: no bot token")
	}
	if cfg.API == nil || cfg.Logger == nil {
		return nil, errors.New("discord: API and Logger are required")
	}
	cfg = cfg.WithDefaults()
	s, err := discordgo.New("Bot " + cfg.Token)
	if err != nil {
		return nil, fmt.Errorf("discord session: %w", err)
	}
	s.Identify.Intents = discordgo.IntentsGuilds
	b := &Bot{
		session:  s,
		api:      cfg.API,
		log:      cfg.Logger,
		guild:    cfg.GuildID,
		timeout:  cfg.HandlerTimeout,
		download: cfg.Download,
		maxJSON:  cfg.MaxJSONBytes,
		now:      time.Now,
		backoff:  cfg.Backoff,
		cat:      newCatalog(),
		rnd:      randFloat,
		channels: cfg.Channels,
	}
	b.gw = newGateway(cfg.Registerer, func() time.Time { return b.now() })
	b.importer = inlineImporter{api: b.api}
	b.guildName = func(id string) string {
		if g, err := s.State.Guild(id); err == nil {
			return g.Name
		}
		return ""
	}
	b.commands = map[string]handlerFunc{
		CommandMemories: b.openPanel,
		CommandImport:   b.importCommand,
	}
	b.routes = b.routeTable()
	return b, nil
}

// commandDefs are the slash commands Run registers, with Portuguese
// descriptions (command names stay as the guide writes them).
func commandDefs() []*discordgo.ApplicationCommand {
	guildOnly := []discordgo.InteractionContextType{discordgo.InteractionContextGuild}
	opt := func(typ discordgo.ApplicationCommandOptionType, name, desc string, required bool) *discordgo.ApplicationCommandOption {
		o := &discordgo.ApplicationCommandOption{Type: typ, Name: name, Description: desc, Required: required}
		if l := commandLocalizations(desc); l != nil {
			o.DescriptionLocalizations = *l
		}
		if typ == discordgo.ApplicationCommandOptionString {
			o.MaxLength = 100
		}
		return o
	}
	const (
		descMemories = "Open the Lorebooks panel"
		descImport   = "Import a lorebook file (world info, Character Book, PNG/CHARX card)"
	)
	return []*discordgo.ApplicationCommand{
		{Name: CommandMemories, Description: descMemories, DescriptionLocalizations: commandLocalizations(descMemories), Contexts: &guildOnly},
		{
			Name: CommandImport, Description: descImport, DescriptionLocalizations: commandLocalizations(descImport), Contexts: &guildOnly,
			Options: []*discordgo.ApplicationCommandOption{
				opt(discordgo.ApplicationCommandOptionAttachment, "file", "The lorebook or card file", true),
				opt(discordgo.ApplicationCommandOptionString, "book", "Serverwide book to add the entries to (omit to create a new book)", false),
				opt(discordgo.ApplicationCommandOptionString, "name", "Name of the new Serverwide book (default: the name in the file)", false),
				opt(discordgo.ApplicationCommandOptionInteger, "persona", "Persona lineage id: import into that persona's book instead", false),
				opt(discordgo.ApplicationCommandOptionBoolean, "replace", "Replace the book's entries instead of appending", false),
			},
		},
	}
}

// Run connects to the gateway, registers the commands once, serves
// interactions until ctx is done, then closes the session. A dropped
// connection or a failed attempt is retried with capped exponential backoff
// and jitter (Config.Backoff), resuming the session when Discord allows;
// the state is in GatewayStatus, the loregate_discord_gateway_state metric
// and the log. A token Discord rejects stops Run with one error wrapping
// errTokenRejected.
func (b *Bot) Run(ctx context.Context) error {
	s := b.session
	removeRaw := s.AddHandler(func(_ *discordgo.Session, e *discordgo.Event) {
		if e.Type == "INTERACTION_CREATE" {
			b.HandleRaw(ctx, e.RawData)
		}
	})
	defer removeRaw()
	removeGuild := s.AddHandler(func(_ *discordgo.Session, g *discordgo.GuildCreate) {
		if g.Guild == nil || g.Unavailable {
			return
		}
		gctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := b.registerServer(gctx, g.ID); err != nil {
			b.log.WarnContext(gctx, "discord: register guild", "guild", g.ID, "err", redact(err))
		}
	})
	defer removeGuild()
	defer b.watchChannels(s)()
	defer b.watchMembership(ctx)()
	registered := false
	err := b.connect(ctx, func(ctx context.Context) error {
		if registered {
			return nil
		}
		if s.State == nil || s.State.User == nil {
			return errors.New("discord: gateway ready without a user")
		}
		if _, err := s.ApplicationCommandBulkOverwrite(s.State.User.ID, b.guild, commandDefs(), discordgo.WithContext(ctx)); err != nil {
			b.logDiscord(ctx, "register commands", err)
			return fmt.Errorf("discord: register commands: %w", err)
		}
		registered = true
		b.log.Info("discord: bot ready", "user", s.State.User.Username, "guild_scope", b.guild)
		return nil
	})
	if cerr := s.Close(); cerr != nil {
		b.log.Warn("discord: close session", "err", redact(cerr))
	}
	return err
}

// handle handles one interaction synchronously: it derives a timeout
// context, recovers panics, resolves the member as principal and
// dispatches through the command or route table. Unknown and outdated
// routes get a friendly repaint. ms is the decoded modal submit.
func (b *Bot) handle(ctx context.Context, ic *discordgo.InteractionCreate, ms *modalSubmit) {
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	if ic == nil || ic.Interaction == nil {
		return
	}
	in := &request{i: ic.Interaction, modal: ms, t: b.translator(ic.Locale)}
	defer func() {
		if v := recover(); v != nil {
			b.log.ErrorContext(ctx, "discord: panic in handler", "interaction", in.i.ID, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			b.apologise(ctx, in)
		}
	}()
	if err := b.dispatch(ctx, in); err != nil {
		b.log.ErrorContext(ctx, "discord: handler failed", "interaction", in.i.ID, "action", in.rt.action, "err", redact(err))
		b.apologise(ctx, in)
	}
}

func (b *Bot) dispatch(ctx context.Context, in *request) error {
	i := in.i
	if i.Data == nil {
		// discordgo v0.29 could not decode the payload (newer modal
		// components); its accessors would panic.
		b.log.WarnContext(ctx, "discord: interaction without decodable data", "interaction", i.ID, "type", int(i.Type))
		return b.reply(ctx, in, in.t.S("This form is not supported by this version of the bot. Use `/memories` again."))
	}
	if i.GuildID == "" || i.Member == nil {
		return b.reply(ctx, in, in.t.S("Lorebooks belong to a server: use `/memories` in a server."))
	}
	in.guild = i.GuildID
	in.manage = i.Member.Permissions&(discordgo.PermissionManageGuild|discordgo.PermissionAdministrator) != 0
	roles := i.Member.Roles
	if len(roles) > auth.MaxRoles {
		roles = roles[:auth.MaxRoles]
	}
	in.p = &auth.Principal{Kind: auth.Member, Guilds: map[string]auth.Membership{in.guild: {Manage: in.manage, Roles: roles}}}
	if i.Member.User != nil {
		in.p.UserID = i.Member.User.ID
	}
	if !in.manage && len(roles) > 0 {
		editor, err := b.loreEditor(ctx, in)
		if err != nil {
			return err
		}
		in.manage = editor
	}
	var h handlerFunc
	var id string
	switch i.Type {
	case discordgo.InteractionApplicationCommand:
		h = b.commands[i.ApplicationCommandData().Name]
		if h == nil {
			return b.reply(ctx, in, in.t.S("Unknown command."))
		}
		return h(ctx, in)
	case discordgo.InteractionMessageComponent:
		d := i.MessageComponentData()
		id, in.values = d.CustomID, d.Values
	case discordgo.InteractionModalSubmit:
		if in.modal == nil {
			return b.reply(ctx, in, in.t.S("This form is not supported by this version of the bot. Use `/memories` again."))
		}
		id, in.fields = in.modal.CustomID, in.modal.Fields
	default:
		return nil // autocomplete and pings: nothing registered
	}
	rt, err := parseRoute(id)
	in.rt = rt
	if err == nil {
		h = b.routes[rt.action]
	}
	if h == nil {
		b.log.InfoContext(ctx, "discord: outdated route", "interaction", i.ID, "custom_id_len", len(id), "err", err)
		return b.outdated(ctx, in)
	}
	return h(ctx, in)
}

// reply answers with an ephemeral text message, or, once the interaction
// was acknowledged, replaces the reply with the text (a Components V2 text
// display when the reply is the panel).
func (b *Bot) reply(ctx context.Context, in *request, text string) error {
	if in.acked {
		if in.panelMessage() {
			return b.editOriginal(ctx, in, v2Text(text))
		}
		return b.editText(ctx, in, text)
	}
	return b.respond(ctx, in, &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Content: lore.ClipRunes(text, maxContentLen), Flags: discordgo.MessageFlagsEphemeral},
	})
}

// panelMessage reports whether the interaction's reply is a panel
// message (Components V2): a component or modal on the panel, or the
// /memories command.
func (in *request) panelMessage() bool {
	if in.i.Type == discordgo.InteractionApplicationCommand {
		return in.i.ApplicationCommandData().Name == CommandMemories
	}
	return in.i.Message != nil
}

// v2Text is a Components V2 message holding one text.
func v2Text(text string) []discordgo.MessageComponent {
	return []discordgo.MessageComponent{discordgo.Container{Components: []discordgo.MessageComponent{discordgo.TextDisplay{Content: lore.ClipRunes(text, textBudget)}}}}
}

// respond sends the interaction's first response. Rate-limit retries are
// off: sleeping would overrun the 3-second window. The payload is checked
// against Discord's limits first.
func (b *Bot) respond(ctx context.Context, in *request, resp *discordgo.InteractionResponse) error {
	if err := b.checkPayload(ctx, resp, true); err != nil {
		return err
	}
	in.acked = true
	err := b.session.InteractionRespond(in.i, resp, discordgo.WithContext(ctx), discordgo.WithRetryOnRatelimit(false))
	if err != nil {
		b.logDiscord(ctx, "interaction callback", err)
		return fmt.Errorf("interaction callback: %w", err)
	}
	return nil
}

// checkPayload refuses a payload that breaks Discord's limits (see
// limits.go): it is logged and never sent.
func (b *Bot) checkPayload(ctx context.Context, payload any, callback bool) error {
	raw, err := json.Marshal(payload)
	if err != nil {
		return fmt.Errorf("encode payload: %w", err)
	}
	if v := payloadViolations(raw, callback); len(v) > 0 {
		b.log.ErrorContext(ctx, "discord: payload breaks Discord's limits, not sent", "violations", v)
		return fmt.Errorf("payload breaks Discord's limits: %s", strings.Join(v, "; "))
	}
	return nil
}

// deferUpdate acknowledges a component or modal submit without a loading
// state (type 6); the panel is repainted later by editPanel.
func (b *Bot) deferUpdate(ctx context.Context, in *request) error {
	return b.respond(ctx, in, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredMessageUpdate})
}

// v2Callback is an interaction callback whose data is a Components V2
// message (discordgo v0.29's InteractionResponseData always sends content,
// which such messages must not carry).
type v2Callback struct {
	Type discordgo.InteractionResponseType `json:"type"`
	Data v2Message                         `json:"data"`
}

type v2Message struct {
	Flags      discordgo.MessageFlags       `json:"flags"`
	Components []discordgo.MessageComponent `json:"components"`
}

// paint shows p: a type 7 update when not yet acknowledged (components and
// modals opened from the panel), a type 4 ephemeral message for the slash
// command, or an edit of @original after a deferral. Panels are Components
// V2 messages.
func (b *Bot) paint(ctx context.Context, in *request, p *panel) error {
	comps := render(p)
	if in.acked {
		return b.editOriginal(ctx, in, comps)
	}
	typ := discordgo.InteractionResponseUpdateMessage
	flags := discordgo.MessageFlagsIsComponentsV2
	if in.i.Type == discordgo.InteractionApplicationCommand || in.i.Message == nil {
		typ, flags = discordgo.InteractionResponseChannelMessageWithSource, flags|discordgo.MessageFlagsEphemeral
	}
	body := v2Callback{Type: typ, Data: v2Message{Flags: flags, Components: comps}}
	if err := b.checkPayload(ctx, body, true); err != nil {
		return err
	}
	in.acked = true
	_, err := b.session.RequestWithBucketID(http.MethodPost, discordgo.EndpointInteractionResponse(in.i.ID, in.i.Token), body,
		discordgo.EndpointInteractionResponse("", ""), discordgo.WithContext(ctx), discordgo.WithRetryOnRatelimit(false))
	if err != nil {
		b.logDiscord(ctx, "interaction callback", err)
		return fmt.Errorf("interaction callback: %w", err)
	}
	return nil
}

// editOriginal replaces the reply with a Components V2 message.
func (b *Bot) editOriginal(ctx context.Context, in *request, comps []discordgo.MessageComponent) error {
	body := v2Message{Flags: discordgo.MessageFlagsIsComponentsV2, Components: comps}
	if err := b.checkPayload(ctx, body, false); err != nil {
		return err
	}
	_, err := b.session.RequestWithBucketID(http.MethodPatch, discordgo.EndpointInteractionResponseActions(in.i.AppID, in.i.Token), body,
		discordgo.EndpointWebhookToken("", ""), discordgo.WithContext(ctx))
	if err != nil {
		b.logDiscord(ctx, "edit panel", err)
		return fmt.Errorf("edit panel: %w", err)
	}
	return nil
}

// editText replaces a (legacy) reply's text, keeping its components.
func (b *Bot) editText(ctx context.Context, in *request, text string) error {
	text = lore.ClipRunes(text, maxContentLen)
	if err := b.checkPayload(ctx, &discordgo.WebhookEdit{Content: &text}, false); err != nil {
		return err
	}
	_, err := b.session.InteractionResponseEdit(in.i, &discordgo.WebhookEdit{Content: &text}, discordgo.WithContext(ctx))
	if err != nil {
		b.logDiscord(ctx, "edit reply", err)
		return fmt.Errorf("edit reply: %w", err)
	}
	return nil
}

// apologise tells the member something failed, without internals.
func (b *Bot) apologise(ctx context.Context, in *request) {
	defer func() { _ = recover() }()
	// The handler's context may be what ran out: answer on a fresh one.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), receiptTime)
	defer cancel()
	_ = b.reply(rctx, in, in.t.S("Something went wrong and the panel could not be updated. Nothing else was changed; try again in a moment."))
}

// logDiscord logs a Discord REST failure with its HTTP status and JSON
// error code (e.g. 10062 unknown interaction, 40060 already acknowledged).
func (b *Bot) logDiscord(ctx context.Context, op string, err error) {
	attrs := []any{"op", op, "err", redact(err)}
	var rest *discordgo.RESTError
	if errors.As(err, &rest) {
		if rest.Response != nil {
			attrs = append(attrs, "status", rest.Response.StatusCode)
		}
		if rest.Message != nil {
			attrs = append(attrs, "code", rest.Message.Code, "message", rest.Message.Message)
		}
	}
	var rl *discordgo.RateLimitError
	if errors.As(err, &rl) && rl.TooManyRequests != nil {
		attrs = append(attrs, "retry_after", rl.RetryAfter)
	}
	b.log.WarnContext(ctx, "discord: REST call failed", attrs...)
}

// urlInText matches URLs in error text: interaction callback and webhook
// URLs carry the interaction token, attachment URLs carry signatures.
var urlInText = regexp.MustCompile(`https?://[^\s"']+`)

// redact returns err's text with every URL reduced to its scheme and host,
// so that tokens and signed query strings never reach the log.
func redact(err error) string {
	if err == nil {
		return ""
	}
	return urlInText.ReplaceAllStringFunc(err.Error(), func(u string) string {
		if p, perr := url.Parse(u); perr == nil && p.Host != "" {
			return p.Scheme + "://" + p.Host + "/…"
		}
		return "<url>"
	})
}

// servicePrincipal is the bot's own identity for the one call members
// cannot make for a new guild: registering it.
func servicePrincipal() *auth.Principal {
	return &auth.Principal{Kind: auth.Service, UserID: "discord-adapter"}
}

// loreEditor asks the API whether the member of in, who holds roles but
// does not manage the server, may write its lore (the server's lore editor
// role; docs/workbench.md#lore-editor-role). An unregistered server grants
// nothing.
func (b *Bot) loreEditor(ctx context.Context, in *request) (bool, error) {
	var data client.ServerData
	if err := b.api.Do(ctx, in.p, client.OpServerAccess, map[string]any{"s": in.guild}, &data); err != nil {
		return false, fmt.Errorf("read server access: %w", err)
	}
	return data.Server != nil && data.Server.CanWriteLore, nil
}
