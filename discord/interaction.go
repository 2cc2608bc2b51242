package discord

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/bwmarrin/discordgo"
)

// modalSubmit is a decoded modal submit. discordgo v0.29 cannot decode
// modals holding Label (18) or File Upload (19) components, so the adapter
// reads every modal submit itself, legacy action rows included.
type modalSubmit struct {
	CustomID string
	// Fields are text inputs by custom id (trimmed).
	Fields map[string]string
	// Values are select picks and uploaded attachment ids by custom id.
	Values map[string][]string
	// Attachments are data.resolved.attachments by id: the files of File
	// Upload components.
	Attachments map[string]*discordgo.MessageAttachment
}

// wireModalData is the data of a modal submit interaction.
type wireModalData struct {
	CustomID   string            `json:"custom_id"`
	Components []json.RawMessage `json:"components"`
	Resolved   struct {
		Attachments map[string]*discordgo.MessageAttachment `json:"attachments"`
	} `json:"resolved"`
}

// wireSubmitted is any submitted component: an action row or label
// (components / component) or a leaf with custom_id and value(s).
type wireSubmitted struct {
	Type       int               `json:"type"`
	CustomID   string            `json:"custom_id"`
	Value      json.RawMessage   `json:"value"`
	Values     []string          `json:"values"`
	Components []json.RawMessage `json:"components"`
	Component  json.RawMessage   `json:"component"`
}

// maxModalDepth bounds the nesting a submit may have (label > input).
const maxModalDepth = 4

func (m *modalSubmit) walk(raw json.RawMessage, depth int) error {
	if depth > maxModalDepth {
		return fmt.Errorf("modal components nested deeper than %d", maxModalDepth)
	}
	var c wireSubmitted
	if err := json.Unmarshal(raw, &c); err != nil {
		return fmt.Errorf("modal component: %w", err)
	}
	if c.CustomID != "" {
		var s string
		var flag bool
		switch {
		case c.Values != nil:
			m.Values[c.CustomID] = c.Values
		case json.Unmarshal(c.Value, &s) == nil:
			m.Fields[c.CustomID] = strings.TrimSpace(s)
		case json.Unmarshal(c.Value, &flag) == nil: // checkbox
			m.Values[c.CustomID] = []string{fmt.Sprint(flag)}
		}
	}
	for _, cc := range c.Components {
		if err := m.walk(cc, depth+1); err != nil {
			return err
		}
	}
	if len(c.Component) > 0 {
		return m.walk(c.Component, depth+1)
	}
	return nil
}

// decodeInteraction decodes an INTERACTION_CREATE payload. Modal submits
// get their data decoded by decodeModal and a data-less copy decoded by
// discordgo (so Interaction's other fields use its decoder); everything else
// is decoded by discordgo.
func decodeInteraction(raw []byte) (*discordgo.InteractionCreate, *modalSubmit, error) {
	var head struct {
		Type discordgo.InteractionType `json:"type"`
		Data json.RawMessage           `json:"data"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, nil, fmt.Errorf("decode interaction: %w", err)
	}
	var ms *modalSubmit
	if head.Type == discordgo.InteractionModalSubmit {
		var d wireModalData
		if err := json.Unmarshal(head.Data, &d); err != nil {
			return nil, nil, fmt.Errorf("decode modal submit: %w", err)
		}
		ms = &modalSubmit{CustomID: d.CustomID, Fields: map[string]string{}, Values: map[string][]string{}, Attachments: d.Resolved.Attachments}
		for _, c := range d.Components {
			if err := ms.walk(c, 1); err != nil {
				return nil, nil, err
			}
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, nil, fmt.Errorf("decode interaction: %w", err)
		}
		stub, _ := json.Marshal(map[string]any{"custom_id": d.CustomID, "components": []any{}})
		obj["data"] = stub
		raw, _ = json.Marshal(obj)
	}
	var ic discordgo.InteractionCreate
	if err := json.Unmarshal(raw, &ic); err != nil {
		return nil, nil, fmt.Errorf("decode interaction: %w", err)
	}
	return &ic, ms, nil
}

// HandleRaw handles one INTERACTION_CREATE gateway payload synchronously
// (Run calls it for every interaction). Payloads that cannot be decoded are
// logged by size and type only.
func (b *Bot) HandleRaw(ctx context.Context, raw []byte) {
	ic, ms, err := decodeInteraction(raw)
	if err != nil {
		b.log.WarnContext(ctx, "discord: undecodable interaction", "bytes", len(raw), "err", err)
		return
	}
	b.handle(ctx, ic, ms)
}
