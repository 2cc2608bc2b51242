package discord

import (
	"errors"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRedact(t *testing.T) {
	err := &url.Error{Op: "Post", URL: "https://discord.com/api/v9/interactions/123/SECRET-TOKEN/callback", Err: errors.New("connection reset")}
	got := redact(err)
	require.NotContains(t, got, "SECRET-TOKEN")
	require.Contains(t, got, "https://discord.com/…")
	require.Contains(t, got, "connection reset")
	got = redact(errors.New(`download: Get "https://cdn.discordapp.com/attachments/1/2/book.json?ex=abc&is=def&hm=SIGNATURE": EOF`))
	require.NotContains(t, got, "SIGNATURE")
	require.Equal(t, "", redact(nil))
}

func TestCheckAttachmentURL(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://cdn.discordapp.com/ephemeral-attachments/1/2/a.json?ex=1": true,
		"https://media.discordapp.net/attachments/1/2/a.png":               true,
		"http://cdn.discordapp.com/a.json":                                 false,
		"https://169.254.169.254/latest/meta-data":                         false,
		"https://cdn.discordapp.com.evil.example/a.json":                   false,
		"file:///etc/passwd":                                               false,
	} {
		require.Equal(t, ok, checkAttachmentURL(raw) == nil, raw)
	}
}
