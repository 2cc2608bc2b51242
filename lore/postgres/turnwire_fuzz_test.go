package postgres

import (
	"encoding/binary"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/stretchr/testify/require"
)

// FuzzWireDecoders: the commit's binary-format readers (wireInt8,
// wireXID, wireInt8s) never panic on any bytes, and whatever they accept
// pgx's own binary decoders read as the same values: an int8[] they read
// is the []int64 pgtype decodes, and a bigint or an xid is pgtype's.
func FuzzWireDecoders(f *testing.F) {
	m := pgtype.NewMap()
	for _, ids := range [][]int64{{1}, {0, -1, 1 << 62}, {}} {
		v, err := m.Encode(pgtype.Int8ArrayOID, pgtype.BinaryFormatCode, ids, nil)
		require.NoError(f, err)
		f.Add(v)
	}
	f.Add(binary.BigEndian.AppendUint64(nil, 42))
	f.Add(binary.BigEndian.AppendUint32(nil, 7))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, v []byte) {
		if ids, err := wireInt8s(v); err == nil && len(ids) > 0 {
			var want []int64
			require.NoError(t, m.Scan(pgtype.Int8ArrayOID, pgtype.BinaryFormatCode, v, &want))
			require.Equal(t, want, ids)
		}
		if n, err := wireInt8(v); err == nil && n != nil {
			var want int64
			require.NoError(t, m.Scan(pgtype.Int8OID, pgtype.BinaryFormatCode, v, &want))
			require.Equal(t, want, *n)
		}
		if n, err := wireXID(v); err == nil && n != nil {
			var want pgtype.Uint32
			require.NoError(t, m.Scan(pgtype.XIDOID, pgtype.BinaryFormatCode, v, &want))
			require.Equal(t, want.Uint32, *n)
		}
	})
}
