package semantic

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"loregate/lore/decorator"
)

// EmbedText is the text an entry is ranked and embedded by: its content
// with the leading decorator lines removed, trimmed; macros stay as
// written (docs/contract.md#semantic). A split entry is ranked by its
// parts' joined content (lore.JoinSplit) as one candidate.
func EmbedText(content string) string {
	return strings.TrimSpace(decorator.Body(content))
}

// TextHash is the hex SHA-256 of text: the content hash a stored vector is
// kept under, and the key of the per-turn query cache.
func TextHash(text string) string {
	h := sha256.Sum256([]byte(text))
	return hex.EncodeToString(h[:])
}
