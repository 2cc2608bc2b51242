package lore_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

func ptr[T any](v T) *T { return &v }

func requireField(t *testing.T, err error, field string) {
	t.Helper()
	if field == "" {
		require.NoError(t, err)
		return
	}
	var inv *lore.InvalidError
	require.True(t, errors.As(err, &inv), "got %v", err)
	require.Equal(t, field, inv.Field)
}

func TestBookSettingsValidate(t *testing.T) {
	tests := []struct {
		name  string
		unit  lore.BudgetUnit
		set   lore.BookSettings
		field string
	}{
		{"empty", lore.BudgetCharacters, lore.BookSettings{}, ""},
		{"scan depth 0 is real", lore.BudgetCharacters, lore.BookSettings{ScanDepth: ptr(0)}, ""},
		{"scan depth 100", "", lore.BookSettings{ScanDepth: ptr(100)}, ""},
		{"scan depth 101", "", lore.BookSettings{ScanDepth: ptr(101)}, "scanDepth"},
		{"scan depth -1", "", lore.BookSettings{ScanDepth: ptr(-1)}, "scanDepth"},
		{"character budget 1", lore.BudgetCharacters, lore.BookSettings{BudgetLimit: ptr(1)}, ""},
		{"character budget 0", lore.BudgetCharacters, lore.BookSettings{BudgetLimit: ptr(0)}, "budgetLimit"},
		{"character budget at the ceiling", lore.BudgetCharacters, lore.BookSettings{BudgetLimit: ptr(lore.MaxBudgetCharacters)}, ""},
		{"character budget over the ceiling", lore.BudgetCharacters, lore.BookSettings{BudgetLimit: ptr(lore.MaxBudgetCharacters + 1)}, "budgetLimit"},
		{"token budget 99", lore.BudgetTokens, lore.BookSettings{BudgetLimit: ptr(99)}, "budgetLimit"},
		{"token budget 100", lore.BudgetTokens, lore.BookSettings{BudgetLimit: ptr(100)}, ""},
		{"token budget 32000", lore.BudgetTokens, lore.BookSettings{BudgetLimit: ptr(32000)}, ""},
		{"token budget 32001", lore.BudgetTokens, lore.BookSettings{BudgetLimit: ptr(32001)}, "budgetLimit"},
		{"recursion steps 0 = no limit", "", lore.BookSettings{Recursive: ptr(true), MaxRecursionSteps: ptr(0)}, ""},
		{"recursion steps 10", "", lore.BookSettings{MaxRecursionSteps: ptr(10)}, ""},
		{"recursion steps 11", "", lore.BookSettings{MaxRecursionSteps: ptr(11)}, "maxRecursionSteps"},
		{"recursion steps -1", "", lore.BookSettings{MaxRecursionSteps: ptr(-1)}, "maxRecursionSteps"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			requireField(t, tt.set.Validate(tt.unit), tt.field)
		})
	}
}

func TestServerSettingsValidateAndPatch(t *testing.T) {
	d := lore.DefaultServerSettings()
	require.False(t, d.RegexKeys, "new servers start with regex keys off")
	require.Equal(t, lore.DefaultBudgetCharacters, d.Limit())
	require.Equal(t, lore.TokenizerO200k, d.TokenizerOrDefault())

	tests := []struct {
		name  string
		patch lore.SettingsPatch
		want  func(s *lore.ServerSettings)
		field string
	}{
		{"regex on", lore.SettingsPatch{RegexKeys: ptr(true)}, func(s *lore.ServerSettings) { s.RegexKeys = true }, ""},
		{"tokens at the default limit", lore.SettingsPatch{BudgetUnit: ptr(lore.BudgetTokens)},
			func(s *lore.ServerSettings) { s.BudgetUnit = lore.BudgetTokens }, ""},
		{"tokens with a limit", lore.SettingsPatch{BudgetUnit: ptr(lore.BudgetTokens), BudgetLimit: ptr(4000)},
			func(s *lore.ServerSettings) { s.BudgetUnit, s.BudgetLimit = lore.BudgetTokens, 4000 }, ""},
		{"token limit below 100", lore.SettingsPatch{BudgetUnit: ptr(lore.BudgetTokens), BudgetLimit: ptr(50)}, nil, "budgetLimit"},
		{"character limit", lore.SettingsPatch{BudgetLimit: ptr(12000)}, func(s *lore.ServerSettings) { s.BudgetLimit = 12000 }, ""},
		{"negative limit", lore.SettingsPatch{BudgetLimit: ptr(-1)}, nil, "budgetLimit"},
		{"unknown unit", lore.SettingsPatch{BudgetUnit: ptr(lore.BudgetUnit("words"))}, nil, "budgetUnit"},
		{"unknown tokenizer", lore.SettingsPatch{Tokenizer: ptr(lore.TokenizerName("gpt2"))}, nil, "tokenizer"},
		{"cl100k", lore.SettingsPatch{Tokenizer: ptr(lore.TokenizerCL100k)}, func(s *lore.ServerSettings) { s.Tokenizer = lore.TokenizerCL100k }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.patch.Apply(d)
			requireField(t, got.Validate(), tt.field)
			if tt.want != nil {
				want := d
				tt.want(&want)
				require.Equal(t, want, got)
			}
		})
	}

	t.Run("changing the unit resets a limit set in the other unit", func(t *testing.T) {
		s := lore.SettingsPatch{BudgetLimit: ptr(20000)}.Apply(d)
		s = lore.SettingsPatch{BudgetUnit: ptr(lore.BudgetTokens)}.Apply(s)
		require.NoError(t, s.Validate())
		require.Equal(t, lore.DefaultBudgetTokens, s.Limit())
	})
	require.Equal(t, lore.MaxBudgetTokens, lore.BudgetTokens.ClampLimit(50_000))
	require.Equal(t, lore.MinBudgetTokens, lore.BudgetTokens.ClampLimit(3))
}
