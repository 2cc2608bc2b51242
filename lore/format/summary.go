package format

import (
	"fmt"
	"sort"
)

// Summary is a conversion report in the shape of the GraphQL API's
// ConversionReport (graph/transfer.graphqls), field for field and with
// the same JSON names, so the CLI and the API report alike (docs/api.md).
type Summary struct {
	// Format is the detected format, prefixed by its carrier when that is
	// not plain JSON: "st-worldinfo", "png/v3-card", "charx/v3-card".
	Format string `json:"format"`
	// Entries is the number of entries converted.
	Entries int    `json:"entries"`
	Skipped []Skip `json:"skipped"`
	// UnsupportedKeys describes each key that cannot act, as
	// "entry INDEX (TITLE): KEY: REASON".
	UnsupportedKeys []string `json:"unsupportedKeys"`
	// IgnoredSettings counts, per setting name (sorted by name), the
	// entries or books that set a value with no destination.
	IgnoredSettings []SettingCount `json:"ignoredSettings"`
	// CollapsedPlacements counts entries whose richer position became
	// before/after.
	CollapsedPlacements int `json:"collapsedPlacements"`
	// Inert counts the entries no key can activate; InertEntries lists them.
	Inert        int     `json:"inert"`
	InertEntries []Inert `json:"inertEntries"`
	// Dropped counts entries past the scope limit (persona cards).
	Dropped  int      `json:"dropped"`
	Split    []Split  `json:"split"`
	Warnings []string `json:"warnings"`
	// Notices are the warnings with a reason key (their English text is
	// in Warnings too).
	Notices []Notice `json:"notices"`
}

// SettingCount is one ignored setting and how many entries or books set it.
type SettingCount struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// Summarize returns r in the API's shape. Every list is non-nil.
func Summarize(r *Report) Summary {
	s := Summary{
		Format:              string(r.Format),
		Entries:             r.Entries,
		Skipped:             append([]Skip{}, r.Skipped...),
		UnsupportedKeys:     make([]string, len(r.UnsupportedKeys)),
		IgnoredSettings:     make([]SettingCount, 0, len(r.IgnoredSettings)),
		CollapsedPlacements: r.CollapsedPlacements,
		Inert:               len(r.Inert),
		InertEntries:        append([]Inert{}, r.Inert...),
		Dropped:             r.Dropped,
		Split:               append([]Split{}, r.Split...),
		Warnings:            append([]string{}, r.Warnings...),
		Notices:             append([]Notice{}, r.Notices...),
	}
	if r.Container != "" && r.Container != ContainerJSON {
		s.Format = string(r.Container) + "/" + s.Format
	}
	for i, k := range r.UnsupportedKeys {
		s.UnsupportedKeys[i] = fmt.Sprintf("entry %d (%s): %s: %s", k.Index, k.Title, k.Key, k.Reason)
	}
	for name, n := range r.IgnoredSettings {
		s.IgnoredSettings = append(s.IgnoredSettings, SettingCount{Name: name, Count: n})
	}
	sort.Slice(s.IgnoredSettings, func(i, j int) bool { return s.IgnoredSettings[i].Name < s.IgnoredSettings[j].Name })
	return s
}
