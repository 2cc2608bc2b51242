package lore

// Selection are the selection controls of a turn's server layer
// (docs/authoring.md "Selection controls"): server settings that one
// request's overrides replace. The zero value changes nothing (the
// neutral setting of docs/contract.md#activation).
type Selection struct {
	// MinActivations, when > 0, makes the engine scan one chat message
	// deeper at a time until that many entries are admitted
	// (SillyTavern's min activations), 0..MaxMinActivations.
	MinActivations int `json:"minActivations,omitempty"`
	// MinActivationsDepthMax is the most messages that sweep scans, 0 =
	// the whole chat; 0..MaxMinActivationsDepth.
	MinActivationsDepthMax int `json:"minActivationsDepthMax,omitempty"`
	// MaxEntries, when > 0, caps the admitted keyword and chance entries
	// of a turn (constants, sticky and ignoreBudget entries are not
	// counted), 0..MaxEntriesCap.
	MaxEntries int `json:"maxEntries,omitempty"`
	// IncludeNames scans each chat message as "Name: content" when the
	// message has its speaker's name (SillyTavern's include names).
	IncludeNames bool `json:"includeNames,omitempty"`
}

// Ranges of the selection controls. SillyTavern keeps the newest 1000
// messages for scanning; the API sends at most a few hundred.
const (
	MaxMinActivations      = 1000
	MaxMinActivationsDepth = 1000
	MaxEntriesCap          = 1000
)

// validate adds the out-of-range selection controls to fe.
func (s Selection) validate(fe *FieldErrors) {
	for _, f := range []struct {
		field string
		v, hi int
	}{{"minActivations", s.MinActivations, MaxMinActivations}, {"minActivationsDepthMax", s.MinActivationsDepthMax, MaxMinActivationsDepth},
		{"maxEntries", s.MaxEntries, MaxEntriesCap}} {
		if f.v < 0 || f.v > f.hi {
			fe.Add(outOfRange(f.field, f.v, 0, f.hi))
		}
	}
}
