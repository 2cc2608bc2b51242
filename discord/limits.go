package discord

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// The adapter checks every payload it sends against Discord's component,
// message and modal limits (docs/discord.md) before sending it: a payload
// Discord would reject is never sent, and the violation is logged. The
// checker reads the payload's JSON as it goes on the wire, so discordgo's
// and the adapter's own component types are checked alike.

// Discord's limits.
const (
	maxComponentsV2   = 40   // components in a Components V2 message, nested ones included
	maxTextDisplayLen = 4000 // characters over all text displays of a message
	maxTopRows        = 5    // top-level rows of a legacy message
	maxModalTop       = 5    // top-level components of a modal
	maxLabelText      = 45   // label of a Label component, modal title
	maxLabelDesc      = 100  // description of a Label component
	maxFiles          = 10   // files of one File Upload component
	flagComponentsV2  = 1 << 15
)

// Component types on the wire.
const (
	ctActionRow   = 1
	ctButton      = 2
	ctStringSel   = 3
	ctTextInput   = 4
	ctUserSel     = 5
	ctRoleSel     = 6
	ctMentionSel  = 7
	ctChannelSel  = 8
	ctSection     = 9
	ctTextDisplay = 10
	ctSeparator   = 14
	ctContainer   = 17
	ctLabel       = 18
	ctFileUpload  = 19
	ctCheckbox    = 23
)

// wirePayload is the JSON of a callback ({type, data}) or of a webhook
// edit (the data fields at top level).
type wirePayload struct {
	Type int       `json:"type"`
	Data *wireData `json:"data"`
	wireData
}

type wireData struct {
	Content    *string         `json:"content"`
	Embeds     []any           `json:"embeds"`
	Flags      int             `json:"flags"`
	CustomID   string          `json:"custom_id"`
	Title      string          `json:"title"`
	Components []wireComponent `json:"components"`
}

type wireComponent struct {
	Type          int                   `json:"type"`
	CustomID      string                `json:"custom_id"`
	Label         *string               `json:"label"`
	Description   string                `json:"description"`
	Style         int                   `json:"style"`
	Disabled      bool                  `json:"disabled"`
	Placeholder   string                `json:"placeholder"`
	MinValues     *int                  `json:"min_values"`
	MaxValues     int                   `json:"max_values"`
	Options       []wireOption          `json:"options"`
	DefaultValues []struct{ ID string } `json:"default_values"`
	Value         string                `json:"value"`
	MaxLength     int                   `json:"max_length"`
	Required      *bool                 `json:"required"`
	Content       string                `json:"content"`
	Components    []wireComponent       `json:"components"`
	Component     *wireComponent        `json:"component"`
}

func (c wireComponent) label() string {
	if c.Label == nil {
		return ""
	}
	return *c.Label
}

type wireOption struct {
	Label       string `json:"label"`
	Value       string `json:"value"`
	Description string `json:"description"`
	Default     bool   `json:"default"`
}

// problems collects limit violations.
type problems []string

func (p *problems) Errorf(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

// payloadViolations decodes a callback (wantCallback) or edit body and lists
// how it breaks Discord's limits.
func payloadViolations(body []byte, callback bool) []string {
	var p wirePayload
	if err := json.Unmarshal(body, &p); err != nil {
		return []string{"payload is not a JSON object: " + err.Error()}
	}
	if callback {
		return violations(p.Type, p.Data)
	}
	return violations(7, &p.wireData)
}

// violations lists how a callback (typ 4, 7, 9...) or edit payload (typ 7)
// breaks Discord's limits.
func violations(typ int, d *wireData) []string {
	var t problems
	if d == nil {
		if typ == 4 || typ == 7 || typ == 9 {
			t.Errorf("callback type %d without data", typ)
		}
		return t
	}
	ids := map[string]bool{}
	checkID := func(id string) {
		if id == "" || len(id) > MaxCustomIDLen {
			t.Errorf("custom_id %q: length %d", id, len(id))
		}
		if ids[id] {
			t.Errorf("duplicate custom_id %q", id)
		}
		ids[id] = true
	}
	if typ == 9 {
		modalViolations(&t, d, checkID)
		return t
	}
	if d.Flags&flagComponentsV2 != 0 {
		if d.Content != nil && *d.Content != "" || len(d.Embeds) > 0 {
			t.Errorf("a Components V2 message carries content or embeds")
		}
		n, text := 0, 0
		for _, c := range d.Components {
			v2Violations(&t, c, true, &n, &text, checkID)
		}
		if n > maxComponentsV2 {
			t.Errorf("%d components, at most %d", n, maxComponentsV2)
		}
		if text > maxTextDisplayLen {
			t.Errorf("text displays hold %d characters, at most %d", text, maxTextDisplayLen)
		}
		return t
	}
	if d.Content != nil && utf8.RuneCountInString(*d.Content) > maxContentLen {
		t.Errorf("content of %d characters", utf8.RuneCountInString(*d.Content))
	}
	if len(d.Components) > maxTopRows {
		t.Errorf("%d action rows", len(d.Components))
	}
	for _, row := range d.Components {
		if row.Type != ctActionRow {
			t.Errorf("top-level component of type %d in a legacy message", row.Type)
			continue
		}
		rowViolations(&t, row, checkID)
	}
	return t
}

// v2Violations checks one component of a Components V2 message, counting
// components and text.
func v2Violations(t *problems, c wireComponent, top bool, n, text *int, checkID func(string)) {
	*n++
	switch c.Type {
	case ctContainer:
		if !top {
			t.Errorf("container nested in a container")
		}
		for _, cc := range c.Components {
			if cc.Type == ctContainer {
				t.Errorf("container nested in a container")
				continue
			}
			v2Violations(t, cc, false, n, text, checkID)
		}
	case ctTextDisplay:
		*text += utf8.RuneCountInString(c.Content)
		if c.Content == "" {
			t.Errorf("empty text display")
		}
	case ctSeparator:
	case ctActionRow:
		*n += len(c.Components)
		rowViolations(t, c, checkID)
	default:
		t.Errorf("component type %d in a Components V2 message", c.Type)
	}
}

// rowViolations checks an action row of a message: up to 5 buttons or one
// select.
func rowViolations(t *problems, row wireComponent, checkID func(string)) {
	buttons, selects := 0, 0
	for _, c := range row.Components {
		switch c.Type {
		case ctButton:
			buttons++
			checkID(c.CustomID)
			if n := utf8.RuneCountInString(c.label()); n > maxButtonLen {
				t.Errorf("button label of %d characters", n)
			}
		case ctStringSel, ctUserSel, ctRoleSel, ctMentionSel, ctChannelSel:
			selects++
			checkID(c.CustomID)
			selectViolations(t, c)
		default:
			t.Errorf("component type %d in an action row", c.Type)
		}
	}
	if selects > 1 || (selects == 1 && buttons > 0) || buttons > 5 || buttons+selects == 0 {
		t.Errorf("action row with %d buttons and %d selects", buttons, selects)
	}
}

func selectViolations(t *problems, c wireComponent) {
	if utf8.RuneCountInString(c.Placeholder) > 150 {
		t.Errorf("placeholder of %d characters", utf8.RuneCountInString(c.Placeholder))
	}
	if c.MaxValues > maxSelectValues || (c.MinValues != nil && (*c.MinValues < 0 || *c.MinValues > maxSelectValues)) {
		t.Errorf("select %q: min/max values out of range", c.CustomID)
	}
	if c.Type != ctStringSel {
		return
	}
	if n := len(c.Options); n < 1 || n > 25 {
		t.Errorf("select %q with %d options", c.CustomID, n)
	}
	values := map[string]bool{}
	for _, o := range c.Options {
		if values[o.Value] {
			t.Errorf("duplicate option value %q", o.Value)
		}
		values[o.Value] = true
		for _, s := range []string{o.Label, o.Value, o.Description} {
			if utf8.RuneCountInString(s) > maxLabelLen {
				t.Errorf("option text of %d characters", utf8.RuneCountInString(s))
			}
		}
		if o.Label == "" || o.Value == "" {
			t.Errorf("option without label or value")
		}
	}
}

// modalViolations checks a modal: title, 1-5 top-level components, each a
// Label wrapping one input (text input without its own label, string or
// channel select, file upload, checkbox), a text display, or a legacy row
// holding one labelled text input. Nothing in a modal may be disabled.
func modalViolations(t *problems, d *wireData, checkID func(string)) {
	checkID(d.CustomID)
	if n := utf8.RuneCountInString(d.Title); n < 1 || n > maxLabelText {
		t.Errorf("modal title %q: %d characters", d.Title, n)
	}
	if n := len(d.Components); n < 1 || n > maxModalTop {
		t.Errorf("modal with %d top-level components", n)
	}
	input := func(c wireComponent, labelled bool) {
		if c.Disabled {
			t.Errorf("disabled component in a modal")
		}
		checkID(c.CustomID)
		switch c.Type {
		case ctTextInput:
			if labelled && c.Label != nil {
				t.Errorf("text input %q inside a Label carries its own label", c.CustomID)
			}
			if !labelled {
				if n := utf8.RuneCountInString(c.label()); n < 1 || n > maxLabelText {
					t.Errorf("text input label %q: %d characters", c.label(), n)
				}
			}
			if c.MaxLength < 1 || c.MaxLength > maxInputLen || utf8.RuneCountInString(c.Value) > c.MaxLength {
				t.Errorf("text input %q: max_length %d, value %d characters", c.CustomID, c.MaxLength, utf8.RuneCountInString(c.Value))
			}
		case ctStringSel, ctChannelSel:
			if !labelled {
				t.Errorf("select outside a Label in a modal")
			}
			selectViolations(t, c)
		case ctFileUpload:
			if !labelled {
				t.Errorf("file upload outside a Label")
			}
			if c.MaxValues < 0 || c.MaxValues > maxFiles || (c.MinValues != nil && (*c.MinValues < 0 || *c.MinValues > maxFiles)) {
				t.Errorf("file upload %q: min/max values out of range", c.CustomID)
			}
		case ctCheckbox:
			if !labelled {
				t.Errorf("checkbox outside a Label")
			}
		default:
			t.Errorf("component type %d as a modal input", c.Type)
		}
	}
	for _, c := range d.Components {
		switch c.Type {
		case ctLabel:
			if n := utf8.RuneCountInString(c.label()); n < 1 || n > maxLabelText {
				t.Errorf("label %q: %d characters", c.label(), n)
			}
			if utf8.RuneCountInString(c.Description) > maxLabelDesc {
				t.Errorf("label description of %d characters", utf8.RuneCountInString(c.Description))
			}
			if c.Component == nil {
				t.Errorf("label %q wraps nothing", c.label())
				continue
			}
			input(*c.Component, true)
		case ctTextDisplay:
			if c.Content == "" {
				t.Errorf("empty text display in a modal")
			}
		case ctActionRow:
			if len(c.Components) != 1 || c.Components[0].Type != ctTextInput {
				t.Errorf("modal row must hold exactly one text input")
				continue
			}
			input(c.Components[0], false)
		default:
			t.Errorf("top-level component of type %d in a modal", c.Type)
		}
	}
}
