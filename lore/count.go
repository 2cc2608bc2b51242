package lore

import "strconv"

// Count returns n with the noun that fits it, for messages people read:
// Count(1, "entry", "entries") is "1 entry", Count(2, ...) "2 entries".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
