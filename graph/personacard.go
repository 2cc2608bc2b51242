package graph

import (
	"context"
	"errors"
	"path"
	"strconv"
	"strings"

	"loregate/graph/model"
	"loregate/lore"
	"loregate/lore/format"
	"loregate/lore/i18n"
	"loregate/lore/transfer"
)

// importPersonaCard runs the importPersonaCard mutation (docs/contract.md#imports: a card imported as a new persona, an "alter", gets the next
// free persona id and a new lineage whose book is the card's book, the
// first 250 entries after splitting; persona and lore are written in one
// transaction, so a failed lore write leaves no persona). With personaId
// the card's book replaces that persona's lineage's book.
func (r *Resolver) importPersonaCard(ctx context.Context, in *model.ImportPersonaCardInput) (*model.PersonaCardPayload, error) {
	fail := func(err error, report *model.ConversionReport) (*model.PersonaCardPayload, error) {
		p, err := failure[model.PersonaCardPayload](err)
		p.Report = report
		return p, err
	}
	server := in.ServerDiscordID
	if err := r.authorizeWrite(ctx, server, lore.Serverwide); err != nil {
		return fail(err, nil)
	}
	personaID := get(in.PersonaID, 0)
	if personaID < 0 {
		return fail(lore.Reject("personaId", i18n.NotPositivePersonaID, nil), nil)
	}
	data, err := readUpload(in.File)
	if err != nil {
		return fail(err, nil)
	}
	// Persona card conversion keeps the first ScopeEntries entries after
	// splitting long ones (docs/formats.md "Long entries").
	opts := format.Options{Limits: r.Limits.WithDefaults(), PersonaCard: true}
	res, err := format.Import(in.File.Filename, data, opts)
	report := failedReport(&res.Report)
	noBook := errors.Is(err, format.ErrNoLorebook)
	if err != nil && !noBook {
		return fail(lore.Reject("file", i18n.FileUnreadable, lore.Params{"detail": err.Error()}), report)
	}
	switch res.Format {
	case format.KindV1Card, format.KindV2Card, format.KindV3Card:
	default:
		return fail(lore.Reject("file", i18n.NotACard, lore.Params{"format": string(res.Format)}), report)
	}
	c := lore.PersonaCardImport{Server: server, PersonaID: personaID, Name: personaName(get(in.Name, ""), res.Book.Character, in.File.Filename),
		Character: res.Book.CharacterContext}
	if !noBook {
		c.Source = &lore.BookSource{Name: res.Book.Name, NameFromFile: res.Book.NameFromFile,
			Description: res.Book.Description, Fields: res.Book.Extensions}
		c.Entries = res.Book.Entries
		if c.Entries == nil {
			c.Entries = []lore.Entry{}
		}
		// The card's book settings become the persona book's.
		if c.Settings, err = transfer.ImportSettings(ctx, r.Store, server, true, &res); err != nil {
			return fail(err, report)
		}
		if err := transfer.WarnAlwaysOn(ctx, r.Store, server, c.Name, c.Entries, &res.Report); err != nil {
			return fail(err, report)
		}
		report = reportToModel(&res.Report)
	}
	p, written, recID, err := transfer.ImportPersonaCard(ctx, r.Store, c, res.Book.Card, in.File.Filename, data, actor(ctx))
	if err != nil {
		return fail(err, report)
	}
	r.Logger.InfoContext(ctx, "persona card imported", "request_id", RequestID(ctx), "format", res.Format,
		"created", personaID == 0, "lineage", int64(p.Lineage), "added", written.Added, "replaced", written.Replaced,
		"dropped", res.Report.Dropped, "skipped", len(res.Report.Skipped))
	out := &model.PersonaCardPayload{
		Persona: personaToModel(p), Created: personaID == 0, Added: written.Added, Replaced: written.Replaced,
		BookIncluded: !noBook, Report: report,
	}
	if recID != 0 {
		id := strconv.FormatInt(recID, 10)
		out.ImportID = &id
	}
	return out, nil
}

// personaName picks a new persona's display name: the one asked for, else
// the card's character name, else the file name without its extension, cut
// to lore.MaxTitleLen UTF-16 code units with control characters replaced.
func personaName(asked, character, file string) string {
	for _, s := range []string{asked, character, strings.TrimSuffix(path.Base(file), path.Ext(file))} {
		s = strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return ' '
			}
			return r
		}, lore.TruncateUTF16(strings.TrimSpace(s), lore.MaxTitleLen))
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return "Imported persona"
}
