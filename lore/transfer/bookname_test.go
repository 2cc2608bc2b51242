package transfer_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/transfer"
)

func TestBookName(t *testing.T) {
	tests := []struct{ name, file, want string }{
		{"World", "x.json", "World"},
		{"  ", "My Book.json", "My Book"},
		{"", "", "Imported lorebook"},
		{"line\nbreak\ttab", "", "line break tab"},
		{strings.Repeat("n", 150), "", strings.Repeat("n", lore.MaxCollectionNameLen)},
	}
	for _, tt := range tests {
		got := transfer.BookName(tt.name, tt.file)
		require.Equal(t, tt.want, got)
		require.NoError(t, lore.ValidateCollectionName(got))
	}
	// A megabyte-long name is cut in one pass (this was quadratic).
	got := transfer.BookName(strings.Repeat("名", 1<<20), "")
	require.Equal(t, lore.MaxCollectionNameLen, lore.UTF16Len(got))
}
