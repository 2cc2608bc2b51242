package discord

import (
	"encoding/json"

	"github.com/bwmarrin/discordgo"
)

// Modal components discordgo v0.29 lacks or serialises in a way Discord
// refuses inside a Label (docs/discord.md): the adapter sends its own.

// Component types discordgo v0.29 has no constant for.
const (
	labelComponent      discordgo.ComponentType = ctLabel
	fileUploadComponent discordgo.ComponentType = ctFileUpload
)

// label is Discord's Label (type 18): a modal field's label and optional
// description (at most 45 and 100 characters), wrapping exactly one input.
type label struct {
	Label       string
	Description string
	Component   discordgo.MessageComponent
}

// Type returns the Label component type.
func (label) Type() discordgo.ComponentType { return labelComponent }

// MarshalJSON writes the Label with its type.
func (l label) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type        discordgo.ComponentType    `json:"type"`
		Label       string                     `json:"label"`
		Description string                     `json:"description,omitempty"`
		Component   discordgo.MessageComponent `json:"component"`
	}{labelComponent, l.Label, l.Description, l.Component})
}

// textInput is a text input inside a Label: unlike discordgo's TextInput it
// carries no label of its own (Discord refuses one there).
type textInput struct {
	CustomID    string
	Style       discordgo.TextInputStyle
	Value       string
	Placeholder string
	Required    bool
	MaxLength   int
}

// Type returns the text input component type.
func (textInput) Type() discordgo.ComponentType { return discordgo.TextInputComponent }

// MarshalJSON writes the text input with its type.
func (ti textInput) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type        discordgo.ComponentType  `json:"type"`
		CustomID    string                   `json:"custom_id"`
		Style       discordgo.TextInputStyle `json:"style"`
		Value       string                   `json:"value,omitempty"`
		Placeholder string                   `json:"placeholder,omitempty"`
		Required    bool                     `json:"required"`
		MaxLength   int                      `json:"max_length"`
	}{discordgo.TextInputComponent, ti.CustomID, ti.Style, ti.Value, ti.Placeholder, ti.Required, ti.MaxLength})
}

// fileUpload is Discord's File Upload (type 19) for modals: the submit
// carries the uploaded attachments' ids in the component's values and the
// attachments in data.resolved.attachments (read by decodeInteraction).
type fileUpload struct {
	CustomID  string
	MinValues int
	MaxValues int
	Required  bool
}

// Type returns the File Upload component type.
func (fileUpload) Type() discordgo.ComponentType { return fileUploadComponent }

// MarshalJSON writes the file upload with its type.
func (f fileUpload) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type      discordgo.ComponentType `json:"type"`
		CustomID  string                  `json:"custom_id"`
		MinValues int                     `json:"min_values"`
		MaxValues int                     `json:"max_values"`
		Required  bool                    `json:"required"`
	}{fileUploadComponent, f.CustomID, f.MinValues, f.MaxValues, f.Required})
}

// modalSelect is a string select inside a Label (one pick).
type modalSelect struct {
	CustomID string
	Options  []discordgo.SelectMenuOption
}

// Type returns the string select component type.
func (modalSelect) Type() discordgo.ComponentType { return discordgo.SelectMenuComponent }

// MarshalJSON writes the select with its type; discordgo's SelectMenu would
// also send disabled:false and an empty placeholder.
func (m modalSelect) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type      discordgo.ComponentType      `json:"type"`
		CustomID  string                       `json:"custom_id"`
		Options   []discordgo.SelectMenuOption `json:"options"`
		MinValues int                          `json:"min_values"`
		MaxValues int                          `json:"max_values"`
		Required  bool                         `json:"required"`
	}{discordgo.SelectMenuComponent, m.CustomID, m.Options, 1, 1, true})
}

// checkbox is Discord's Checkbox (type 23) for modals, inside a Label; the
// submit carries its state as a boolean value (decodeInteraction reads it
// as "true" or "false").
type checkbox struct {
	CustomID string
	Default  bool
}

// Type returns the Checkbox component type.
func (checkbox) Type() discordgo.ComponentType { return ctCheckbox }

// MarshalJSON writes the checkbox with its type.
func (c checkbox) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type     discordgo.ComponentType `json:"type"`
		CustomID string                  `json:"custom_id"`
		Default  bool                    `json:"default"`
	}{ctCheckbox, c.CustomID, c.Default})
}
