package dashboard

import (
	"encoding/json"
	"fmt"
	"html/template"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"loregate/graph/model"
	"loregate/lore"
)

// fieldArgs is what the editor's field templates get.
type fieldArgs struct {
	Root        view
	Name, Label string
	Value       any
	Err         string
}

// pickerArgs is what the channel picker template gets.
type pickerArgs struct {
	Root               view
	Name, ID, Label    string
	Channels           *channelList
	Values             []string
	Multiple, Required bool
	Err                string
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

// funcs are the templates' helpers, the labels of valueNames included.
// Names that translate take the request's tr as their first argument.
var funcs = withValueNames(template.FuncMap{
	"codeSpans":  codeSpans,
	"join":       strings.Join,
	"fieldName":  fieldName,
	"fieldNames": fieldNames,
	"fieldValue": fieldValue,
	"writerName": writerName,
	"list":       func(s ...string) []string { return s },
	"dict":       func() map[string]string { return map[string]string{} },
	"args": func(root view, name, label string, value any, rest ...string) fieldArgs {
		a := fieldArgs{Root: root, Name: name, Label: label, Value: value}
		if len(rest) > 0 {
			a.Err = rest[0]
		}
		return a
	},
	"numRange": numRange,
	// formOr, formCheck and formTri are a refused form's value as sent
	// (f is its form; nil when the page shows the stored values).
	"formOr": func(f url.Values, name string, stored any) string {
		if _, ok := f[name]; ok {
			return f.Get(name)
		}
		return fmt.Sprint(stored)
	},
	"formCheck": func(f url.Values, name string, stored bool) bool {
		if f != nil {
			return f.Get(name) == "on"
		}
		return stored
	},
	"formTri": func(f url.Values, name string, stored *bool) *bool {
		if f != nil {
			return triState(f.Get(name))
		}
		return stored
	},
	// picker is a channel picker's arguments (partials.html "picker"):
	// one channel, or several (checkboxes) when multiple is set.
	"picker": func(root view, name, id, label string, ch *channelList, values []string, multiple, required bool, rest ...string) pickerArgs {
		if ch == nil {
			ch = &channelList{}
		}
		a := pickerArgs{Root: root, Name: name, ID: id, Label: label, Channels: ch, Values: values, Multiple: multiple, Required: required}
		if len(rest) > 0 {
			a.Err = rest[0]
		}
		return a
	},
	"one": func(s string) []string {
		if s == "" {
			return nil
		}
		return []string{s}
	},
	"strp": func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	},
	"hasGen": func(ts []model.GenerationType, v string) bool {
		return slices.Contains(ts, model.GenerationType(v))
	},
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
	"derefInt64": func(p *int64) int64 {
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
	// undoOf names an undo record's source ("undo of 9") in words.
	"undoOf": func(t tr, source string) string {
		if id, ok := strings.CutPrefix(source, "undo of "); ok {
			return t.S("undoes record %s", id)
		}
		return source
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
})

// valueNames are the labels (catalog keys) of the schema values the pages
// name, by template function: formatName (ExportFormat), logicName
// (SelectiveLogic), kindName (ImportKind), verdictName (TraceItem.verdict),
// embeddingStateName (Entry.embeddingState).
// A value without a label shows as words (humanize).
var valueNames = map[string]map[string]string{
	"formatName": {
		"ST_WORLD_INFO": "SillyTavern world info (JSON)",
		"CCV3_LOREBOOK": "Character Card V3 lorebook (JSON)",
		"CARD_JSON":     "Character card (JSON)",
		"CARD_PNG":      "Character card (PNG)",
		"CARD_CHARX":    "Character card (CHARX)",
		"WORLDBOOK":     "Tavern Helper worldbook (JSON)",
	},
	"logicName": {
		"AND_ANY": "AND ANY: at least one secondary key",
		"AND_ALL": "AND ALL: every secondary key",
		"NOT_ANY": "NOT ANY: no secondary key",
		"NOT_ALL": "NOT ALL: not every secondary key",
	},
	"kindName": {
		"FILE":              "File import",
		"BACKUP":            "Backup import",
		"MIGRATION":         "Memory migration",
		"COLLECTION_DELETE": "Collection deleted",
		"SCOPE_WIPE":        "Lore wiped",
		"UNDO":              "Undo",
		"BULK":              "Bulk edit",
	},
	"revisionKindName": {
		"CREATE": "Created", "UPDATE": "Edited", "DELETE": "Deleted", "IMPORT": "Imported", "UNDO": "Undo",
		"MOVE": "Moved or copied", "RESTORE": "Restored", "PROPOSAL": "Proposal approved", "BULK": "Bulk edit",
	},
	"proposalKindName":  {"CREATE": "New entry", "UPDATE": "Change", "DELETE": "Deletion"},
	"proposalStateName": {"OPEN": "Open", "APPROVED": "Approved", "REJECTED": "Rejected", "WITHDRAWN": "Withdrawn"},
	"verdictName":       verdicts,
	"embeddingStateName": {
		"PENDING": "Embedding pending", "READY": "Embedded", "FAILED": "Embedding failed",
	},
	"jobStateName": {
		"PENDING":   "waiting",
		"SCHEDULED": "scheduled",
		"AVAILABLE": "queued",
		"RUNNING":   "running",
		"RETRYABLE": "failed, will retry",
		"COMPLETED": "finished",
		"CANCELLED": "cancelled",
		"DISCARDED": "failed",
	},
	"jobKindName": {
		"lorebook_import":         "Lorebook import",
		"workspace_backup_export": "Workspace backup export",
		"workspace_backup_import": "Workspace backup import",
	},
	"modeName": { // ImportRecord.mode (history.html)
		"append":  "added",
		"replace": "replaced the book",
	},
	"positionName": {
		"BEFORE_CHAR": "Before the character", "AFTER_CHAR": "After the character",
		"AN_TOP": "Above the author's note", "AN_BOTTOM": "Below the author's note",
		"AT_DEPTH": "In the chat, at a depth", "EM_TOP": "Before the example messages",
		"EM_BOTTOM": "After the example messages", "OUTLET": "In a named outlet",
	},
	"genName": {
		"NORMAL": "Normal", "CONTINUE": "Continue", "IMPERSONATE": "Impersonate",
		"SWIPE": "Swipe", "REGENERATE": "Regenerate", "QUIET": "Quiet",
	},
	"roleName": {
		"SYSTEM": "System", "USER": "User", "ASSISTANT": "Assistant",
		"system": "System", "user": "User", "assistant": "Assistant",
	},
	"tagName": {
		"KNOWLEDGE_LOREBOOK_BEFORE":   "Lorebook, before the persona",
		"KNOWLEDGE_LOREBOOK_AFTER":    "Lorebook, after the persona",
		"KNOWLEDGE_LOREBOOK_AT_DEPTH": "Lorebook, in the chat at a depth",
		"AUTHORS_NOTE":                "Author's note",
		"DIALOGUE_EXAMPLES":           "Example messages",
	},
	"unitName": {
		"utf16": "characters", "tokens": "tokens", "CHARACTERS": "characters", "TOKENS": "tokens",
	},
}

// enumSpelling is a schema value's spelling (KNOWLEDGE_LOREBOOK_AFTER):
// pages never show one outside code (TestNoEnumSpellings).
var enumSpelling = regexp.MustCompile(`[A-Z]{2,}_[A-Z_]+`)

// codeSpans escapes s and shows each spelling from code in it (an
// environment variable such as LOREGATE_JWT_SECRET, a placeholder such as
// USER_ID) as <code>, so that no page shows one as prose.
func codeSpans(s string) template.HTML {
	return template.HTML(enumSpelling.ReplaceAllString(template.HTMLEscapeString(s), "<code>$0</code>"))
}

// humanize writes a value without a label as words: "AT_DEPTH" is
// "at depth". Other values show as they are.
func humanize(v string) string {
	if !enumSpelling.MatchString(v) {
		return v
	}
	return strings.ToLower(strings.ReplaceAll(v, "_", " "))
}

// withValueNames adds a template function per valueNames entry: its label
// of a value, translated.
func withValueNames(fm template.FuncMap) template.FuncMap {
	for name := range valueNames {
		fm[name] = func(t tr, value any) string { return valueLabel(t, name, value) }
	}
	return fm
}

// jobStateLabel is a job state in words (the job page's poll answer).
func jobStateLabel(t tr, s any) string { return valueLabel(t, "jobStateName", s) }

// jobKindLabel is a job kind in words (the job page's title).
func jobKindLabel(t tr, k any) string { return valueLabel(t, "jobKindName", k) }

// valueLabel is the label of value by the valueNames table fn.
func valueLabel(t tr, fn string, value any) string {
	if rv := reflect.ValueOf(value); rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return ""
		}
		value = rv.Elem().Interface() // an optional enum (*lore.EmbeddingState)
	}
	v := fmt.Sprint(value)
	if label, ok := valueNames[fn][v]; ok {
		return t.S(label)
	}
	return humanize(v)
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
	"admitted":                 "fired",
	"disabled":                 "disabled",
	"gated_server":             "other server",
	"gated_lineage":            "other persona",
	"gated_collection":         "collection disabled",
	"gated_category":           "category disabled",
	"gated_channel":            "not in this channel",
	"no_key_match":             "no key matched",
	"secondary_logic_failed":   "secondary keys failed",
	"chance_failed":            "chance roll failed",
	"over_budget":              "over the budget",
	"group_lost":               "lost its group",
	"excluded_from_recursion":  "excluded from recursion",
	"delayed_until_recursion":  "waits for recursion",
	"decorator_blocked":        "blocked by a decorator",
	"cooldown":                 "cooling down",
	"delayed":                  "delayed",
	"filtered_character":       "not for this character",
	"filtered_generation_type": "not for this generation type",
	"over_entry_cap":           "over the entry cap",
	"regex_budget_exhausted":   "regex budget ran out",
	"semantic_match":           "fired by similarity",
	"below_threshold":          "not similar enough",
	"over_semantic_cap":        "similar, but over the cap",
}

// flashTexts are the notices of a ?done= redirect (catalog keys).
var flashTexts = map[string]string{
	"saved":     "Saved.",
	"deleted":   "Deleted.",
	"settings":  "Settings saved.",
	"undone":    "Undone.",
	"restored":  "Restored.",
	"approved":  "Approved.",
	"rejected":  "Rejected.",
	"moved":     "Moved.",
	"bulk":      "Done.",
	"signedout": "You are signed out.",
	"expired":   "Your session has ended. Sign in again.",
}

// flashText is the notice of a ?done= redirect ("" for an unknown one).
func flashText(t tr, done string) string {
	if key, ok := flashTexts[done]; ok {
		return t.S(key)
	}
	return ""
}
