package dashboard

import (
	"errors"
	"maps"
	"slices"
	"strings"

	"loregate/graph/client"
)

// A refused write is shown as a banner at the top of the page (the
// layout's #error-banner) listing every failing field at once, each with
// its text in the member's language (the API's reason key and params,
// rendered from lore/i18n), and the same text next to each field, which is
// marked aria-invalid; the form keeps the values the member sent.

// problem is one line of the error banner.
type problem struct {
	// Field is the form field (the API's input name, "" for none);
	// Anchor the id of its control, for a link from the banner.
	Field, Anchor string
	// Label is the field's name in the member's language ("" for none).
	Label string
	Text  string
}

// fieldLabels are the catalog keys of the form fields' names in banner
// lines, by the API's input name.
var fieldLabels = map[string]string{
	"title": "Title", "content": "Content", "keys": "Keys", "secondaryKeys": "Secondary keys",
	"selectiveLogic": "Secondary key logic", "scanDepth": "Scan depth", "probability": "Chance in percent",
	"insertionOrder": "Insertion order", "priority": "Priority", "placement": "Placement", "role": "Role",
	"group": "Inclusion groups", "groupWeight": "Group weight", "delayUntilRecursion": "Activates from recursion level",
	"sticky": "Sticky", "cooldown": "Cooldown", "delay": "Delay", "channelIds": "Channels",
	"budgetLimit": "Budget limit", "budgetUnit": "Budget unit", "tokenizer": "Tokenizer",
	"maxRecursionSteps": "Recursion passes", "name": "Name", "file": "File", "maxBudgetShare": "Share of the shared budget",
	"minActivations": "Min activations", "minActivationsDepthMax": "Min activations depth max", "maxEntries": "Max entries",
}

// entryFieldLabels are the catalog keys of the other entry fields, as a
// revision's or a proposal's changed fields name them (fieldName; the
// rest are in fieldLabels).
var entryFieldLabels = map[string]string{
	"constant": "Always On", "enabled": "Enabled", "position": "Position", "depth": "Depth", "outlet": "Outlet name",
	"match": "Also match", "characterFilter": "Character filter", "generationTypes": "Fires on",
	"caseSensitive": "Case-sensitive keys", "wholeWords": "Whole words", "ignoreBudget": "Outside the budget",
	"legacyChannelTags": "Legacy channel names", "groupOverride": "Wins its group first", "useGroupScoring": "Group scoring",
	"excludeRecursion": "Recursion never activates this entry", "preventRecursion": "Its content never feeds recursion",
	"vectorized": "Vectorized", "categoryId": "Category", "note": "Creator's note", "extensions": "Extensions",
	"collection": "Collection", "lineage": "Book",
}

// fieldName is the label of an entry field's API name (a revision's or a
// proposal's changed field) in the member's language; a name without a
// label shows as it is.
func fieldName(t tr, name string) string {
	if key, ok := entryFieldLabels[name]; ok {
		return t.S(key)
	}
	if key, ok := fieldLabels[name]; ok {
		return t.S(key)
	}
	return name
}

// fieldNames joins the labels of changed fields (fieldName).
func fieldNames(t tr, names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fieldName(t, n)
	}
	return strings.Join(out, ", ")
}

// fieldValue is a proposal's field value as the page shows it: a flag's
// true or false as yes or no in the member's language.
func fieldValue(t tr, name, value string) string {
	if name == "constant" || name == "enabled" {
		switch value {
		case "true":
			return t.S("yes")
		case "false":
			return t.S("no")
		}
	}
	return value
}

// reasonText is the text of an API error in the member's language: its
// reason key with params, else (an older server, a GraphQL error without
// a key) the English message.
func reasonText(t tr, reason string, params map[string]any, message string) string {
	if reason == "" {
		return message
	}
	return t.Reason(reason, params)
}

// problems lists the failures of a refused write: every field error of
// INVALID_INPUT, else the one error (its field, if it names one). anchor
// maps a form field to its control's id ("" = no link).
func problems(t tr, ce *client.Error, anchor func(field string) string) []problem {
	var out []problem
	add := func(apiField, reason string, params map[string]any, message string) {
		f := fieldOf(apiField)
		if f == "expectedUpdatedAt" {
			f = "" // a conflict belongs to the whole form
		}
		p := problem{Field: f, Text: reasonText(t, reason, params, message)}
		if key, ok := fieldLabels[f]; ok {
			p.Label = t.S(key)
		} else if f != "" {
			p.Label = f
		}
		if f != "" && anchor != nil {
			p.Anchor = anchor(f)
		}
		out = append(out, p)
	}
	if len(ce.Fields) > 0 {
		for _, fe := range ce.Fields {
			add(fe.Field, fe.Reason, fe.Params, fe.Message)
		}
		return out
	}
	add(ce.Field, ce.Reason, ce.Params, ce.Message)
	return out
}

// fieldErrors records a refused write's problems on rq (the banner) and
// returns them by form field (the texts next to the fields; "" holds the
// ones of no field). It reports false when err is not a payload error.
func fieldErrors(rq *req, err error, prefix string, anchor func(string) string) (map[string]string, bool) {
	var ce *client.Error
	if !errors.As(err, &ce) || !ce.Payload {
		return nil, false
	}
	ps := problems(rq.t, ce, anchor)
	errs := map[string]string{}
	for _, p := range ps {
		k := p.Field
		if k != "" {
			k = prefix + k
		}
		if _, dup := errs[k]; !dup {
			errs[k] = p.Text
		} else {
			errs[k] += "; " + p.Text
		}
	}
	rq.problems = append(rq.problems, ps...)
	return errs, true
}

// localProblems records the dashboard's own checks of a form (a number
// that does not parse) as banner lines, like the API's.
func localProblems(rq *req, errs map[string]string, anchor func(string) string) {
	for _, f := range slices.Sorted(maps.Keys(errs)) {
		p := problem{Field: f, Text: errs[f]}
		if key, ok := fieldLabels[f]; ok {
			p.Label = rq.t.S(key)
		}
		if f != "" && anchor != nil {
			p.Anchor = anchor(f)
		}
		rq.problems = append(rq.problems, p)
	}
}

// editorAnchor is the id of an editor field's control.
func editorAnchor(f string) string { return "f-" + f }

// writerName names who wrote a revision (EntryRevision.by: "user:<discord
// id>" or "service:<label>") in the member's language, as the header
// names a member: "Member 123..." or "Service key service#1".
func writerName(t tr, by string) string {
	if id, ok := strings.CutPrefix(by, "user:"); ok {
		return t.S("Member %s", id)
	}
	if label, ok := strings.CutPrefix(by, "service:"); ok {
		return t.S("Service key %s", label)
	}
	return by
}
