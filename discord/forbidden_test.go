package discord

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/stretchr/testify/require"

	"loregate/graph"
	"loregate/graph/client"
	"loregate/lore/i18n"
)

// The refusals' English texts (refusal), by the permission they name
// (lore/i18n's forbidden_ reason keys).
const (
	msgNeedLoreWrite = "Nothing was changed: writing this server's lore needs the Manage Server permission or the server's lore editor role"
	msgNeedSettings  = "Nothing was changed: this needs the Manage Server permission (a lore editor writes entries, books and imports, not server settings, personas, backups or wipes)"
	msgNeedExport    = "Nothing was changed: exporting this server's lore needs the Manage Server permission or the server's lore editor role"
	// msgNeedHistory refuses the import history (a read) to a member who
	// may not write lore.
	msgNeedHistory = "The import history is not shown: writing this server's lore needs the Manage Server permission or the server's lore editor role"
)

// refusalTexts are the refusals' texts by reason key and Discord locale.
var refusalTexts = map[string]map[string]string{
	i18n.ForbiddenLoreWrite: {
		"en-US": msgNeedLoreWrite,
		"pt-BR": "Nada foi alterado: gravar a lore deste servidor precisa da permissão Gerenciar Servidor ou do cargo de editor de lore do servidor",
		"es-ES": "No se cambió nada: escribir la lore de este servidor necesita el permiso Gestionar servidor o el rol de editor de lore del servidor",
	},
	i18n.ForbiddenSettings: {
		"en-US": msgNeedSettings,
		"pt-BR": "Nada foi alterado: isto precisa da permissão Gerenciar Servidor (quem edita lore grava entradas, livros e importações, não as configurações do servidor, personas, backups ou limpezas)",
		"es-ES": "No se cambió nada: esto necesita el permiso Gestionar servidor (un editor de lore escribe entradas, libros e importaciones, no los ajustes del servidor, personas, copias de seguridad ni vaciados)",
	},
	i18n.ForbiddenExport: {
		"en-US": msgNeedExport,
		"pt-BR": "Nada foi alterado: exportar a lore deste servidor precisa da permissão Gerenciar Servidor ou do cargo de editor de lore do servidor",
		"es-ES": "No se cambió nada: exportar la lore de este servidor necesita el permiso Gestionar servidor o el rol de editor de lore del servidor",
	},
	i18n.ForbiddenService: {
		"en-US": "Nothing was changed: only a service key may do this (the server life cycle is the bot's and the operators')",
		"pt-BR": "Nada foi alterado: só uma chave de serviço pode fazer isto (o ciclo de vida do servidor é do bot e dos operadores)",
		"es-ES": "No se cambió nada: solo una clave de servicio puede hacer esto (el ciclo de vida del servidor es del bot y de los operadores)",
	},
	i18n.ForbiddenManage: {
		"en-US": "Nothing was changed: this needs the Manage Server permission (the lore editor role does not grant it)",
		"pt-BR": "Nada foi alterado: isto precisa da permissão Gerenciar Servidor (o cargo de editor de lore não a concede)",
		"es-ES": "No se cambió nada: esto necesita el permiso Gestionar servidor (el rol de editor de lore no lo concede)",
	},
}

// TestForbiddenReceiptsNamePermission: a member who may not do what they
// pressed gets, in their language, the text of the permission it needs:
// a lore write (Manage Server or the lore editor role), a setting or a
// backup (Manage Server only, which a lore editor is refused by the API
// with forbidden_settings), an export; and nothing changes. The adapter's
// own refusals (before the API) name the same permission as the API's.
func TestForbiddenReceiptsNamePermission(t *testing.T) {
	h := newHarnessJobs(t, true) // workspace backups are jobs
	seedScopes(h)
	h.gql(`mutation($s: String!, $r: String!) { updateWorkbenchSettings(input: {serverDiscordId: $s, loreEditorRoleId: $r}) { error { code } } }`,
		map[string]any{"s": testGuild, "r": editorRoleID}, nil)
	state := func() string {
		t.Helper()
		var data client.ServerData
		h.op(client.OpServer, map[string]any{"s": testGuild}, &data)
		b, err := json.Marshal([]any{h.snapshot(), data.Server.Settings, data.Server.WorkbenchSettings})
		require.NoError(t, err)
		return string(b)
	}
	main := h.open(permManager).panel()
	backups := h.clickID(permManager, route{action: actBackups}.encode()).panel()
	backupForm := h.click(permManager, h.need(backups, actBackupImp)).modal()
	backup := h.clickID(permManager, route{action: actBackupExp}.encode()) // a valid file to upload
	var file []byte
	for _, c := range backup.calls {
		for _, data := range c.Files {
			file = data
		}
	}
	require.NotEmpty(t, file, "the manager's backup")
	editor := []string{editorRoleID}
	tests := []struct {
		name  string
		roles []string
		act   func() outcome
		want  string
	}{
		{"member toggles a book", nil, func() outcome { return h.click(permMember, h.need(main, actBookToggle)) }, i18n.ForbiddenLoreWrite},
		{"member imports with the command", nil, func() outcome { return h.importCommand(permMember, "gen.json", worldInfo(1), nil) }, i18n.ForbiddenLoreWrite},
		{"member exports a lorebook", nil, func() outcome { return h.click(permMember, h.need(main, actExport)) }, i18n.ForbiddenExport},
		{"member exports the workspace", nil, func() outcome { return h.clickID(permMember, route{action: actBackupExp}.encode()) }, i18n.ForbiddenSettings},
		{"member changes a setting", nil, func() outcome {
			return h.clickID(permMember, route{action: actSetToggle, entry: settingRegexKeys}.encode())
		}, i18n.ForbiddenSettings},
		{"lore editor exports the workspace", editor, func() outcome { return h.clickID(permMember, route{action: actBackupExp}.encode()) }, i18n.ForbiddenSettings},
		{"lore editor uploads a backup", editor, func() outcome {
			return h.submitForm(permMember, backupForm, nil, nil, h.upload("backup.json", file))
		}, i18n.ForbiddenSettings},
		{"lore editor changes a setting", editor, func() outcome {
			return h.clickID(permMember, route{action: actSetToggle, entry: settingRegexKeys}.encode())
		}, i18n.ForbiddenSettings},
		{"lore editor turns suggestions off", editor, func() outcome { return h.clickID(permMember, route{action: actWBToggle}.encode()) }, i18n.ForbiddenSettings},
	}
	for _, tc := range tests {
		for _, locale := range []string{"en-US", "pt-BR", "es-ES"} {
			t.Run(tc.name+"/"+locale, func(t *testing.T) {
				h.locale, h.roles = locale, tc.roles
				defer func() { h.locale, h.roles = "en-US", nil }()
				before := state()
				o := tc.act()
				require.Contains(t, o.content(), refusalTexts[tc.want][locale])
				for key, texts := range refusalTexts {
					if key != tc.want {
						require.NotContains(t, o.content(), texts[locale], "another permission's text")
					}
				}
				require.Equal(t, before, state(), "nothing changed")
			})
		}
	}
}

// TestForbiddenText: the receipt of the API's FORBIDDEN is its reason
// key's text in the member's language, whatever its English message says
// (here another key's); without a key (an older server), or with one this
// adapter does not know, it is the lore write's.
func TestForbiddenText(t *testing.T) {
	b := &Bot{cat: newCatalog()}
	const misleading = "forbidden: this needs the Manage Server permission (the lore editor role does not grant it)"
	n := 0
	for _, r := range i18n.Reasons() {
		if strings.HasPrefix(r.Key, "forbidden_") {
			n++
			require.Contains(t, refusalTexts, r.Key, "a text for every forbidden_ key")
		}
	}
	require.Len(t, refusalTexts, n)
	for _, locale := range []string{"en-US", "pt-BR", "es-ES"} {
		tt := b.translator(discordgo.Locale(locale))
		for key, want := range refusalTexts {
			err := &client.Error{Op: client.OpCreateCollection, Code: graph.CodeForbidden, Message: misleading, Reason: key, Params: map[string]any{}}
			require.Equal(t, want[locale], forbiddenText(tt, err), "%s in %s", key, locale)
		}
		for _, reason := range []string{"", "forbidden_newer_than_this_bot"} {
			err := &client.Error{Op: client.OpCreateCollection, Code: graph.CodeForbidden, Message: misleading, Reason: reason}
			require.Equal(t, refusalTexts[i18n.ForbiddenLoreWrite][locale], forbiddenText(tt, err), "key %q in %s", reason, locale)
		}
		// The history read's refusal names the API's key too.
		settings := &client.Error{Op: client.OpImportHistory, Code: graph.CodeForbidden, Message: misleading, Reason: i18n.ForbiddenSettings}
		require.True(t, strings.HasSuffix(historyRefusal(tt, settings), strings.SplitN(refusalTexts[i18n.ForbiddenSettings][locale], ": ", 2)[1]), locale)
		require.True(t, strings.HasSuffix(historyRefusal(tt, nil), strings.SplitN(refusalTexts[i18n.ForbiddenLoreWrite][locale], ": ", 2)[1]), locale)
	}
}
