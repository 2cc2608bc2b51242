package discord

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"loregate/graph"
	"loregate/graph/auth"
	"loregate/graph/client"
	"loregate/graph/graphtest"
	"loregate/graph/model"
	"loregate/lore"
)

const (
	testGuild  = "300000000000000001"
	otherGuild = "300000000000000002"
	testUser   = "400000000000000001"
	chanA      = "500000000000000001"
	chanB      = "500000000000000002"
	chanGone   = "500000000000000003" // deleted from the guild
	threadA    = "500000000000000004"
	chanOther  = "600000000000000001" // a channel of another server

	permMember  = discordgo.PermissionViewChannel | discordgo.PermissionSendMessages
	permManager = permMember | discordgo.PermissionManageGuild
	permAdmin   = discordgo.PermissionAdministrator
)

// harness runs the bot's handlers against fakeDiscord and a real API on a
// fresh Postgres database.
type harness struct {
	t   *testing.T
	bot *Bot
	// x runs the test's own queries (gql).
	x    *graph.Executor
	fake *fakeDiscord
	now  time.Time
	seq  int64
	// jobs is the River client when the harness runs workers.
	jobs *river.Client[pgx.Tx]
	// pool is the test database (for forced failures).
	pool *pgxpool.Pool
	// locale is the members' Discord locale (en-US unless a test sets it).
	locale string
	// roles are the Discord role ids of the interactions' member (none
	// unless a test sets them).
	roles []string
}

func newHarness(t *testing.T) *harness { return newHarnessJobs(t, false) }

// newHarnessJobs is newHarness with, when withJobs, real River workers and
// every import upload above 64 bytes handed to an import job.
func newHarnessJobs(t *testing.T, withJobs bool) *harness {
	t.Helper()
	return newHarnessWith(t, withJobs, lore.Limits{})
}

// newHarnessWith is newHarnessJobs with a deployment's limits (zero
// fields: the defaults).
func newHarnessWith(t *testing.T, withJobs bool, lim lore.Limits) *harness {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(testLog{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	o := graphtest.Options{Limits: lim, Logger: logger}
	if withJobs {
		o.Jobs, o.InlineImportBytes = true, 64
		o.JobConfig = func(rc *river.Config) {
			rc.FetchCooldown, rc.FetchPollInterval = 5*time.Millisecond, 20*time.Millisecond
		}
	}
	a := graphtest.NewInProcess(t, o)
	x := a.Executor
	api, err := client.New(x, nil)
	require.NoError(t, err)
	fake := newFakeDiscord(t)
	b, err := New(Config{Token: "test-token", API: api, Logger: logger, Download: fake.client(), MaxJSONBytes: lim.JSONBytes})
	require.NoError(t, err)
	b.session.Client = fake.client()
	b.importer = inlineImporter{api: b.api, pollMin: 10 * time.Millisecond}
	h := &harness{t: t, bot: b, x: x, fake: fake, now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), jobs: a.JobClient(), pool: a.Pool, locale: "en-US"}
	b.pollMin = 10 * time.Millisecond
	b.missingText = func(key string) { t.Errorf("text missing from the message catalog: %q", key) }
	b.now = func() time.Time { return h.now }
	b.guildName = func(string) string { return "Test guild" }
	fake.setChannels(testGuild, chanA, chanB)
	fake.setThreads(testGuild, threadA)
	fake.setChannels(otherGuild, chanOther)
	return h
}

// gql runs a query of the test's own as the service (test seeding and
// assertions), on the executor the bot's client runs on.
func (h *harness) gql(query string, vars map[string]any, out any) {
	h.t.Helper()
	resp := h.x.Do(auth.WithPrincipal(context.Background(), servicePrincipal()), query, vars, nil)
	require.Empty(h.t, resp.Errors, "query %s", query)
	if out != nil {
		require.NoError(h.t, json.Unmarshal(resp.Data, out))
	}
}

// op runs one of the client's operations as the service.
func (h *harness) op(op client.Op, vars map[string]any, out any) {
	h.t.Helper()
	require.NoError(h.t, h.bot.api.Do(context.Background(), servicePrincipal(), op, vars, out))
}

func (h *harness) registerServer() {
	h.t.Helper()
	require.NoError(h.t, h.bot.registerServer(context.Background(), testGuild))
}

func (h *harness) persona(id, lineage int64, name string) {
	h.t.Helper()
	var out struct {
		UpsertPersona struct{ Error *model.MutationError } `json:"upsertPersona"`
	}
	h.gql(`mutation($s: String!, $id: Int64!, $l: Int64!, $n: String!) { upsertPersona(input: {serverDiscordId: $s, id: $id, lineageId: $l, name: $n}) { error { code message } } }`,
		map[string]any{"s": testGuild, "id": id, "l": lineage, "n": name}, &out)
	require.Nil(h.t, out.UpsertPersona.Error)
}

func (h *harness) removePersona(id int64) {
	h.t.Helper()
	h.gql(`mutation($s: String!, $id: Int64!) { removePersona(input: {serverDiscordId: $s, id: $id}) { error { code } } }`,
		map[string]any{"s": testGuild, "id": id}, nil)
}

// book creates a Serverwide collection with n generated entries and
// returns its id.
func (h *harness) book(name string, n int, channels ...string) string {
	h.t.Helper()
	var out struct {
		CreateCollection struct {
			Collection struct{ ID string }
			Error      *model.MutationError
		} `json:"createCollection"`
	}
	if channels == nil {
		channels = []string{}
	}
	h.op(client.OpCreateCollection, map[string]any{"in": map[string]any{"serverDiscordId": testGuild, "name": name, "channelIds": channels}}, &out)
	require.Nil(h.t, out.CreateCollection.Error)
	id := out.CreateCollection.Collection.ID
	if n > 0 {
		h.importEntries(0, id, n)
	}
	return id
}

// importEntries imports n generated world info entries into a collection
// (lineage 0) or a persona book.
func (h *harness) importEntries(lineage int64, collection string, n int) {
	h.t.Helper()
	res, err := h.bot.importer.Import(context.Background(), importRequest{
		Principal: servicePrincipal(), Server: testGuild, Lineage: lineage, Collection: collection,
		FileName: "gen.json", Data: worldInfo(n),
	})
	require.NoError(h.t, err)
	require.Nil(h.t, res.Error)
	require.Equal(h.t, n, res.Added)
}

// worldInfo returns a SillyTavern world info file of n entries, titled
// "Entry 000".. with keyword "key N".
func worldInfo(n int) []byte { return worldInfoFrom(0, n) }

// worldInfoFrom is worldInfo numbered from start.
func worldInfoFrom(start, n int) []byte {
	entries := map[string]any{}
	for i := start; i < start+n; i++ {
		entries[strconv.Itoa(i)] = map[string]any{
			"uid": i, "key": []string{fmt.Sprintf("key %d", i)}, "keysecondary": []string{},
			"comment": fmt.Sprintf("Entry %03d", i), "content": fmt.Sprintf("Content of entry %d.", i),
			"order": 100, "position": 0, "disable": false, "constant": false, "selective": true, "selectiveLogic": 0,
		}
	}
	b, _ := json.Marshal(map[string]any{"entries": entries})
	return b
}

// scope reads a scope's entries (all fields) through the API as the service.
func (h *harness) scope(lineage int64, collection string) []model.Entry {
	h.t.Helper()
	var conn model.EntryConnection
	if lineage == 0 {
		var out struct {
			Server struct {
				Collection *struct{ Entries model.EntryConnection } `json:"collection"`
			} `json:"server"`
		}
		h.op(client.OpPanelCollectionEntries, map[string]any{"s": testGuild, "n": collection, "full": true}, &out)
		if out.Server.Collection == nil {
			return nil
		}
		conn = out.Server.Collection.Entries
	} else {
		var out struct {
			Server struct {
				PersonaBook *struct{ Entries model.EntryConnection } `json:"personaBook"`
			} `json:"server"`
		}
		h.op(client.OpPanelPersonaEntries, map[string]any{"s": testGuild, "l": lineage, "full": true}, &out)
		if out.Server.PersonaBook == nil {
			return nil
		}
		conn = out.Server.PersonaBook.Entries
	}
	var es []model.Entry
	for _, e := range conn.Edges {
		es = append(es, e.Node)
	}
	return es
}

// books reads the server's collections as the service.
func (h *harness) books() []model.Collection {
	h.t.Helper()
	var out struct {
		Server struct {
			Collections struct {
				Edges []struct{ Node model.Collection } `json:"edges"`
			} `json:"collections"`
		} `json:"server"`
	}
	h.op(client.OpServer, map[string]any{"s": testGuild}, &out)
	var cs []model.Collection
	for _, e := range out.Server.Collections.Edges {
		cs = append(cs, e.Node)
	}
	return cs
}

// outcome is what one interaction sent to Discord.
type outcome struct {
	t     *testing.T
	id    string
	calls []fakeCall
}

// callback returns the interaction's one callback.
func (o outcome) callback() wirePayload {
	o.t.Helper()
	var cbs []wirePayload
	for _, c := range o.calls {
		if strings.HasPrefix(c.Path, "/api/v9/interactions/"+o.id+"/") {
			cbs = append(cbs, c.Body)
		}
	}
	require.Len(o.t, cbs, 1, "callbacks of interaction %s: %+v", o.id, o.calls)
	return cbs[0]
}

// edits returns the @original edits.
func (o outcome) edits() []wireData {
	var out []wireData
	for _, c := range o.calls {
		if c.Method == "PATCH" && strings.Contains(c.Path, "/tok"+o.id+"/messages/@original") {
			out = append(out, c.Body.wireData)
		}
	}
	return out
}

// panel returns the message the member ends up seeing: the last edit, or
// the callback's data.
func (o outcome) panel() wireData {
	o.t.Helper()
	if e := o.edits(); len(e) > 0 {
		return e[len(e)-1]
	}
	cb := o.callback()
	require.NotNil(o.t, cb.Data, "callback type %d has no data", cb.Type)
	return *cb.Data
}

func (o outcome) content() string {
	o.t.Helper()
	return o.panel().text()
}

// text returns what the member reads: the content, or every text display.
func (d wireData) text() string {
	var b strings.Builder
	if d.Content != nil {
		b.WriteString(*d.Content)
	}
	for _, c := range d.all() {
		if c.Type == ctTextDisplay {
			b.WriteString(c.Content + "\n")
		}
	}
	return b.String()
}

// all returns every component of d, nested ones included, in order.
func (d wireData) all() []wireComponent {
	var out []wireComponent
	var walk func(cs []wireComponent)
	walk = func(cs []wireComponent) {
		for _, c := range cs {
			out = append(out, c)
			walk(c.Components)
			if c.Component != nil {
				walk([]wireComponent{*c.Component})
			}
		}
	}
	walk(d.Components)
	return out
}

// find returns the component whose route has action act.
func (d wireData) find(act string) (wireComponent, bool) {
	for _, c := range d.all() {
		if rt, err := parseRoute(c.CustomID); err == nil && rt.action == act {
			return c, true
		}
	}
	return wireComponent{}, false
}

// rows counts the panel's action rows.
func (d wireData) rows() int {
	n := 0
	for _, c := range d.all() {
		if c.Type == ctActionRow {
			n++
		}
	}
	return n
}

func (h *harness) need(d wireData, act string) wireComponent {
	h.t.Helper()
	c, ok := d.find(act)
	require.True(h.t, ok, "no %s component in %+v", act, d.Components)
	return c
}

func (h *harness) nextID() string {
	h.seq++
	ms := h.now.UnixMilli() - 1420070400000
	return strconv.FormatInt(ms<<22+h.seq, 10)
}

// run decodes a fixture into an InteractionCreate (discordgo's own decode
// path) and handles it synchronously.
func (h *harness) run(fixture string, perms int64, vars map[string]string) outcome {
	h.t.Helper()
	raw, err := os.ReadFile("testdata/" + fixture)
	require.NoError(h.t, err)
	id := h.nextID()
	pairs := []string{"{{ID}}", id, "{{GUILD}}", testGuild, "{{USER}}", testUser, "{{PERMS}}", strconv.FormatInt(perms, 10),
		`"locale": "en-US"`, `"locale": "` + h.locale + `"`, "{{ROLES}}", jsonString(append([]string{}, h.roles...))}
	for k, v := range vars {
		pairs = append(pairs, k, v)
	}
	payload := []byte(strings.NewReplacer(pairs...).Replace(string(raw)))
	require.True(h.t, json.Valid(payload), "fixture %s: %s", fixture, payload)
	n := h.fake.count()
	h.bot.HandleRaw(context.Background(), payload)
	return outcome{t: h.t, id: id, calls: h.fake.since(n)}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// command runs a slash command.
func (h *harness) command(perms int64, name string, options, resolved any) outcome {
	h.t.Helper()
	return h.run("command.json", perms, map[string]string{"{{NAME}}": name, "{{OPTIONS}}": jsonString(options), "{{RESOLVED}}": jsonString(resolved)})
}

func (h *harness) open(perms int64) outcome {
	h.t.Helper()
	return h.command(perms, CommandMemories, nil, nil)
}

// click presses a button or picks select values.
func (h *harness) click(perms int64, c wireComponent, values ...string) outcome {
	h.t.Helper()
	require.False(h.t, c.Disabled, "clicking a disabled component %s", c.CustomID)
	if values == nil {
		values = []string{}
	}
	return h.run("component.json", perms, map[string]string{"{{CUSTOM_ID}}": jsonString(c.CustomID), "{{COMPONENT_TYPE}}": strconv.Itoa(c.Type), "{{VALUES}}": jsonString(values)})
}

// clickID sends a component interaction with a raw custom id.
func (h *harness) clickID(perms int64, customID string, values ...string) outcome {
	h.t.Helper()
	return h.click(perms, wireComponent{Type: 2, CustomID: customID}, values...)
}

// submit submits a modal: the text inputs it held, with the given values
// replacing them (as a member editing the form would).
func (h *harness) submit(perms int64, m wireData, values map[string]string) outcome {
	h.t.Helper()
	return h.submitForm(perms, m, values, nil, nil)
}

// submitForm submits a modal of labelled inputs: text values, select
// picks, and for each file upload the attachments (id → attachment) it
// carries, placed in data.resolved.attachments as Discord does.
func (h *harness) submitForm(perms int64, m wireData, values map[string]string, picks map[string][]string, files map[string]*discordgo.MessageAttachment) outcome {
	h.t.Helper()
	var comps []any
	seen := map[string]bool{}
	for _, top := range m.Components {
		in := top
		if top.Type == ctLabel {
			require.NotNil(h.t, top.Component)
			in = *top.Component
		} else if top.Type == ctActionRow {
			in = top.Components[0]
		}
		seen[in.CustomID] = true
		var sub map[string]any
		switch in.Type {
		case ctTextInput:
			v := in.Value
			if nv, ok := values[in.CustomID]; ok {
				v = nv
			}
			sub = map[string]any{"type": ctTextInput, "custom_id": in.CustomID, "value": v}
		case ctStringSel:
			pick, ok := picks[in.CustomID]
			if v, set := values[in.CustomID]; set {
				pick, ok = []string{v}, true
			}
			if !ok {
				for _, o := range in.Options {
					if o.Default {
						pick = []string{o.Value}
					}
				}
			}
			sub = map[string]any{"type": ctStringSel, "custom_id": in.CustomID, "values": pick}
		case ctCheckbox:
			sub = map[string]any{"type": ctCheckbox, "custom_id": in.CustomID, "value": first(picks[in.CustomID]) == "true"}
		case ctFileUpload:
			ids := []string{}
			for id := range files {
				ids = append(ids, id)
			}
			sub = map[string]any{"type": ctFileUpload, "custom_id": in.CustomID, "values": ids}
		}
		comps = append(comps, map[string]any{"type": ctLabel, "component": sub})
	}
	for k := range values {
		require.True(h.t, seen[k], "modal has no field %q", k)
	}
	for k := range picks {
		require.True(h.t, seen[k], "modal has no field %q", k)
	}
	resolved := map[string]any{"attachments": files}
	if files == nil {
		resolved = map[string]any{}
	}
	return h.run("modal_submit.json", perms, map[string]string{"{{CUSTOM_ID}}": jsonString(m.CustomID), "{{COMPONENTS}}": jsonString(comps), "{{RESOLVED}}": jsonString(resolved)})
}

// modal returns the modal an interaction opened.
func (o outcome) modal() wireData {
	o.t.Helper()
	cb := o.callback()
	require.Equal(o.t, 9, cb.Type, "expected a modal, got callback type %d", cb.Type)
	return *cb.Data
}

func optionValues(c wireComponent) []string {
	var out []string
	for _, o := range c.Options {
		out = append(out, o.Value)
	}
	return out
}

// modalInputs returns a modal's inputs (what its labels wrap).
func modalInputs(m wireData) []wireComponent {
	var out []wireComponent
	for _, top := range m.Components {
		switch {
		case top.Component != nil:
			out = append(out, *top.Component)
		case top.Type == ctActionRow:
			out = append(out, top.Components...)
		}
	}
	return out
}

func fieldIDs(m wireData) []string {
	var out []string
	for _, c := range modalInputs(m) {
		out = append(out, c.CustomID)
	}
	return out
}

func fieldValue(m wireData, id string) string {
	for _, c := range modalInputs(m) {
		if c.CustomID == id {
			return c.Value
		}
	}
	return ""
}

// testLog writes the bot's warnings and errors to the test log (shown on
// failure).
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
