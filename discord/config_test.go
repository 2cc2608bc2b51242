package discord_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/discord"
	"loregate/lore"
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
		maxJSON int64
	}{
		{"zero", discord.Config{}, discord.DefaultHandlerTimeout, discord.DefaultBackoff, nil, 2 << 20},
		{"invalid backoff", discord.Config{HandlerTimeout: -1, Backoff: discord.Backoff{Min: 2 * time.Second, Max: time.Second}, MaxJSONBytes: 1 << 40},
			discord.DefaultHandlerTimeout, discord.DefaultBackoff, nil, lore.CeilingJSONBytes},
		{"set", discord.Config{HandlerTimeout: 3 * time.Second, Download: client, Backoff: discord.Backoff{Min: time.Second, Max: 5 * time.Second}, MaxJSONBytes: 5_000_000},
			3 * time.Second, discord.Backoff{Min: time.Second, Max: 5 * time.Second}, client, 5_000_000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.in.WithDefaults()
			require.Equal(t, tc.timeout, got.HandlerTimeout)
			require.Equal(t, tc.backoff, got.Backoff)
			require.Equal(t, tc.maxJSON, got.MaxJSONBytes, "the JSON download cap")
			require.NotNil(t, got.Download)
			if tc.client != nil {
				require.Same(t, tc.client, got.Download)
			} else {
				require.Equal(t, discord.DefaultDownloadTimeout, got.Download.Timeout)
			}
		})
	}
}
