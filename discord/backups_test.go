package discord

import (
	"encoding/json"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/stretchr/testify/require"

	"loregate/graph/model"
)

// TestBackupPreviewSettings: the backup preview says what happens to the
// server's settings for each reason a setting is skipped
// (docs/contract.md#backups): the other server's ids are not applied,
// and a server whose ranker keeps lore local keeps it, in each language.
func TestBackupPreviewSettings(t *testing.T) {
	b := &Bot{cat: newCatalog()}
	ranker := &model.BackupSettingSkip{Setting: "semanticRanker", Reason: model.BackupSkipReasonKeepsLoreLocal}
	role := &model.BackupSettingSkip{Setting: "loreEditorRoleId", Reason: model.BackupSkipReasonOtherServer}
	channel := &model.BackupSettingSkip{Setting: "proposalChannelId", Reason: model.BackupSkipReasonOtherServer}
	const (
		replaced = "Server settings: replaced by the backup's (budget, switches, lore editor role)."
		other    = "another server and "
		both     = "its lore editor role and suggestion channel belong to another server and are not applied"
		onlyRole = "its lore editor role belongs to another server and is not applied"
		onlyChan = "its suggestion channel belongs to another server and is not applied"
		kept     = "Retrieval by meaning: this server's ranker is kept."
	)
	for _, tc := range []struct {
		name   string
		ss     model.BackupSettingsPreview
		locale discordgo.Locale
		want   []string
		not    []string
	}{
		{name: "same server", ss: model.BackupSettingsPreview{Included: true, SameServer: true}, locale: discordgo.EnglishUS,
			want: []string{replaced}, not: []string{other, kept}},
		{name: "ranker kept, same server", locale: discordgo.EnglishUS,
			ss:   model.BackupSettingsPreview{Included: true, SameServer: true, Skipped: []string{"semanticRanker"}, SkippedReasons: []*model.BackupSettingSkip{ranker}},
			want: []string{replaced, kept, "the backup's would send it to the embeddings provider"}, not: []string{other}},
		{name: "other server, role only", locale: discordgo.EnglishUS,
			ss:   model.BackupSettingsPreview{Included: true, Skipped: []string{"loreEditorRoleId"}, SkippedReasons: []*model.BackupSettingSkip{role}},
			want: []string{onlyRole}, not: []string{kept, onlyChan, both}},
		{name: "other server, channel only", locale: discordgo.EnglishUS,
			ss:   model.BackupSettingsPreview{Included: true, Skipped: []string{"proposalChannelId"}, SkippedReasons: []*model.BackupSettingSkip{channel}},
			want: []string{onlyChan}, not: []string{kept, onlyRole, both}},
		{name: "other server, both ids", locale: discordgo.EnglishUS,
			ss:   model.BackupSettingsPreview{Included: true, Skipped: []string{"proposalChannelId", "loreEditorRoleId"}, SkippedReasons: []*model.BackupSettingSkip{channel, role}},
			want: []string{both}, not: []string{kept, onlyRole, onlyChan}},
		{name: "other server, no ids carried", ss: model.BackupSettingsPreview{Included: true}, locale: discordgo.EnglishUS,
			want: []string{replaced}, not: []string{other, kept}},
		{name: "ranker and role", locale: discordgo.EnglishUS,
			ss:   model.BackupSettingsPreview{Included: true, Skipped: []string{"semanticRanker", "loreEditorRoleId"}, SkippedReasons: []*model.BackupSettingSkip{ranker, role}},
			want: []string{onlyRole, kept}, not: []string{both}},
		{name: "skipped without reasons: other server", locale: discordgo.EnglishUS,
			ss: model.BackupSettingsPreview{Included: true, Skipped: []string{"loreEditorRoleId"}}, want: []string{onlyRole}, not: []string{kept}},
		{name: "role only, pt-BR", locale: discordgo.PortugueseBR,
			ss:   model.BackupSettingsPreview{Included: true, Skipped: []string{"loreEditorRoleId"}, SkippedReasons: []*model.BackupSettingSkip{role}},
			want: []string{"o cargo de editor de lore é de outro servidor e não é aplicado"}},
		{name: "channel only, es-ES", locale: discordgo.SpanishES,
			ss:   model.BackupSettingsPreview{Included: true, Skipped: []string{"proposalChannelId"}, SkippedReasons: []*model.BackupSettingSkip{channel}},
			want: []string{"el canal de sugerencias es de otro servidor y no se aplica"}},
		{name: "not in the backup", ss: model.BackupSettingsPreview{}, locale: discordgo.EnglishUS,
			want: []string{"Server settings: not in the backup, kept as they are."}, not: []string{kept}},
		{name: "ranker kept, pt-BR", locale: discordgo.PortugueseBR,
			ss:   model.BackupSettingsPreview{Included: true, SameServer: true, Skipped: []string{"semanticRanker"}, SkippedReasons: []*model.BackupSettingSkip{ranker}},
			want: []string{"Busca por significado: o ranqueador deste servidor é mantido.", "substituídas pelas do backup (orçamento"}},
		{name: "both, es-ES", locale: discordgo.SpanishES,
			ss:   model.BackupSettingsPreview{Included: true, Skipped: []string{"semanticRanker", "proposalChannelId", "loreEditorRoleId"}, SkippedReasons: []*model.BackupSettingSkip{ranker, channel, role}},
			want: []string{"Búsqueda por significado: se conserva el clasificador de este servidor.", "son de otro servidor y no se aplican"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := b.translator(tc.locale)
			tr.miss = func(key string) { t.Errorf("text missing from the message catalog: %q", key) }
			got := settingsPreview(tr, tc.ss)
			for _, w := range tc.want {
				require.Contains(t, got, w)
			}
			for _, n := range tc.not {
				require.NotContains(t, got, n)
			}
		})
	}
}

// TestBackupPreviewOtherChannels: onto another server the preview says how
// many restored collections and persona entries keep the source server's
// channel lists, in each language; nothing when there are none.
func TestBackupPreviewOtherChannels(t *testing.T) {
	b := &Bot{cat: newCatalog()}
	for _, tc := range []struct {
		name   string
		oc     model.BackupOtherChannels
		locale discordgo.Locale
		want   string
	}{
		{name: "none", locale: discordgo.EnglishUS},
		{name: "collections and entries", oc: model.BackupOtherChannels{Collections: 2, Entries: 3}, locale: discordgo.EnglishUS,
			want: "Channels: 2 collections and 3 persona entries keep the channel lists of the server the backup came from. While channel scoping is on, that lore is used in no channel here"},
		{name: "entries only", oc: model.BackupOtherChannels{Entries: 1}, locale: discordgo.EnglishUS, want: "Channels: 0 collections and 1 persona entry keep"},
		{name: "pt-BR", oc: model.BackupOtherChannels{Collections: 1, Entries: 4}, locale: discordgo.PortugueseBR,
			want: "Canais: 1 coleção e 4 entradas de persona mantêm as listas de canais do servidor de onde o backup veio."},
		{name: "es-ES", oc: model.BackupOtherChannels{Collections: 3}, locale: discordgo.SpanishES,
			want: "Canales: 3 colecciones y 0 entradas de persona conservan las listas de canales"},
		{name: "es-ES one", oc: model.BackupOtherChannels{Collections: 1, Entries: 1}, locale: discordgo.SpanishES,
			want: "Canales: 1 colección y 1 entrada de persona conservan"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := b.translator(tc.locale)
			tr.miss = func(key string) { t.Errorf("text missing from the message catalog: %q", key) }
			got := otherChannelsPreview(tr, tc.oc)
			if tc.want == "" {
				require.Empty(t, got)
				return
			}
			require.Contains(t, got, tc.want)
		})
	}
}

// TestBackupImportedReceipt: the receipt of a completed backup import
// repeats how many restored collections and persona entries keep the
// source server's channel lists (the job report's other_server_channels,
// as JSON decodes it), with the preview's plural forms, in each language;
// nothing more without them.
func TestBackupImportedReceipt(t *testing.T) {
	b := &Bot{cat: newCatalog()}
	report := func(js string) map[string]any {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(js), &m))
		return m
	}
	const imported = "Backup imported: the included books replaced their scopes; the others were kept."
	for _, tc := range []struct {
		name   string
		report map[string]any
		locale discordgo.Locale
		want   string // the second line; "" for none
	}{
		{name: "no report", locale: discordgo.EnglishUS},
		{name: "same server", report: report(`{"import_id":4,"other_server_channels":{"collections":0,"entries":0}}`), locale: discordgo.EnglishUS},
		{name: "older report", report: report(`{"import_id":4}`), locale: discordgo.EnglishUS},
		{name: "collections and entries", report: report(`{"import_id":4,"other_server_channels":{"collections":2,"entries":3}}`), locale: discordgo.EnglishUS,
			want: "Channels: 2 collections and 3 persona entries keep the channel lists of the server the backup came from."},
		{name: "one each", report: report(`{"other_server_channels":{"collections":1,"entries":1}}`), locale: discordgo.EnglishUS,
			want: "Channels: 1 collection and 1 persona entry keep"},
		{name: "pt-BR", report: report(`{"other_server_channels":{"collections":1,"entries":4}}`), locale: discordgo.PortugueseBR,
			want: "Canais: 1 coleção e 4 entradas de persona mantêm as listas de canais"},
		{name: "es-ES", report: report(`{"other_server_channels":{"collections":3,"entries":1}}`), locale: discordgo.SpanishES,
			want: "Canales: 3 colecciones y 1 entrada de persona conservan"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := b.translator(tc.locale)
			tr.miss = func(key string) { t.Errorf("text missing from the message catalog: %q", key) }
			got := importedReceipt(tr, tc.report)
			if tc.locale == discordgo.EnglishUS {
				require.Equal(t, imported, got[0])
			}
			if tc.want == "" {
				require.Len(t, got, 1)
				return
			}
			require.Len(t, got, 2)
			require.Contains(t, got[1], tc.want)
		})
	}
}

// TestBackupPreviewNoPersona: the preview names the persona books the
// backup replaces that no active persona of this server reads (an import
// restores books, not personas), in each language; nothing for the
// Serverwide scope, a scope the backup does not include, or a lineage
// with a persona.
func TestBackupPreviewNoPersona(t *testing.T) {
	b := &Bot{cat: newCatalog()}
	l7, l8, l9 := int64(7), int64(8), int64(9)
	scopes := []*model.ScopePreview{{Included: true}, {LineageID: &l7, Included: true}, {LineageID: &l8, Included: true}, {LineageID: &l9}}
	aria := lineageGroup{lineage: 7, personaID: 1, names: []string{"Aria"}}
	for _, tc := range []struct {
		name   string
		groups []lineageGroup
		scopes []*model.ScopePreview
		locale discordgo.Locale
		want   string
	}{
		{name: "every book read", groups: []lineageGroup{aria}, scopes: scopes[:2], locale: discordgo.EnglishUS},
		{name: "one without", groups: []lineageGroup{aria}, scopes: scopes, locale: discordgo.EnglishUS,
			want: "No persona of this server reads lineage 8: an import restores books, not personas."},
		{name: "pt-BR", scopes: scopes, locale: discordgo.PortugueseBR,
			want: "Nenhuma persona deste servidor lê a linhagem 7, a linhagem 8: uma importação restaura livros, não personas."},
		{name: "es-ES", scopes: scopes, locale: discordgo.SpanishES,
			want: "Ninguna persona de este servidor lee el linaje 7, el linaje 8: una importación restaura libros, no personas."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := b.translator(tc.locale)
			tr.miss = func(key string) { t.Errorf("text missing from the message catalog: %q", key) }
			got := noPersonaPreview(tr, tc.scopes, tc.groups)
			if tc.want == "" {
				require.Empty(t, got)
				return
			}
			require.Contains(t, got, tc.want)
		})
	}
}
