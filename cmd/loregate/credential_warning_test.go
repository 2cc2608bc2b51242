package main

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// TestNoCredentialWarning: serve without any credential warns that every
// request will be refused and says how to set a service key; with one it
// says nothing.
func TestNoCredentialWarning(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  config
		warn bool
	}{
		{"none", config{}, true},
		{"service key", config{ServiceKeys: []string{"dev-key-change-me-0123"}}, false},
		{"jwt secret", config{JWTSecret: strings.Repeat("s", 32)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			warnNoCredential(slog.New(slog.NewTextHandler(&buf, nil)), &tc.cfg)
			out := buf.String()
			if !tc.warn {
				if out != "" {
					t.Fatalf("unexpected warning: %s", out)
				}
				return
			}
			for _, want := range []string{"level=WARN", "every /graphql request will be refused", "LOREGATE_SERVICE_KEYS=", "Authorization: Bearer"} {
				if !strings.Contains(out, want) {
					t.Errorf("warning lacks %q: %s", want, out)
				}
			}
		})
	}
}
