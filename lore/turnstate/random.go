package turnstate

import (
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
)

// Random is the chance-roll source of a recorded turn: a PCG seeded from
// the SHA-256 of turnID, returning numbers in [0, 1). A turn's rolls are
// stable (a retry, another replica or `loregate activate --turn-id` draws
// the same), and the same turn ids and input give the same rolls in any
// conversation.
func Random(turnID string) func() float64 {
	h := sha256.Sum256([]byte(turnID))
	return rand.New(rand.NewPCG(binary.LittleEndian.Uint64(h[:8]), binary.LittleEndian.Uint64(h[8:16]))).Float64
}
