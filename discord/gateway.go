package discord

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus"
)

// GatewayState is where the bot's gateway connection stands.
type GatewayState string

// Gateway states, as /healthz, the log and the
// loregate_discord_gateway_state metric name them.
const (
	// GatewayConnecting: the first connection attempt is under way.
	GatewayConnecting GatewayState = "connecting"
	// GatewayConnected: the session is open; interactions are served.
	GatewayConnected GatewayState = "connected"
	// GatewayReconnecting: the connection dropped or an attempt failed;
	// the next attempt comes after a capped, jittered backoff and resumes
	// the session when Discord allows it.
	GatewayReconnecting GatewayState = "reconnecting"
	// GatewayFailed: Discord refused the bot for good (rejected token,
	// disallowed intents); the bot stopped retrying. Reason says why.
	GatewayFailed GatewayState = "failed"
	// GatewayStopped: Run returned after its context ended.
	GatewayStopped GatewayState = "stopped"
)

var gatewayStates = [...]GatewayState{GatewayConnecting, GatewayConnected, GatewayReconnecting, GatewayFailed, GatewayStopped}

// GatewayStatus is a snapshot of the gateway connection.
type GatewayStatus struct {
	State GatewayState
	// Reason is the last failure (empty when connected).
	Reason string
	// Attempt counts failed attempts since the last successful connection.
	Attempt int
	// Since is when State was entered.
	Since time.Time
}

// String renders the status for /healthz: "connected",
// "reconnecting (attempt 3): <reason>", "failed: <reason>".
func (s GatewayStatus) String() string {
	out := string(s.State)
	if s.Attempt > 0 && s.State == GatewayReconnecting {
		out += fmt.Sprintf(" (attempt %d)", s.Attempt)
	}
	if s.Reason != "" {
		out += ": " + s.Reason
	}
	return out
}

// GatewayReporter is what the HTTP server reads for /healthz details. *Bot
// implements it. /readyz does not use it: readiness is about the API,
// which serves whether or not the bot is connected.
type GatewayReporter interface {
	GatewayStatus() GatewayStatus
}

// Backoff bounds the delay between gateway connection attempts: the n-th
// consecutive failure waits a random duration in [d/2, d], where
// d = min(Max, Min·2^(n-1)) (capped exponential backoff with jitter).
type Backoff struct {
	Min, Max time.Duration
}

// DefaultBackoff is used when Config.Backoff is zero.
var DefaultBackoff = Backoff{Min: time.Second, Max: 2 * time.Minute}

// delay returns the wait before attempt n (n ≥ 1 failures so far).
func (bo Backoff) delay(n int, rnd func() float64) time.Duration {
	d := bo.Min
	for i := 1; i < n && d < bo.Max; i++ {
		d *= 2
	}
	d = min(d, bo.Max)
	return d/2 + time.Duration(rnd()*float64(d/2))
}

// gateway tracks the connection state and its metrics.
type gateway struct {
	mu     sync.Mutex
	status GatewayStatus
	now    func() time.Time

	state      *prometheus.GaugeVec
	reconnects prometheus.Counter
}

func newGateway(reg prometheus.Registerer, now func() time.Time) *gateway {
	g := &gateway{
		now: now,
		state: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "loregate_discord_gateway_state",
			Help: "Discord gateway connection state: 1 for the current state, 0 for the others.",
		}, []string{"state"}),
		reconnects: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "loregate_discord_gateway_reconnects_total",
			Help: "Discord gateway connections lost or attempts failed, each followed by a reconnect.",
		}),
	}
	if reg != nil {
		reg.MustRegister(g.state, g.reconnects)
	}
	g.set(GatewayConnecting, "", 0)
	return g
}

func (g *gateway) set(st GatewayState, reason string, attempt int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if st != g.status.State {
		g.status.Since = g.now()
	}
	g.status.State, g.status.Reason, g.status.Attempt = st, reason, attempt
	for _, s := range gatewayStates {
		v := 0.0
		if s == st {
			v = 1
		}
		g.state.WithLabelValues(string(s)).Set(v)
	}
}

func (g *gateway) get() GatewayStatus {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.status
}

// GatewayStatus reports the gateway connection state (GatewayReporter).
func (b *Bot) GatewayStatus() GatewayStatus { return b.gw.get() }

// errTokenRejected marks a bot token Discord refused: retrying cannot help.
//
//lint:ignore ST1005 the message starts with a proper name
var errTokenRejected = errors.New("Discord rejected the bot token (check LOREGATE_DISCORD_TOKEN)")

// fatalGateway returns the permanent form of err when Discord refused the
// bot for good, or nil when the failure may pass.
func fatalGateway(err error) error {
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		switch ce.Code {
		case 4004: // authentication failed
			return fmt.Errorf("%w: gateway close code 4004", errTokenRejected)
		case 4013, 4014:
			return fmt.Errorf("discord: gateway refused the requested intents (close code %d): enable them for the application in the developer portal", ce.Code)
		}
	}
	var rest *discordgo.RESTError
	if errors.As(err, &rest) && rest.Response != nil && rest.Response.StatusCode == 401 {
		return fmt.Errorf("%w: REST status 401", errTokenRejected)
	}
	return nil
}

// connect keeps the gateway session open until ctx ends: it opens the
// session, calls ready after every successful connection, and after a drop
// or a failed attempt waits the backoff and opens again (discordgo resumes
// the session when it still has its id and sequence). A rejection that
// retrying cannot fix (see fatalGateway) stops it with one clear error.
func (b *Bot) connect(ctx context.Context, ready func(context.Context) error) error {
	s := b.session
	s.ShouldReconnectOnError = false // reconnects are ours, with jitter and a cap
	dropped := make(chan struct{}, 1)
	defer s.AddHandler(func(*discordgo.Session, *discordgo.Disconnect) {
		select {
		case dropped <- struct{}{}:
		default:
		}
	})()
	failures := 0
	for {
		select { // a stale signal from the previous connection
		case <-dropped:
		default:
		}
		err := s.Open()
		if err == nil {
			if rerr := ready(ctx); rerr != nil {
				if ferr := fatalGateway(rerr); ferr != nil {
					_ = s.Close()
					b.gw.set(GatewayFailed, ferr.Error(), failures)
					b.log.Error("discord: gateway failed; not retrying", "state", GatewayFailed, "err", ferr)
					return ferr
				}
				// Serving goes on: commands registered earlier still work.
				b.log.Warn("discord: after connecting", "err", redact(rerr))
			}
		}
		if err == nil {
			if failures > 0 {
				b.log.Info("discord: gateway reconnected", "after_failures", failures)
			}
			failures = 0
			b.gw.set(GatewayConnected, "", 0)
			select {
			case <-ctx.Done():
				b.gw.set(GatewayStopped, "", 0)
				return nil
			case <-dropped:
				b.gw.reconnects.Inc()
				failures = 1
				b.gw.set(GatewayReconnecting, "connection lost", failures)
				b.log.Warn("discord: gateway connection lost; resuming", "state", GatewayReconnecting)
				if !b.sleep(ctx, b.backoff.delay(failures, b.rnd)) {
					b.gw.set(GatewayStopped, "", 0)
					return nil
				}
				continue
			}
		}
		if ferr := fatalGateway(err); ferr != nil {
			b.gw.set(GatewayFailed, ferr.Error(), failures)
			b.log.Error("discord: gateway failed; not retrying", "state", GatewayFailed, "err", ferr)
			return ferr
		}
		if ctx.Err() != nil {
			b.gw.set(GatewayStopped, "", 0)
			return nil
		}
		failures++
		b.gw.reconnects.Inc()
		wait := b.backoff.delay(failures, b.rnd)
		b.gw.set(GatewayReconnecting, redact(err), failures)
		// A failed Open leaves no connection behind (discordgo closes it).
		b.log.Warn("discord: gateway connection failed; retrying", "state", GatewayReconnecting, "attempt", failures, "retry_in", wait, "err", redact(err))
		if !b.sleep(ctx, wait) {
			b.gw.set(GatewayStopped, "", 0)
			return nil
		}
	}
}

// sleep waits d or until ctx ends (false).
func (b *Bot) sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// randFloat is the jitter source (math/rand/v2's, safe for concurrent use).
func randFloat() float64 { return rand.Float64() }
