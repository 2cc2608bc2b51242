package main

import (
	"io"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/discord"
)

type stubGateway discord.GatewayStatus

func (s stubGateway) GatewayStatus() discord.GatewayStatus { return discord.GatewayStatus(s) }

func TestHealthDetails(t *testing.T) {
	tests := []struct {
		name    string
		gateway discord.GatewayReporter
		want    string
	}{
		{"bot off", nil, "ok\n"},
		{"connected", stubGateway{State: discord.GatewayConnected}, "ok\ndiscord: connected\n"},
		{"reconnecting", stubGateway{State: discord.GatewayReconnecting, Attempt: 2, Reason: "dial tcp: refused"}, "ok\ndiscord: reconnecting (attempt 2): dial tcp: refused\n"},
		{"failed", stubGateway{State: discord.GatewayFailed, Reason: "token rejected"}, "ok\ndiscord: failed: token rejected\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			healthHandler(tc.gateway)(rec, httptest.NewRequest("GET", "/healthz", nil))
			require.Equal(t, 200, rec.Code, "the bot's state never fails the health check")
			body, _ := io.ReadAll(rec.Body)
			require.Equal(t, tc.want, string(body))
		})
	}
}
