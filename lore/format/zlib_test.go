package format_test

import (
	"bytes"
	"compress/zlib"
	"testing"

	"github.com/stretchr/testify/require"
)

func zlibCompress(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zlib.NewWriter(&buf)
	_, err := w.Write(b)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return buf.Bytes()
}
