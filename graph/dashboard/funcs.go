package dashboard

import (
	"encoding/json"
	"fmt"
	"html/template"
	"strconv"
	"strings"
	"time"

	"loregate/lore"
)

// fieldArgs is what the editor's field templates get.
type fieldArgs struct {
	Root        view
	Name, Label string
	Value       any
	Err         string
}

// intRange is the range the API accepts for a numeric entry field.
type intRange struct{ Min, Max int }

// numRange gives the editor's live check the range lore.Validate applies
// to entry field name (the API refuses values outside it with INVALID_INPUT
// naming the field); nil for fields without one (insertion order and
// priority take any 32-bit value).
func numRange(name string) *intRange {
	switch name {
	case "scanDepth":
		return &intRange{lore.MinScanDepth, lore.MaxScanDepth}
	case "probability":
		return &intRange{0, 100}
	case "groupWeight":
		return &intRange{0, lore.MaxGroupWeight}
	case "delayUntilRecursion":
		return &intRange{0, lore.MaxDelayUntilRecursion}
	case "sticky", "cooldown", "delay":
		return &intRange{0, lore.MaxTimedEffect}
	}
	return nil
}

// funcs are the templates' helpers. Names that translate take the
// request's tr as their first argument.
var funcs = template.FuncMap{
	"join": strings.Join,
	"list": func(s ...string) []string { return s },
	"dict": func() map[string]string { return map[string]string{} },
	"args": func(root view, name, label string, value any, rest ...string) fieldArgs {
		a := fieldArgs{Root: root, Name: name, Label: label, Value: value}
		if len(rest) > 0 {
			a.Err = rest[0]
		}
		return a
	},
	"numRange": numRange,
	"intp": func(p *int) string {
		if p == nil {
			return ""
		}
		return strconv.Itoa(*p)
	},
	"derefInt": func(p *int) int {
		if p == nil {
			return 0
		}
		return *p
	},
	"deref": func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	},
	"yesno": func(t tr, b bool) string {
		if b {
			return t.S("yes")
		}
		return t.S("no")
	},
	// tri is a select of inherit / yes / no for an optional boolean.
	"tri": func(t tr, name, id string, v *bool) template.HTML {
		opt := func(val, label string, sel bool) string {
			s := `<option value="` + val + `"`
			if sel {
				s += " selected"
			}
			return s + ">" + template.HTMLEscapeString(label) + "</option>"
		}
		return template.HTML(`<select id="` + template.HTMLEscapeString(id) + `" name="` + template.HTMLEscapeString(name) + `">` +
			opt("", t.S("inherit"), v == nil) + opt("true", t.S("yes"), v != nil && *v) + opt("false", t.S("no"), v != nil && !*v) + `</select>`)
	},
	"shortTime": func(v any) string {
		tm, ok := timeOf(v)
		if !ok {
			return ""
		}
		return tm.UTC().Format("2006-01-02 15:04 UTC")
	},
	// stamp is a time as the API writes it (RFC 3339 with nanoseconds):
	// datetime attributes, and the version a form sends back as
	// expectedUpdatedAt. A zero or nil time is "".
	"stamp": func(v any) string {
		tm, ok := timeOf(v)
		if !ok {
			return ""
		}
		return tm.Format(time.RFC3339Nano)
	},
	// percent is used of limit in percent (0-100).
	"percent": func(used, limit int) int {
		if limit <= 0 {
			return 0
		}
		return min(100, used*100/limit)
	},
	"jsonText": func(v any) string {
		b, _ := json.Marshal(v)
		return lore.ClipRunes(string(b), 2000)
	},
	"formatName": func(t tr, value any) string {
		f := fmt.Sprint(value)
		switch f {
		case "ST_WORLD_INFO":
			return t.S("SillyTavern world info (JSON)")
		case "CCV3_LOREBOOK":
			return t.S("Character Card V3 lorebook (JSON)")
		case "CARD_JSON":
			return t.S("Character card (JSON)")
		case "CARD_PNG":
			return t.S("Character card (PNG)")
		case "CARD_CHARX":
			return t.S("Character card (CHARX)")
		case "WORLDBOOK":
			return t.S("Tavern Helper worldbook (JSON)")
		}
		return f
	},
	"logicName": func(t tr, value any) string {
		l := fmt.Sprint(value)
		switch l {
		case "AND_ANY":
			return t.S("AND ANY: at least one secondary key")
		case "AND_ALL":
			return t.S("AND ALL: every secondary key")
		case "NOT_ANY":
			return t.S("NOT ANY: no secondary key")
		case "NOT_ALL":
			return t.S("NOT ALL: not every secondary key")
		}
		return l
	},
	"kindName": func(t tr, value any) string {
		k := fmt.Sprint(value)
		switch k {
		case "FILE":
			return t.S("File import")
		case "BACKUP":
			return t.S("Backup import")
		case "MIGRATION":
			return t.S("Memory migration")
		case "COLLECTION_DELETE":
			return t.S("Collection deleted")
		case "SCOPE_WIPE":
			return t.S("Lore wiped")
		case "UNDO":
			return t.S("Undo")
		}
		return k
	},
	"groupName": func(t tr, value any) string {
		g := fmt.Sprint(value)
		if g == "ALWAYS_ON" {
			return t.S("Always On")
		}
		return t.S("activated by a key")
	},
	"placementName": func(t tr, value any) string {
		p := fmt.Sprint(value)
		if p == "BEFORE" {
			return t.S("Before the persona")
		}
		return t.S("After the persona")
	},
	"verdictName": func(t tr, value any) string {
		v := fmt.Sprint(value)
		if s, ok := verdicts[v]; ok {
			return t.S(s)
		}
		return v
	},
}

// timeOf reads a time.Time or a *time.Time; false for nil and zero.
func timeOf(v any) (time.Time, bool) {
	var tm time.Time
	switch x := v.(type) {
	case time.Time:
		tm = x
	case *time.Time:
		if x != nil {
			tm = *x
		}
	}
	return tm, !tm.IsZero()
}

// verdicts names the trace's verdicts (TraceItem.verdict).
var verdicts = map[string]string{
	"admitted":                "fired",
	"disabled":                "disabled",
	"gated_server":            "other server",
	"gated_lineage":           "other persona",
	"gated_collection":        "collection disabled",
	"gated_channel":           "not in this channel",
	"no_key_match":            "no key matched",
	"secondary_logic_failed":  "secondary keys failed",
	"chance_failed":           "chance roll failed",
	"over_budget":             "over the budget",
	"group_lost":              "lost its group",
	"excluded_from_recursion": "excluded from recursion",
	"delayed_until_recursion": "waits for recursion",
	"decorator_blocked":       "blocked by a decorator",
	"cooldown":                "cooling down",
	"delayed":                 "delayed",
}

// flashText is the notice of a ?done= redirect.
func flashText(t tr, done string) string {
	switch done {
	case "saved":
		return t.S("Saved.")
	case "deleted":
		return t.S("Deleted.")
	case "settings":
		return t.S("Settings saved.")
	case "undone":
		return t.S("Undone.")
	case "signedout":
		return t.S("You are signed out.")
	case "expired":
		return t.S("Your session has ended. Sign in again.")
	}
	return ""
}
