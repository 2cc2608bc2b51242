package lore_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
)

func TestExplain(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("lore/postgres: some op: %w", err) }
	tests := []struct {
		err  error
		want string
		ok   bool
	}{
		{wrap(lore.Invalid("title", "is too long")), "invalid title: is too long", true},
		{wrap(&lore.ScopeFullError{Lineage: 3, Limit: 250, Existing: 249, Adding: 2}), "scope full: persona lineage 3 would hold 251 entries (249 kept + 2 added), 1 over the limit of 250 (an operator raises it with LOREGATE_MAX_SCOPE_ENTRIES)", true},
		{wrap(lore.ErrNotFound), "not found in this scope", true},
		{wrap(lore.ErrDuplicateName), "already exists", true},
		{wrap(lore.ErrStaleTarget), "renamed or deleted", true},
		{wrap(lore.ErrUnavailable), "unavailable", true},
		{errors.New("boom"), "", false},
	}
	for _, tt := range tests {
		msg, ok := lore.Explain(tt.err)
		require.Equal(t, tt.ok, ok, tt.err.Error())
		require.Contains(t, msg, tt.want)
		require.NotContains(t, msg, "lore/postgres", "no layer prefixes")
	}
}
