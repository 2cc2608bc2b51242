package discord

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"
)

// fakeGateway is Discord's gateway on a loopback websocket. Each
// connection attempt follows the next step of plan ("refuse": the upgrade
// is answered 503; "ready": Hello, then READY for an identify or RESUMED
// for a resume; "reject": Hello, then close code 4004 as for a bad token);
// attempts past the plan are "ready". drop cuts the open connections.
type fakeGateway struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	plan     []string
	attempts int
	// ops are the first opcodes clients sent: 2 identify, 6 resume.
	ops   []int
	conns []*websocket.Conn
	// guilds are the guild ids READY lists.
	guilds []string
	seq    int
}

// dispatch sends event t with payload d on the newest connection.
func (g *fakeGateway) dispatch(t string, d any) {
	g.mu.Lock()
	defer g.mu.Unlock()
	require.NotEmpty(g.t, g.conns, "no open gateway connection")
	g.seq++
	require.NoError(g.t, g.conns[len(g.conns)-1].WriteJSON(map[string]any{"op": 0, "t": t, "s": 10 + g.seq, "d": d}))
}

func newFakeGateway(t *testing.T, plan ...string) *fakeGateway {
	g := &fakeGateway{t: t, plan: plan}
	g.srv = httptest.NewServer(http.HandlerFunc(g.serve))
	t.Cleanup(func() {
		g.drop()
		g.srv.Close()
	})
	return g
}

func (g *fakeGateway) url() string { return "ws" + strings.TrimPrefix(g.srv.URL, "http") }

func (g *fakeGateway) serve(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	mode := "ready"
	if g.attempts < len(g.plan) {
		mode = g.plan[g.attempts]
	}
	g.attempts++
	g.mu.Unlock()
	if mode == "refuse" {
		http.Error(w, "gateway unavailable", http.StatusServiceUnavailable)
		return
	}
	up := websocket.Upgrader{}
	c, err := up.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	_ = c.WriteJSON(map[string]any{"op": 10, "d": map[string]any{"heartbeat_interval": 45000}})
	var first struct {
		Op int `json:"op"`
	}
	if err := c.ReadJSON(&first); err != nil {
		_ = c.Close()
		return
	}
	g.mu.Lock()
	g.ops = append(g.ops, first.Op)
	g.mu.Unlock()
	if mode == "reject" {
		_ = c.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(4004, "Authentication failed."))
		_ = c.Close()
		return
	}
	if first.Op == 6 {
		_ = c.WriteJSON(map[string]any{"op": 0, "t": "RESUMED", "s": 2, "d": map[string]any{}})
	} else {
		g.mu.Lock()
		guilds := []any{}
		for _, id := range g.guilds {
			guilds = append(guilds, map[string]any{"id": id, "unavailable": true})
		}
		g.mu.Unlock()
		_ = c.WriteJSON(map[string]any{"op": 0, "t": "READY", "s": 1, "d": map[string]any{
			"v": 9, "session_id": "session-1", "guilds": guilds,
			"user": map[string]any{"id": "100000000000000001", "username": "loregate", "discriminator": "0"},
		}})
	}
	g.mu.Lock()
	g.conns = append(g.conns, c)
	g.mu.Unlock()
	for { // heartbeats and anything else are read and ignored
		if _, _, err := c.ReadMessage(); err != nil {
			return
		}
	}
}

// drop closes every open connection without a close frame (a network cut).
func (g *fakeGateway) drop() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, c := range g.conns {
		_ = c.Close()
	}
	g.conns = nil
}

func (g *fakeGateway) firstOps() []int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]int(nil), g.ops...)
}

// runBot starts h.bot.Run against gw and returns a stop func that ends it
// and returns its error.
func runBot(t *testing.T, h *harness, gw *fakeGateway) (done <-chan error, stop func()) {
	t.Helper()
	h.fake.mu.Lock()
	h.fake.gatewayURL = gw.url()
	h.fake.mu.Unlock()
	h.bot.backoff = Backoff{Min: 20 * time.Millisecond, Max: 80 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- h.bot.Run(ctx) }()
	t.Cleanup(cancel)
	return errc, cancel
}

func waitState(t *testing.T, h *harness, want GatewayState) GatewayStatus {
	t.Helper()
	var st GatewayStatus
	require.Eventually(t, func() bool {
		st = h.bot.GatewayStatus()
		return st.State == want
	}, 10*time.Second, 5*time.Millisecond, "gateway state %s, want %s", st, want)
	return st
}

func (h *harness) commandRegistrations() int {
	n := 0
	for _, c := range h.fake.since(0) {
		if c.Method == http.MethodPut && strings.HasSuffix(c.Path, "/commands") {
			n++
		}
	}
	return n
}

// TestGatewayReconnects: a refused start is retried with backoff until the
// gateway accepts; a dropped connection is resumed; commands are
// registered once.
func TestGatewayReconnects(t *testing.T) {
	h := newHarness(t)
	gw := newFakeGateway(t, "refuse", "refuse", "ready")
	done, stop := runBot(t, h, gw)

	waitState(t, h, GatewayConnected)
	require.Equal(t, []int{2}, gw.firstOps(), "one identify after two refused attempts")
	require.Equal(t, 2.0, testutil.ToFloat64(h.bot.gw.reconnects))
	require.Equal(t, 1, h.commandRegistrations())

	gw.drop()
	st := waitState(t, h, GatewayReconnecting)
	require.Equal(t, "connection lost", st.Reason)
	waitState(t, h, GatewayConnected)
	require.Equal(t, []int{2, 6}, gw.firstOps(), "the dropped session is resumed")
	require.Equal(t, 3.0, testutil.ToFloat64(h.bot.gw.reconnects))
	require.Equal(t, 1, h.commandRegistrations(), "commands are not registered again")

	stop()
	require.NoError(t, <-done)
	require.Equal(t, GatewayStopped, h.bot.GatewayStatus().State)
}

// TestGatewayRejectedToken: close code 4004 stops Run at once with one
// clear error; no retry.
func TestGatewayRejectedToken(t *testing.T) {
	h := newHarness(t)
	gw := newFakeGateway(t, "reject")
	done, _ := runBot(t, h, gw)
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run kept retrying a rejected token")
	}
	require.ErrorIs(t, err, errTokenRejected)
	st := h.bot.GatewayStatus()
	require.Equal(t, GatewayFailed, st.State)
	require.Contains(t, st.String(), "failed: Discord rejected the bot token")
	require.Equal(t, []int{2}, gw.firstOps())
	require.Zero(t, h.commandRegistrations())
}

func TestBackoffDelay(t *testing.T) {
	bo := Backoff{Min: time.Second, Max: 30 * time.Second}
	tests := []struct {
		n    int
		rnd  float64
		want time.Duration
	}{
		{1, 0, 500 * time.Millisecond},
		{1, 1, time.Second},
		{2, 1, 2 * time.Second},
		{4, 0.5, 6 * time.Second},
		{6, 1, 30 * time.Second}, // 32 s capped
		{60, 0, 15 * time.Second},
	}
	for _, tc := range tests {
		require.Equal(t, tc.want, bo.delay(tc.n, func() float64 { return tc.rnd }), "attempt %d rnd %v", tc.n, tc.rnd)
	}
}
