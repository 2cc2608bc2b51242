package conv

import (
	"fmt"
	"slices"
	"strings"

	"loregate/lore"
	"loregate/lore/i18n"
)

// Builder collects converted entries and the report of one import. Codecs
// create one with NewBuilder, call Add per source entry, and Finish.
type Builder struct {
	Book   Book
	Report Report
	opts   Options
	// entryMark is IgnoredSettings as EntryStart saw it (nil: not marked).
	entryMark map[string]int
	// missingEnabled counts entries whose source had no enabled flag.
	missingEnabled int
	// settingsExt is the book's SettingsKey object, applied by Finish.
	settingsExt *settingsJSON
	// contentNotText is STCtx.ContentNotText of the entry being added.
	contentNotText string
}

// KeyBookScanDepth marks, in an entry's extensions, that its ScanDepth came
// from the book's scan depth (value: that depth) rather than from the
// entry: importers did this before books had settings of their own, and
// entries stored then still carry it. Exporters write such an entry
// without a scan depth of its own, so the same-format export stays
// lossless.
const KeyBookScanDepth = "loregate/book_scan_depth"

// NewBuilder starts a conversion of format kind.
func NewBuilder(kind Kind, opts Options) *Builder {
	return &Builder{Report: Report{Format: kind}, opts: opts.WithDefaults()}
}

// MissingEnabled records an entry whose source had no enabled flag; Finish
// turns the count into one warning (issue 5: missing enabled imports as
// enabled, with a warning; docs/formats.md).
func (b *Builder) MissingEnabled() { b.missingEnabled++ }

// Add checks e and appends it, or records it as skipped. index is the
// entry's 0-based position in source order; probs are the key problems
// the codec's CleanKeys calls found. Rules: empty content is skipped;
// content over Options.Limits.ContentChars UTF-16 units is split into the
// parts of a split group (Options.LongEntries "split", the default; each
// part is one entry and the report lists the split) or skipped ("skip");
// any entry lore.Entry.Validate refuses (NUL characters, an order out of
// range, oversized extensions) is skipped with the reason; an entry with no
// usable key that is not constant is imported and reported inert.
func (b *Builder) Add(index int, e lore.Entry, probs ...KeyProblem) {
	lim := b.opts.Limits
	if e.Position == "" && e.Placement.Valid() {
		// Formats without positions: the kind of the placement.
		e.Position = lore.PositionAfterChar
		if e.Placement == lore.Before {
			e.Position = lore.PositionBeforeChar
		}
	}
	var parts []string
	switch n := lore.UTF16Len(e.Content); {
	case strings.TrimSpace(e.Content) == "":
		reason := "no content"
		if b.contentNotText != "" {
			reason = "content is not text (" + b.contentNotText + ")"
		}
		b.Report.Skipped = append(b.Report.Skipped, Skip{index, e.Title, reason})
		return
	case n > lim.ContentChars && b.opts.LongEntries == LongSkip:
		b.Report.Skipped = append(b.Report.Skipped, Skip{index, e.Title,
			fmt.Sprintf("content is %d characters, over the %d limit (long entries: skip)", n, lim.ContentChars)})
		return
	case n > lim.ContentChars:
		parts = SplitContent(e.Content, lim.ContentChars)
		if last := &parts[len(parts)-1]; lore.UTF16Len(*last) > lim.ContentChars {
			// Only trailing blanks can make the last part too long.
			*last = lore.TruncateUTF16(*last, lim.ContentChars)
		}
	}
	// Anything else the store would refuse is skipped here with the reason,
	// so one bad entry never fails the whole import (scope fields are set
	// by the caller; check the entry as a persona entry).
	probe := e
	probe.Lineage, probe.Collection, probe.Server = 1, "", ""
	if parts != nil {
		probe.Content = parts[0]
		probe.SetSplit(lore.SplitRef{Group: "0000000000000000", Parts: len(parts)})
	}
	if err := probe.ValidateWith(lim); err != nil {
		b.Report.Skipped = append(b.Report.Skipped, Skip{index, e.Title, err.Error()})
		return
	}
	ReportDecorators(&b.Report, e.Content)
	for _, p := range probs {
		b.Report.UnsupportedKeys = append(b.Report.UnsupportedKeys,
			UnsupportedKey{Index: index, Title: e.Title, Key: Snippet(p.Key), Reason: p.Reason})
	}
	if !e.Constant && !e.Vectorized && !hasUsableKey(e.Keys) {
		b.Report.Inert = append(b.Report.Inert, Inert{index, e.Title, inertReason(e.Keys, probs)})
	}
	// One shape for "no keys": Keys empty and non-nil, SecondaryKeys nil.
	if e.Keys == nil {
		e.Keys = []string{}
	}
	if len(e.SecondaryKeys) == 0 {
		e.SecondaryKeys = nil
	}
	if e.Extensions != nil && len(e.Extensions) == 0 {
		e.Extensions = nil
	}
	if parts == nil {
		b.Book.Entries = append(b.Book.Entries, e)
		return
	}
	n := lore.UTF16Len(e.Content)
	b.Report.Split = append(b.Report.Split, Split{Index: index, Title: e.Title, Characters: n, Parts: len(parts)})
	if n > lore.DefaultBudgetCharacters {
		b.Report.Notef(i18n.ReportEntryNeverFits, map[string]any{"index": index, "title": Snippet(e.Title),
			"characters": n, "budget": lore.DefaultBudgetCharacters})
	}
	group := NewSplitGroup()
	for i, c := range parts {
		p := e
		p.Content = c
		p.SetSplit(lore.SplitRef{Group: group, Part: i, Parts: len(parts)})
		b.Book.Entries = append(b.Book.Entries, p)
	}
}

// inertReason says why an entry has no usable key: the problems the
// decoder found with its keys, else that it has none.
func inertReason(keys []string, probs []KeyProblem) string {
	if len(probs) > 0 {
		var rs []string
		for _, p := range probs {
			if !slices.Contains(rs, p.Reason) {
				rs = append(rs, p.Reason)
			}
		}
		return "no usable key: " + strings.Join(rs, "; ")
	}
	if len(keys) == 0 {
		return "no keys and not constant"
	}
	return "no usable key"
}

func hasUsableKey(keys []string) bool {
	for _, k := range keys {
		if strings.TrimSpace(k) == "" {
			continue
		}
		if isRegex, problem := lore.CheckRegexKey(k); isRegex && problem != "" {
			continue
		}
		return true
	}
	return false
}

// Finish applies the persona limit, fills the counts and returns the book
// and report.
func (b *Builder) Finish() (Book, Report) {
	if b.missingEnabled > 0 {
		if b.missingEnabled == 1 {
			b.Report.Notef(i18n.ReportNoEnabledFlagOne, map[string]any{"count": 1})
		} else {
			b.Report.Notef(i18n.ReportNoEnabledFlag, map[string]any{"count": b.missingEnabled})
		}
	}
	if max := b.opts.Limits.ScopeEntries; b.opts.PersonaCard && len(b.Book.Entries) > max {
		// Keep the first max entries after splitting, never a part of a
		// split group without the rest.
		keep := max
		if r, ok := b.Book.Entries[keep].Split(); ok && r.Part > 0 {
			keep -= r.Part
		}
		b.Report.Dropped = len(b.Book.Entries) - keep
		b.Book.Entries = b.Book.Entries[:keep:keep]
		if b.Report.Dropped == 1 {
			b.Report.Notef(i18n.ReportPersonaDroppedOne, map[string]any{"max": max})
		} else {
			b.Report.Notef(i18n.ReportPersonaDropped, map[string]any{"max": max, "count": b.Report.Dropped})
		}
	}
	if b.Book.Entries == nil {
		b.Book.Entries = []lore.Entry{}
	}
	b.applySettingsExt()
	b.Report.Entries = len(b.Book.Entries)
	b.Report.Normalize()
	return b.Book, b.Report
}
