package discord

import (
	"strconv"

	"loregate/graph"
	"loregate/graph/model"
)

// uploadLimits are the largest files the panel's import forms accept, in
// bytes, as the deployment configures them (Server.limits; docs/api.md#limits):
// json is the JSON lorebook limit (LOREGATE_MAX_JSON_BYTES, held to
// lore.CeilingJSONBytes as the bot's download of a JSON file is), card the
// PNG/CHARX card limit.
type uploadLimits struct {
	json, card int64
}

// uploadLimitsOf reads the limits of a server answer; a zero field (an
// older server) falls back to the bot's own download ceilings.
func uploadLimitsOf(l model.Limits) uploadLimits {
	u := uploadLimits{json: int64(l.JSONUploadBytes), card: int64(l.CardUploadBytes)}
	if u.json <= 0 {
		u.json = graph.MaxJSONUploadBytes
	}
	u.json = jsonDownloadLimit(u.json)
	if u.card <= 0 || u.card > graph.MaxUploadBytes {
		u.card = graph.MaxUploadBytes
	}
	return u
}

// bookText is the lorebook upload field's description: the formats and
// the limits.
func (u uploadLimits) bookText(t tr) string {
	return t.S("World info, Character Book or a card. JSON up to %s, PNG/CHARX cards up to %s.", limitText(u.json), limitText(u.card))
}

// cardText is the persona card upload field's description.
func (u uploadLimits) cardText(t tr) string {
	return t.S("A PNG or CHARX card up to %s, or a JSON card up to %s. Its book becomes the persona's.", limitText(u.card), limitText(u.json))
}

// limitText writes a limit the way it was configured: whole MiB ("16
// MiB"), whole MB ("2 MB"), else as sizeText.
func limitText(n int64) string {
	switch {
	case n > 0 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n > 0 && n%1_000_000 == 0:
		return strconv.FormatInt(n/1_000_000, 10) + " MB"
	}
	return sizeText(n)
}
