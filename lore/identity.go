package lore

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
)

// DuplicateKey returns the duplicate identity of an entry: two entries with
// the same key are "the same entry" for Append imports and for repeated
// legacy conversions. The identity is the title, the content and the primary
// and secondary keys, each compared exactly and in order. Activation
// settings (logic, chance, depth, order, placement), enabled flags, channel
// ids, extensions and collection settings are not part of it, so re-importing
// a file whose activation settings were tuned in loregate does not duplicate
// its entries (docs/contract.md#imports: collection settings take
// no part in duplicate identity). The result is a hex SHA-256 digest.
func DuplicateKey(e Entry) string {
	h := sha256.New()
	var n [8]byte
	field := func(s string) {
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	list := func(ss []string) {
		binary.LittleEndian.PutUint64(n[:], uint64(len(ss)))
		h.Write(n[:])
		for _, s := range ss {
			field(s)
		}
	}
	field(e.Title)
	field(e.Content)
	list(e.Keys)
	list(e.SecondaryKeys)
	return hex.EncodeToString(h.Sum(nil))
}
