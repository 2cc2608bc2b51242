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

	"github.com/bwmarrin/discordgo"
)

// fakeDiscord is Discord's REST API on loopback: interaction callbacks,
// @original edits, followups, guild channels and threads, DMs and a CDN for
// attachments. It records every request and checks every payload against
// Discord's component and modal limits (docs/discord.md#panel), failing the test on
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
