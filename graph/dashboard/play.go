package dashboard

import (
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"loregate/graph/client"
	"loregate/graph/model"
)

// playView is the playground's data.
type playView struct {
	Chat, Channel, Lineage, User, Char string
	Personas                           []book
	Channels                           *channelList
	Result                             *model.AssembledPrompt
	// Names names the trace's entries (title, book, editor link); Books
	// are their book names, for the trace's book filter.
	Names map[string]entryName
	Books []string
	// Texts are the optional system prompt, author's note and example
	// messages the run places; Places and Shares are the injections view
	// and the per-book budget bar (playplaces.go).
	Texts playTexts
	Ctx   playContext
	// Gens are the generation types to pick from.
	Gens   []string
	Places []place
	Shares []bookShare
	Error  string
}

// Similar reports whether the run admitted entry id by its similarity to
// the chat (trace verdict semantic_match), not by a key: the fired list
// says so rather than "activated by a key".
func (v playView) Similar(id string) bool {
	if v.Result == nil {
		return false
	}
	for _, it := range v.Result.Activation.Trace {
		if it.ID == id {
			return it.Verdict == "semantic_match"
		}
	}
	return false
}

// maxPlayTextChars bounds each optional prompt text of the playground, in
// characters (runes); the API bounds them again.
const maxPlayTextChars = 20_000

// speaker matches "Name: text", a chat line with its speaker.
var speaker = regexp.MustCompile(`^([^:\n]{1,40}):\s?(.*)$`)

// maxChatChars bounds the pasted chat, in characters (runes); the API
// bounds it again.
const maxChatChars = 200_000

// parseChat turns a pasted chat into messages, oldest first: a line
// "Name: text" starts a message by Name; other lines continue the current
// message; a blank line ends it.
func parseChat(chat string) []map[string]any {
	var msgs []map[string]any
	var name string
	var lines []string // the current message's lines; nil = no message
	flush := func() {
		if content := strings.TrimSpace(strings.Join(lines, "\n")); content != "" {
			m := map[string]any{"content": content}
			if name != "" {
				m["name"] = name
			}
			msgs = append(msgs, m)
		}
		name, lines = "", nil
	}
	for _, line := range strings.Split(strings.ReplaceAll(chat, "\r\n", "\n"), "\n") {
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		if m := speaker.FindStringSubmatch(line); m != nil && !strings.Contains(m[1], "http") {
			flush()
			name, lines = strings.TrimSpace(m[1]), []string{m[2]}
			continue
		}
		lines = append(lines, line)
	}
	flush()
	return msgs
}

// playPage is the activation playground: a pasted chat, a channel and a
// persona run through assemblePrompt (a dry run: nothing is recorded),
// showing the fired entries, the trace of every entry with why not, the
// budget and the assembled prompt blocks.
func (d *Dashboard) playPage(rq *req) error {
	v := playView{Personas: rq.srv.PersonaBooks(), Channels: d.loadChannels(rq), Gens: generationTypes, Ctx: playContext{Gen: "NORMAL"}}
	if rq.r.Method == http.MethodGet {
		d.page(rq, "play", rq.t.S("Playground"), v)
		return nil
	}
	f := rq.r.PostForm
	v.Chat, v.Channel, v.Lineage = f.Get("chat"), strings.TrimSpace(f.Get("channel")), f.Get("lineage")
	v.User, v.Char = strings.TrimSpace(f.Get("user")), strings.TrimSpace(f.Get("char"))
	v.Texts = playTexts{System: f.Get("systemPrompt"), AuthorsNote: f.Get("authorsNote"), Examples: f.Get("dialogueExamples")}
	v.Ctx = readPlayContext(f)
	for _, s := range append([]string{v.Texts.System, v.Texts.AuthorsNote, v.Texts.Examples}, v.Ctx.texts()...) {
		if utf8.RuneCountInString(s) > maxPlayTextChars {
			v.Error = rq.t.S("Each text of the prompt, the character and the persona may have at most %d characters.", maxPlayTextChars)
			d.render(rq, "play", rq.t.S("Playground"), http.StatusUnprocessableEntity, v)
			return nil
		}
	}
	if utf8.RuneCountInString(v.Chat) > maxChatChars {
		v.Error = rq.t.S("The chat is too long: at most %d characters.", maxChatChars)
		d.render(rq, "play", rq.t.S("Playground"), http.StatusUnprocessableEntity, v)
		return nil
	}
	msgs := parseChat(v.Chat)
	if len(msgs) == 0 {
		v.Error = rq.t.S("Paste or type a chat first.")
		d.render(rq, "play", rq.t.S("Playground"), http.StatusUnprocessableEntity, v)
		return nil
	}
	act := map[string]any{"serverDiscordId": rq.sid, "messages": msgs}
	if l, err := strconv.ParseInt(v.Lineage, 10, 64); err == nil && l > 0 {
		act["lineageId"] = l
	}
	if v.Channel != "" {
		act["channelId"] = v.Channel
	}
	names := map[string]any{}
	if v.User != "" {
		names["user"] = v.User
	}
	if v.Char != "" {
		names["char"] = v.Char
	}
	act["names"] = names
	v.Ctx.apply(act)
	in := map[string]any{"activation": act}
	for k, text := range map[string]string{"systemPrompt": v.Texts.System, "authorsNote": v.Texts.AuthorsNote, "dialogueExamples": v.Texts.Examples} {
		if strings.TrimSpace(text) != "" {
			in[k] = text
		}
	}
	var out struct{ AssemblePrompt model.AssembledPrompt }
	err := d.api.Do(rq.ctx(), rq.p, client.OpAssemblePrompt, map[string]any{"in": in}, &out)
	if err != nil {
		v.Error = apiMessage(rq.t, err)
		d.render(rq, "play", rq.t.S("Playground"), http.StatusUnprocessableEntity, v)
		return nil
	}
	v.Result = &out.AssemblePrompt
	ids := make([]string, 0, len(v.Result.Activation.Trace))
	for _, it := range v.Result.Activation.Trace {
		ids = append(ids, it.ID)
	}
	if v.Names, err = d.entryNames(rq, ids); err != nil {
		return err
	}
	for _, n := range v.Names {
		if n.Book != "" && !slices.Contains(v.Books, n.Book) {
			v.Books = append(v.Books, n.Book)
		}
	}
	slices.Sort(v.Books)
	v.Places = places(rq.t, &v.Result.Activation, v.Names, v.Texts)
	v.Shares = bookShares(&v.Result.Activation, rq.srv, "/dashboard/s/"+rq.sid+"/")
	d.page(rq, "play", rq.t.S("Playground"), v)
	return nil
}

// logPage is the activation log of a recorded conversation (a channel and
// a persona lineage): each turn's entries by title, with their book and a
// link to the editor.
func (d *Dashboard) logPage(rq *req) error {
	qv := rq.r.URL.Query()
	ch := strings.TrimSpace(qv.Get("channel"))
	data := map[string]any{"Channel": ch, "Lineage": qv.Get("lineage"), "Personas": rq.srv.PersonaBooks(), "Channels": d.loadChannels(rq)}
	if ch != "" {
		vars := map[string]any{"s": rq.sid, "c": ch, "l": nil, "last": 50}
		if l, err := strconv.ParseInt(qv.Get("lineage"), 10, 64); err == nil && l > 0 {
			vars["l"] = l
		}
		var out struct{ ActivationLog []model.ActivationLogEntry }
		if err := d.api.Do(rq.ctx(), rq.p, client.OpActivationLog, vars, &out); err != nil {
			data["Error"] = apiMessage(rq.t, err)
		} else {
			var ids []string
			for _, t := range out.ActivationLog {
				for _, e := range t.Admitted {
					ids = append(ids, e.ID)
				}
			}
			names, err := d.entryNames(rq, ids)
			if err != nil {
				return err
			}
			data["Turns"], data["Names"], data["Searched"] = out.ActivationLog, names, true
		}
	}
	d.page(rq, "log", rq.t.S("Activation log"), data)
	return nil
}
