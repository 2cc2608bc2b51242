package discord

import (
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

// TestUploadFormsShowLimits: the lorebook and persona card upload forms
// state the deployment's limits (JSON as configured, cards the upload
// ceiling), not fixed text: 2 MB by default, 1 MiB on a deployment that
// sets it, and in each language.
func TestUploadFormsShowLimits(t *testing.T) {
	tests := []struct {
		name, locale string
		lim          lore.Limits
		book, card   string
	}{
		{"default", "en-US", lore.Limits{}, "JSON up to 2 MB, PNG/CHARX cards up to 16 MiB.", "A PNG or CHARX card up to 16 MiB, or a JSON card up to 2 MB."},
		{"configured", "en-US", lore.Limits{JSONBytes: 1 << 20}, "JSON up to 1 MiB, PNG/CHARX cards up to 16 MiB.", "or a JSON card up to 1 MiB."},
		{"pt-BR", "pt-BR", lore.Limits{JSONBytes: 1_500_000}, "JSON até 1.4 MiB, cards PNG/CHARX até 16 MiB.", "ou card JSON até 1.4 MiB."},
		{"es", "es-ES", lore.Limits{}, "JSON hasta 2 MB, tarjetas PNG/CHARX hasta 16 MiB.", "o JSON hasta 2 MB."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarnessWith(t, false, tc.lim)
			seedScopes(h)
			h.locale = tc.locale
			m := h.click(permManager, h.need(h.open(permManager).panel(), actBookPick), valueImport).modal()
			require.Contains(t, m.Components[0].Description, tc.book)
			card := h.click(permManager, h.need(h.clickID(permManager, route{action: actPersona}.encode()).panel(), actCardImport)).modal()
			require.Contains(t, card.Components[0].Description, tc.card)
		})
	}
}
