package lore

import "slices"

// CharacterContext is the character a persona's imported card describes
// (importPersonaCard keeps it on the persona; docs/authoring.md "Context
// sources"): a request with that persona's lineage and no
// context.character gets it, so a bot need not resend the card's texts
// every turn. Its fields are those of activation.Character, in the same
// order.
type CharacterContext struct {
	// Name is the card's character name (the character filter reads it).
	Name string `json:"name,omitempty"`
	// Tags are the card's tags (the character filter reads them).
	Tags []string `json:"tags,omitempty"`
	// The card's texts, read by entries with match flags: description,
	// personality, scenario, creator_notes and extensions.depth_prompt.prompt.
	Description  string `json:"description,omitempty"`
	Personality  string `json:"personality,omitempty"`
	Scenario     string `json:"scenario,omitempty"`
	CreatorNotes string `json:"creatorNotes,omitempty"`
	DepthPrompt  string `json:"depthPrompt,omitempty"`
}

// IsZero reports whether c holds nothing.
func (c *CharacterContext) IsZero() bool {
	return c == nil || (c.Name == "" && len(c.Tags) == 0 && c.Description == "" && c.Personality == "" &&
		c.Scenario == "" && c.CreatorNotes == "" && c.DepthPrompt == "")
}

// Equal reports whether c and o describe the same character (a nil or
// zero one equals a nil or zero one).
func (c *CharacterContext) Equal(o *CharacterContext) bool {
	if c.IsZero() || o.IsZero() {
		return c.IsZero() == o.IsZero()
	}
	return c.Name == o.Name && slices.Equal(c.Tags, o.Tags) && c.Description == o.Description && c.Personality == o.Personality &&
		c.Scenario == o.Scenario && c.CreatorNotes == o.CreatorNotes && c.DepthPrompt == o.DepthPrompt
}
