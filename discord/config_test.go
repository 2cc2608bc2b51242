package discord_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/discord"
)

// TestConfigWithDefaults: unset and invalid fields get the documented
// defaults; set ones are kept.
func TestConfigWithDefaults(t *testing.T) {
	client := &http.Client{}
	tests := []struct {
		name    string
		in      discord.Config
		timeout time.Duration
		backoff discord.Backoff
		client  *http.Client
	}{
		{"zero", discord.Config{}, discord.DefaultHandlerTimeout, discord.DefaultBackoff, nil},
		{"invalid backoff", discord.Config{HandlerTimeout: -1, Backoff: discord.Backoff{Min: 2 * time.Second, Max: time.Second}},
			discord.DefaultHandlerTimeout, discord.DefaultBackoff, nil},
		{"set", discord.Config{HandlerTimeout: 3 * time.Second, Download: client, Backoff: discord.Backoff{Min: time.Second, Max: 5 * time.Second}},
			3 * time.Second, discord.Backoff{Min: time.Second, Max: 5 * time.Second}, client},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.in.WithDefaults()
			require.Equal(t, tc.timeout, got.HandlerTimeout)
			require.Equal(t, tc.backoff, got.Backoff)
			require.NotNil(t, got.Download)
			if tc.client != nil {
				require.Same(t, tc.client, got.Download)
			} else {
				require.Equal(t, discord.DefaultDownloadTimeout, got.Download.Timeout)
			}
		})
	}
}
