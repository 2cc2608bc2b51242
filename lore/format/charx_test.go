package format_test

import (
	"archive/zip"
	"bytes"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/lore/format"
	"loregate/lore/format/charx"
)

func zipWith(t *testing.T, members ...*zip.FileHeader) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, h := range members {
		w, err := zw.CreateHeader(h)
		require.NoError(t, err)
		data := []byte("x")
		if h.Name == "card.json" {
			data = cardJSON("chara_card_v3", "sea")
		}
		_, err = w.Write(data)
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

func TestCHARX(t *testing.T) {
	card := func() *zip.FileHeader { return &zip.FileHeader{Name: "card.json", Method: zip.Deflate} }
	symlink := &zip.FileHeader{Name: "assets/link"}
	symlink.SetMode(fs.ModeSymlink | 0o777)
	encrypted := &zip.FileHeader{Name: "assets/secret", Flags: 0x1}
	plain, err := charx.Build(cardJSON("chara_card_v3", "sea"), map[string][]byte{"module.risum": {0x6f, 0}})
	require.NoError(t, err)
	tests := []struct {
		name string
		file []byte
		opts format.Options
		err  string
	}{
		{"plain with module.risum", plain, format.Options{}, ""},
		{"JPEG prefixed", append([]byte("\xFF\xD8\xFF\xE0jpegdata\xFF\xD9"), plain...), format.Options{}, ""},
		{"stored card", zipWith(t, &zip.FileHeader{Name: "card.json", Method: zip.Store}), format.Options{}, ""},
		{"dot-dot path", zipWith(t, card(), &zip.FileHeader{Name: "../evil"}), format.Options{}, "leaves the archive root"},
		{"absolute path", zipWith(t, card(), &zip.FileHeader{Name: "/etc/x"}), format.Options{}, "absolute path"},
		{"backslash", zipWith(t, card(), &zip.FileHeader{Name: `a\b`}), format.Options{}, "backslash"},
		{"symlink", zipWith(t, card(), symlink), format.Options{}, "symlink"},
		{"encrypted", zipWith(t, card(), encrypted), format.Options{}, "encrypted"},
		{"no card.json", zipWith(t, &zip.FileHeader{Name: "x/card.json"}), format.Options{}, "no card.json"},
		{"too many members", zipWith(t, card(), &zip.FileHeader{Name: "a"}, &zip.FileHeader{Name: "b"}), format.Options{MaxCHARXEntries: 2}, "over the limit of 2"},
		{"card too large", plain, format.Options{MaxCardBytes: 10}, "over the limit of 10 bytes"},
		{"file too large", plain, format.Options{MaxCHARXBytes: 10}, "418 bytes, over the limit of 10 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := format.Import("c.charx", tc.file, tc.opts)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, format.ContainerCHARX, res.Container)
			require.Equal(t, format.KindV3Card, res.Format)
			require.Len(t, res.Book.Entries, 1)
		})
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("card.json")
	require.NoError(t, err)
	_, err = w.Write(bytes.Repeat([]byte{' '}, 1<<20))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	_, err = format.Import("bomb.charx", buf.Bytes(), format.Options{})
	require.ErrorIs(t, err, format.ErrTooLarge)
	require.ErrorContains(t, err, "compression ratio over the limit of 200")
}
