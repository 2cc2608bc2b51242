package format_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore/format"
)

// TestStoreRefusalsAreSkipped checks that an entry the store would refuse is
// skipped with its reason instead of failing the whole import later.
func TestStoreRefusalsAreSkipped(t *testing.T) {
	book := `{"entries": {
		"0": {"uid": 0, "key": ["ok"], "content": "kept", "comment": "good"},
		"1": {"uid": 1, "key": ["bad\u0000key"], "content": "nul key", "comment": "nul"},
		"2": {"uid": 2, "key": ["big"], "content": "huge order", "comment": "order", "order": 1099511627776}
	}}`
	res, err := format.Import("book.json", []byte(book), format.Options{})
	require.NoError(t, err)
	require.Len(t, res.Book.Entries, 1)
	require.Equal(t, "good", res.Book.Entries[0].Title)
	require.Len(t, res.Report.Skipped, 2)
	reasons := map[string]string{}
	for _, s := range res.Report.Skipped {
		reasons[s.Title] = s.Reason
	}
	require.Contains(t, reasons["nul"], "keys[0]")
	require.Contains(t, reasons["order"], "insertionOrder")
}
