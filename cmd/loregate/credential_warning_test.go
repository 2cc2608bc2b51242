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

// TestIgnoredSettingsWarning: LOREGATE_TURN_FLUSH_INTERVAL or
// LOREGATE_TURN_QUEUE_BYTES set while turns do not commit deferred is
// named in a warning with the commit mode; set with deferred, or unset,
// nothing is said.
func TestIgnoredSettingsWarning(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		warn bool
	}{
		{map[string]string{"LOREGATE_TURN_FLUSH_INTERVAL": "5ms"}, true},
		{map[string]string{"LOREGATE_TURN_FLUSH_INTERVAL": "5ms", "LOREGATE_TURN_COMMIT": "sync"}, true},
		{map[string]string{"LOREGATE_TURN_FLUSH_INTERVAL": "5ms", "LOREGATE_TURN_COMMIT": "deferred"}, false},
		{map[string]string{"LOREGATE_TURN_COMMIT": "async"}, false},
		{map[string]string{"LOREGATE_TURN_QUEUE_BYTES": "1MiB", "LOREGATE_TURN_COMMIT": "deferred"}, false},
	} {
		cfg := loadConfig(func(k string) string { return tc.env[k] }, nil)
		var buf bytes.Buffer
		warnIgnoredSettings(slog.New(slog.NewTextHandler(&buf, nil)), cfg)
		out := buf.String()
		if !tc.warn {
			if out != "" {
				t.Errorf("%v: unexpected warning: %s", tc.env, out)
			}
			continue
		}
		for _, want := range []string{"level=WARN", "LOREGATE_TURN_FLUSH_INTERVAL is ignored", "LOREGATE_TURN_COMMIT=deferred",
			"turn_commit=" + cfg.TurnCommit, "turn_flush_interval=5ms"} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: warning lacks %q: %s", tc.env, want, out)
			}
		}
	}
	for _, v := range []string{"1MiB", "lots"} { // as set, a value that is not a byte size too
		var buf bytes.Buffer
		warnIgnoredSettings(slog.New(slog.NewTextHandler(&buf, nil)), loadConfig(func(k string) string { return map[string]string{"LOREGATE_TURN_QUEUE_BYTES": v}[k] }, nil))
		if want := `level=WARN msg="LOREGATE_TURN_QUEUE_BYTES is ignored: it applies only with LOREGATE_TURN_COMMIT=deferred" turn_commit=async turn_queue_bytes=` + v; !strings.Contains(buf.String(), want) {
			t.Errorf("warning lacks %q: %s", want, buf.String())
		}
	}
}
