package turn

import (
	"encoding"
	"flag"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"loregate/lore"
	"loregate/lore/activation"
	"loregate/lore/i18n"
)

// Overrides are a request's engine overrides: the request layer, which
// replaces the server's settings for one turn (book settings still win).
// A nil field keeps the server's setting or the engine's default. It is
// the GraphQL input ActivationOverrides (gqlgen binds it; json tags are the
// field names) and the override flags of `loregate activate` (flag tags).
// See the package documentation to add one.
type Overrides struct {
	// ScanDepth is the scan depth for entries and books without their
	// own: 0-100 (APIBounds), >= 0 (OfflineBounds); 0 scans no chat
	// message.
	ScanDepth *int `json:"scanDepth" flag:"scan-depth" usage:"default scan depth (default 2)"`
	// Budget is a character budget in UTF-16 code units, whatever the
	// server's unit: lore.BudgetCharacters' range (APIBounds), not 0 and
	// negative = no limit (OfflineBounds). Not with BudgetTokens.
	Budget *int `json:"budget" flag:"budget" usage:"budget in UTF-16 code units, negative = unlimited (default 8000)"`
	// BudgetTokens is a token budget counted with the turn's tokenizer:
	// lore.BudgetTokens' range (APIBounds), > 0 (OfflineBounds). Not with
	// Budget.
	BudgetTokens *int `json:"budgetTokens" flag:"budget-tokens" usage:"budget in tokens (exclusive with --budget)"`
	// Recursive turns recursive scanning on for books that do not set it.
	Recursive *bool `json:"recursive" flag:"recursive" usage:"recursive scanning"`
	// MaxRecursionSteps counts passes including the first for books that
	// do not set it, 0 = the engine's cap: 0-10 (APIBounds), >= 0
	// (OfflineBounds). It does not turn recursion on.
	MaxRecursionSteps *int `json:"maxRecursionSteps" flag:"max-recursion-steps" usage:"passes including the first, 0 = the engine's cap (default 3)"`
	// WholeWords is the whole-word rule for keys without their own
	// (default true).
	WholeWords *bool `json:"wholeWords" flag:"whole-words" usage:"whole-word matching (default true)"`
	// CaseSensitive is case-sensitive matching for keys without their own
	// (default false).
	CaseSensitive *bool `json:"caseSensitive" flag:"case-sensitive" usage:"case-sensitive matching"`
	// ChannelScoping replaces the server's channel scoping switch (API
	// only: the CLI has no channels).
	ChannelScoping *bool `json:"channelScoping"`
	// Random fixes every chance draw to this value in [0, 1), for
	// reproducible previews; a recorded turn then draws it too.
	Random *float64 `json:"random" flag:"random" usage:"fixed draw in [0, 1)"`
	// IncludeNames scans each message as "Name: content" where the message
	// has its speaker's name (the server's includeNames otherwise).
	IncludeNames *bool `json:"includeNames,omitempty" flag:"include-names" usage:"scan each message as \"Name: content\""`
	// MinActivations scans one message deeper at a time until that many
	// entries are admitted, 0 = off: 0-1000 (APIBounds), >= 0
	// (OfflineBounds).
	MinActivations *int `json:"minActivations,omitempty" flag:"min-activations" usage:"scan deeper until this many entries fired (0 = off)"`
	// MinActivationsDepthMax is the most messages that sweep scans, 0 =
	// the whole chat: 0-1000 (APIBounds), >= 0 (OfflineBounds).
	MinActivationsDepthMax *int `json:"minActivationsDepthMax,omitempty" flag:"min-activations-depth-max" usage:"most messages the min-activations sweep scans (0 = all)"`
	// MaxEntries caps the admitted keyword and chance entries, 0 = no cap:
	// 0-1000 (APIBounds), >= 0 (OfflineBounds).
	MaxEntries *int `json:"maxEntries,omitempty" flag:"max-entries" usage:"cap on admitted keyword and chance entries (0 = none)"`

	// Retrieval by meaning (docs/contract.md#semantic; applied by
	// Overrides.semantic): the ranker, every entry a candidate, the cap
	// 0-50, the threshold 0-1 and the query's messages 1-20 (the same
	// ranges offline).
	SemanticRanker        *lore.SemanticRanker `json:"semanticRanker,omitempty" flag:"ranker" usage:"ranker of vectorized entries: auto, embeddings, lexical or off (default auto)"`
	SemanticAllEntries    *bool                `json:"semanticAllEntries,omitempty" flag:"semantic-all" usage:"every entry is a candidate for retrieval by meaning, not only vectorized ones"`
	SemanticMaxEntries    *int                 `json:"semanticMaxEntries,omitempty" flag:"semantic-max-entries" usage:"entries similarity admits at most, 0-50 (default 5)"`
	SemanticThreshold     *float64             `json:"semanticThreshold,omitempty" flag:"semantic-threshold" usage:"least similarity admitted, 0-1 (default 0.25)"`
	SemanticQueryMessages *int                 `json:"semanticQueryMessages,omitempty" flag:"semantic-query-messages" usage:"newest messages forming the query, 1-20 (default 2)"`
	// SemanticBudgetShare is the most of the budget held for similarity
	// matches, 0-1 (docs/contract.md#semantic-budget).
	SemanticBudgetShare *float64 `json:"semanticBudgetShare,omitempty" flag:"semantic-budget-share" usage:"most of the budget held for similarity matches, 0-1 (default 0.25)"`
}

// semantic returns set with o's semantic overrides applied, checked with
// lore.SemanticSettings.Validate (errors name "overrides.<json name>").
func (o *Overrides) semantic(set lore.SemanticSettings) (lore.SemanticSettings, error) {
	if o.SemanticRanker != nil {
		set.Ranker = *o.SemanticRanker
	}
	if o.SemanticAllEntries != nil {
		set.AllEntries = *o.SemanticAllEntries
	}
	if o.SemanticMaxEntries != nil {
		set.MaxEntries = o.SemanticMaxEntries
	}
	if o.SemanticThreshold != nil {
		set.Threshold = o.SemanticThreshold
	}
	if o.SemanticQueryMessages != nil {
		set.QueryMessages = o.SemanticQueryMessages
	}
	if o.SemanticBudgetShare != nil {
		set.BudgetShare = o.SemanticBudgetShare
	}
	if err := set.Validate(); err != nil {
		return set, lore.WithFieldPrefix("overrides", err)
	}
	return set, nil
}

// Bounds says which ranges overrides are checked against.
type Bounds uint8

const (
	// APIBounds are the deployment's ranges, those of server and book
	// settings (lore.MinScanDepth..lore.MaxScanDepth, the budget units'
	// ranges, lore.MaxRecursionSteps).
	APIBounds Bounds = iota
	// OfflineBounds are the offline tools' safety ceilings only
	// (docs/authoring.md): non-negative depths and steps, a negative
	// character budget for no limit.
	OfflineBounds
)

// Check reports the first value of o out of b's range, as apply would (an
// *lore.InvalidError naming "overrides.<json name>"): callers check bad
// arguments before any work.
func (o *Overrides) Check(b Bounds) error {
	var opts activation.Options
	var scoping bool
	return o.apply(&opts, &scoping, b)
}

// apply checks o against b and sets the engine options it overrides;
// scoping is the channel scoping switch. A value out of range is an
// *lore.InvalidError naming "overrides.<json name>".
func (o *Overrides) apply(opts *activation.Options, scoping *bool, b Bounds) error {
	if v := o.ScanDepth; v != nil {
		switch {
		case b == APIBounds && (*v < lore.MinScanDepth || *v > lore.MaxScanDepth):
			return lore.Reject("overrides.scanDepth", i18n.OutOfRange, lore.Params{"value": *v, "min": lore.MinScanDepth, "max": lore.MaxScanDepth})
		case *v < 0:
			return lore.Reject("overrides.scanDepth", i18n.Negative, lore.Params{"value": *v})
		}
		d := *v
		opts.ScanDepth = &d
	}
	if err := o.applyBudget(opts, b); err != nil {
		return err
	}
	if o.Recursive != nil {
		opts.Recursive = *o.Recursive
	}
	if v := o.MaxRecursionSteps; v != nil {
		switch {
		case b == APIBounds && (*v < 0 || *v > lore.MaxRecursionSteps):
			return lore.Reject("overrides.maxRecursionSteps", i18n.OutOfRange, lore.Params{"value": *v, "min": 0, "max": lore.MaxRecursionSteps})
		case *v < 0:
			return lore.Reject("overrides.maxRecursionSteps", i18n.Negative, lore.Params{"value": *v})
		}
		n := *v
		opts.MaxRecursionSteps = &n
	}
	if o.WholeWords != nil {
		opts.Substring = !*o.WholeWords
	}
	if o.CaseSensitive != nil {
		opts.CaseSensitive = *o.CaseSensitive
	}
	if o.ChannelScoping != nil {
		*scoping = *o.ChannelScoping
	}
	if v := o.Random; v != nil {
		draw := *v
		if !(draw >= 0 && draw < 1) {
			return lore.Reject("overrides.random", i18n.NotUnitInterval, nil)
		}
		opts.Random = func() float64 { return draw }
	}
	return o.applySelection(opts, b)
}

// applySelection applies the selection control overrides.
func (o *Overrides) applySelection(opts *activation.Options, b Bounds) error {
	if o.IncludeNames != nil {
		opts.IncludeNames = *o.IncludeNames
	}
	for _, f := range []struct {
		field string
		v     *int
		dst   *int
		hi    int
	}{{"minActivations", o.MinActivations, &opts.MinActivations, lore.MaxMinActivations},
		{"minActivationsDepthMax", o.MinActivationsDepthMax, &opts.MinActivationsDepthMax, lore.MaxMinActivationsDepth},
		{"maxEntries", o.MaxEntries, &opts.MaxEntries, lore.MaxEntriesCap}} {
		if f.v == nil {
			continue
		}
		switch {
		case b == APIBounds && (*f.v < 0 || *f.v > f.hi):
			return lore.Reject("overrides."+f.field, i18n.OutOfRange, lore.Params{"value": *f.v, "min": 0, "max": f.hi})
		case *f.v < 0:
			return lore.Reject("overrides."+f.field, i18n.Negative, lore.Params{"value": *f.v})
		}
		*f.dst = *f.v
	}
	return nil
}

// applyBudget applies Budget or BudgetTokens (not both).
func (o *Overrides) applyBudget(opts *activation.Options, b Bounds) error {
	chars, toks := o.Budget, o.BudgetTokens
	switch {
	case chars != nil && toks != nil:
		if b == OfflineBounds {
			return lore.Reject("overrides.budgetTokens", i18n.BudgetFlagsExclusive, nil)
		}
		return lore.Reject("overrides.budgetTokens", i18n.BudgetFieldsExclusive, nil)
	case chars != nil:
		if b == OfflineBounds && *chars == 0 {
			return lore.Reject("overrides.budget", i18n.ZeroBudget, nil)
		}
		if b == APIBounds {
			if err := lore.BudgetCharacters.CheckLimit("overrides.budget", *chars); err != nil {
				return err
			}
		}
		opts.CharBudget, opts.TokenBudget = *chars, 0
	case toks != nil:
		if b == OfflineBounds && *toks <= 0 {
			return lore.Reject("overrides.budgetTokens", i18n.NotPositive, lore.Params{"value": *toks})
		}
		if b == APIBounds {
			if err := lore.BudgetTokens.CheckLimit("overrides.budgetTokens", *toks); err != nil {
				return err
			}
		}
		opts.TokenBudget = *toks
	}
	return nil
}

// Flag is the command-line flag of one override: Value sets the field of
// the Overrides it was made from.
type Flag struct {
	// Name is the flag without dashes, Usage its help.
	Name, Usage string
	Value       flag.Value
	// Field is the override's field in errors, "overrides.<json name>".
	Field string
}

// Flags returns a flag for every field of o with a flag tag, in field
// order; setting one sets the field (nil until set).
func Flags(o *Overrides) []Flag {
	v := reflect.ValueOf(o).Elem()
	var out []Flag
	for i := range v.NumField() {
		f := v.Type().Field(i)
		name := f.Tag.Get("flag")
		if name == "" {
			continue
		}
		json, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		out = append(out, Flag{Name: name, Usage: f.Tag.Get("usage"), Value: &ptrFlag{p: v.Field(i)}, Field: "overrides." + json})
	}
	return out
}

// ptrFlag is a flag.Value setting a pointer field (*int, *bool, *float64,
// or a pointer to a string type with UnmarshalText).
type ptrFlag struct{ p reflect.Value }

func (f *ptrFlag) String() string {
	if !f.p.IsValid() || f.p.IsNil() {
		return ""
	}
	return fmt.Sprint(f.p.Elem().Interface())
}

func (f *ptrFlag) Set(s string) error {
	var v any
	var err error
	switch f.p.Type().Elem().Kind() {
	case reflect.Int:
		var n int64
		n, err = strconv.ParseInt(s, 10, 0)
		v = int(n)
	case reflect.Bool:
		v, err = strconv.ParseBool(s)
	case reflect.Float64:
		v, err = strconv.ParseFloat(s, 64)
	case reflect.String:
		p := reflect.New(f.p.Type().Elem())
		u, ok := p.Interface().(encoding.TextUnmarshaler)
		if !ok {
			return fmt.Errorf("unsupported override type %s", f.p.Type())
		}
		if err := u.UnmarshalText([]byte(s)); err != nil {
			return err
		}
		f.p.Set(p)
		return nil
	default:
		return fmt.Errorf("unsupported override type %s", f.p.Type())
	}
	if err != nil {
		return err
	}
	p := reflect.New(f.p.Type().Elem())
	p.Elem().Set(reflect.ValueOf(v))
	f.p.Set(p)
	return nil
}

// IsBoolFlag lets a bool override be given as --name alone.
func (f *ptrFlag) IsBoolFlag() bool { return f.p.Type().Elem().Kind() == reflect.Bool }
