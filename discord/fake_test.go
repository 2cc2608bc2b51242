package discord

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
)

// fakeDiscord is Discord's REST API on loopback: interaction callbacks,
// @original edits, followups, guild channels and threads, DMs and a CDN for
// attachments. It records every request and checks every payload against
// Discord's component and modal limits (discord.md §1), failing the test on
// a violation. A second callback for one interaction gets 40060, as Discord
// answers.
type fakeDiscord struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	calls    []fakeCall
	answered map[string]bool
	channels map[string][]*discordgo.Channel
	threads  map[string][]*discordgo.Channel
	cdn      map[string][]byte
	// gatewayURL is what GET /gateway answers (a fakeGateway's URL).
	gatewayURL string
}

// fakeCall is one recorded request.
type fakeCall struct {
	Method, Path string
	// Body is a callback or edit body (payload_json for multipart).
	Body  wirePayload
	Files map[string][]byte
	// Raw is a JSON body that is not an object (command registration).
	Raw []byte
}

// wirePayload is the JSON of a callback ({type, data}) or of a webhook
// edit (the data fields at top level).
type wirePayload struct {
	Type int       `json:"type"`
	Data *wireData `json:"data"`
	wireData
}

type wireData struct {
	Content    *string         `json:"content"`
	Flags      int             `json:"flags"`
	CustomID   string          `json:"custom_id"`
	Title      string          `json:"title"`
	Components []wireComponent `json:"components"`
}

type wireComponent struct {
	Type          int                   `json:"type"`
	CustomID      string                `json:"custom_id"`
	Label         string                `json:"label"`
	Style         int                   `json:"style"`
	Disabled      bool                  `json:"disabled"`
	Placeholder   string                `json:"placeholder"`
	MinValues     *int                  `json:"min_values"`
	MaxValues     int                   `json:"max_values"`
	Options       []wireOption          `json:"options"`
	DefaultValues []struct{ ID string } `json:"default_values"`
	Value         string                `json:"value"`
	MaxLength     int                   `json:"max_length"`
	Required      bool                  `json:"required"`
	Components    []wireComponent       `json:"components"`
}

type wireOption struct {
	Label       string `json:"label"`
	Value       string `json:"value"`
	Description string `json:"description"`
	Default     bool   `json:"default"`
}

func newFakeDiscord(t *testing.T) *fakeDiscord {
	f := &fakeDiscord{t: t, answered: map[string]bool{}, channels: map[string][]*discordgo.Channel{},
		threads: map[string][]*discordgo.Channel{}, cdn: map[string][]byte{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// client returns an HTTP client whose every request, whatever its host
// (discord.com, the CDN), reaches the fake.
func (f *fakeDiscord) client() *http.Client {
	host := strings.TrimPrefix(f.srv.URL, "http://")
	return &http.Client{Transport: rewriteTransport{host: host, next: &http.Transport{}}}
}

type rewriteTransport struct {
	host string
	next http.RoundTripper
}

func (r rewriteTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host, req.Host = "http", r.host, r.host
	return r.next.RoundTrip(req)
}

func (f *fakeDiscord) writeErr(w http.ResponseWriter, status, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"code": code, "message": msg})
}

func (f *fakeDiscord) serve(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	call := fakeCall{Method: r.Method, Path: path}
	if r.Method == http.MethodPut {
		call.Raw, _ = io.ReadAll(r.Body)
	}
	if r.Method == http.MethodPost || r.Method == http.MethodPatch {
		call.Body, call.Files = f.decodeBody(r)
	}
	f.mu.Lock()
	f.calls = append(f.calls, call)
	f.mu.Unlock()
	parts := strings.Split(strings.TrimPrefix(path, "/api/v9/"), "/")
	switch {
	case strings.HasPrefix(path, "/cdn/"):
		f.mu.Lock()
		data, ok := f.cdn[path]
		f.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(data)
	case len(parts) == 4 && parts[0] == "interactions" && parts[3] == "callback" && r.Method == http.MethodPost:
		f.mu.Lock()
		dup := f.answered[parts[1]]
		f.answered[parts[1]] = true
		f.mu.Unlock()
		if dup {
			f.t.Errorf("second callback for interaction %s", parts[1])
			f.writeErr(w, http.StatusBadRequest, 40060, "Interaction has already been acknowledged.")
			return
		}
		f.validate(call.Body.Type, call.Body.Data)
		w.WriteHeader(http.StatusNoContent)
	case len(parts) == 5 && parts[0] == "webhooks" && parts[3] == "messages" && parts[4] == "@original" && r.Method == http.MethodPatch:
		f.validate(7, &call.Body.wireData)
		f.json(w, map[string]any{"id": "900000000000000001", "channel_id": "800000000000000001"})
	case len(parts) == 3 && parts[0] == "webhooks" && r.Method == http.MethodPost:
		f.validate(4, &call.Body.wireData)
		f.json(w, map[string]any{"id": "900000000000000002", "channel_id": "800000000000000001"})
	case len(parts) == 3 && parts[0] == "guilds" && parts[2] == "channels" && r.Method == http.MethodGet:
		f.mu.Lock()
		chans := f.channels[parts[1]]
		f.mu.Unlock()
		if chans == nil {
			chans = []*discordgo.Channel{}
		}
		f.json(w, chans)
	case len(parts) == 4 && parts[0] == "guilds" && parts[2] == "threads" && parts[3] == "active":
		f.mu.Lock()
		threads := f.threads[parts[1]]
		f.mu.Unlock()
		if threads == nil {
			threads = []*discordgo.Channel{}
		}
		f.json(w, map[string]any{"threads": threads, "members": []any{}, "has_more": false})
	case path == "/api/v9/gateway" || path == "/api/v9/gateway/bot":
		f.mu.Lock()
		u := f.gatewayURL
		f.mu.Unlock()
		f.json(w, map[string]any{"url": u})
	case parts[0] == "applications" && parts[len(parts)-1] == "commands" && r.Method == http.MethodPut:
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(call.Raw)
	case len(parts) == 3 && parts[0] == "users" && parts[2] == "channels":
		f.json(w, map[string]any{"id": "700000000000000001", "type": 1})
	case len(parts) == 3 && parts[0] == "channels" && parts[2] == "messages":
		f.json(w, map[string]any{"id": "900000000000000003", "channel_id": parts[1]})
	default:
		f.t.Errorf("fake discord: unexpected %s %s", r.Method, path)
		f.writeErr(w, http.StatusNotFound, 0, "404: Not Found")
	}
}

func (f *fakeDiscord) json(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// decodeBody reads a JSON or multipart (payload_json + files[n]) body.
func (f *fakeDiscord) decodeBody(r *http.Request) (wirePayload, map[string][]byte) {
	var p wirePayload
	files := map[string][]byte{}
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "multipart/form-data" {
		mr := multipart.NewReader(r.Body, params["boundary"])
		for {
			part, err := mr.NextPart()
			if err != nil {
				break
			}
			data, _ := io.ReadAll(part)
			if part.FormName() == "payload_json" {
				if err := json.Unmarshal(data, &p); err != nil {
					f.t.Errorf("payload_json: %v", err)
				}
				continue
			}
			files[part.FileName()] = data
		}
		return p, files
	}
	raw, _ := io.ReadAll(r.Body)
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &p); err != nil {
			f.t.Errorf("body %s: %v", raw, err)
		}
	}
	return p, files
}

// validate fails the test when a payload breaks Discord's limits.
func (f *fakeDiscord) validate(typ int, d *wireData) {
	for _, p := range violations(typ, d) {
		f.t.Errorf("discord would reject this payload: %s", p)
	}
}

// problems collects limit violations.
type problems []string

func (p *problems) Errorf(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

// violations lists how a callback or edit payload breaks Discord's limits.
func violations(typ int, d *wireData) []string {
	var t problems
	if d == nil {
		if typ == 4 || typ == 7 || typ == 9 {
			t.Errorf("callback type %d without data", typ)
		}
		return t
	}
	if d.Content != nil && utf8.RuneCountInString(*d.Content) > 2000 {
		t.Errorf("content of %d characters", utf8.RuneCountInString(*d.Content))
	}
	ids := map[string]bool{}
	checkID := func(id string) {
		if id == "" || len(id) > 100 {
			t.Errorf("custom_id %q: length %d", id, len(id))
		}
		if ids[id] {
			t.Errorf("duplicate custom_id %q", id)
		}
		ids[id] = true
	}
	if typ == 9 {
		checkID(d.CustomID)
		if n := utf8.RuneCountInString(d.Title); n < 1 || n > 45 {
			t.Errorf("modal title %q: %d characters", d.Title, n)
		}
		if n := len(d.Components); n < 1 || n > 5 {
			t.Errorf("modal with %d rows", n)
		}
		for _, row := range d.Components {
			if row.Type != 1 || len(row.Components) != 1 || row.Components[0].Type != 4 {
				t.Errorf("modal row must hold exactly one text input: %+v", row)
				continue
			}
			ti := row.Components[0]
			checkID(ti.CustomID)
			if n := utf8.RuneCountInString(ti.Label); n < 1 || n > 45 {
				t.Errorf("text input label %q: %d characters", ti.Label, n)
			}
			if ti.MaxLength < 1 || ti.MaxLength > 4000 || utf8.RuneCountInString(ti.Value) > ti.MaxLength {
				t.Errorf("text input %q: max_length %d, value %d characters", ti.CustomID, ti.MaxLength, utf8.RuneCountInString(ti.Value))
			}
			if ti.Disabled {
				t.Errorf("disabled component in a modal")
			}
		}
		return t
	}
	if len(d.Components) > 5 {
		t.Errorf("%d action rows", len(d.Components))
	}
	for _, row := range d.Components {
		if row.Type != 1 {
			t.Errorf("top-level component of type %d", row.Type)
			continue
		}
		buttons, selects := 0, 0
		for _, c := range row.Components {
			switch c.Type {
			case 2:
				buttons++
				checkID(c.CustomID)
				if n := utf8.RuneCountInString(c.Label); n > 80 {
					t.Errorf("button label of %d characters", n)
				}
			case 3, 5, 6, 7, 8:
				selects++
				checkID(c.CustomID)
				if utf8.RuneCountInString(c.Placeholder) > 150 {
					t.Errorf("placeholder of %d characters", utf8.RuneCountInString(c.Placeholder))
				}
				if c.MaxValues > 25 || (c.MinValues != nil && (*c.MinValues < 0 || *c.MinValues > 25)) {
					t.Errorf("select %q: min/max values out of range", c.CustomID)
				}
				if c.Type == 3 {
					if n := len(c.Options); n < 1 || n > 25 {
						t.Errorf("select %q with %d options", c.CustomID, n)
					}
					values := map[string]bool{}
					for _, o := range c.Options {
						if values[o.Value] {
							t.Errorf("duplicate option value %q", o.Value)
						}
						values[o.Value] = true
						for _, s := range []string{o.Label, o.Value, o.Description} {
							if utf8.RuneCountInString(s) > 100 {
								t.Errorf("option text of %d characters", utf8.RuneCountInString(s))
							}
						}
						if o.Label == "" || o.Value == "" {
							t.Errorf("option without label or value")
						}
					}
				}
			default:
				t.Errorf("component type %d in an action row", c.Type)
			}
		}
		if selects > 1 || (selects == 1 && buttons > 0) || buttons > 5 || buttons+selects == 0 {
			t.Errorf("action row with %d buttons and %d selects", buttons, selects)
		}
	}
	return t
}

// since returns the calls recorded after the first n.
func (f *fakeDiscord) since(n int) []fakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeCall(nil), f.calls[n:]...)
}

func (f *fakeDiscord) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

func (f *fakeDiscord) setChannels(guild string, ids ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.channels[guild] = nil
	for i, id := range ids {
		f.channels[guild] = append(f.channels[guild], &discordgo.Channel{ID: id, GuildID: guild, Name: fmt.Sprintf("channel-%d", i), Type: discordgo.ChannelTypeGuildText})
	}
}

func (f *fakeDiscord) setThreads(guild string, ids ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.threads[guild] = nil
	for _, id := range ids {
		f.threads[guild] = append(f.threads[guild], &discordgo.Channel{ID: id, GuildID: guild, Type: discordgo.ChannelTypeGuildPublicThread})
	}
}

// attach serves data at a CDN path and returns its URL.
func (f *fakeDiscord) attach(name string, data []byte) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := "/cdn/ephemeral-attachments/1/2/" + name
	f.cdn[p] = data
	return "https://cdn.discordapp.com" + p + "?ex=1&is=2&hm=3"
}
