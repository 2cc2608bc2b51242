package dashboard

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"loregate/graph"
	"loregate/graph/client"
	"loregate/lore/i18n"
)

// forbiddenTexts are the pages' texts of each FORBIDDEN reason key, by
// language (TestForbiddenTextFromReason, TestForbiddenNamedOverHTTP).
var forbiddenTexts = map[string]map[string]string{
	i18n.ForbiddenLoreWrite: {
		"en":    "Nothing was changed: writing this server's lore needs the Manage Server permission or the server's lore editor role",
		"pt-BR": "Nada foi alterado: gravar a lore deste servidor precisa da permissão Gerenciar Servidor ou do cargo de editor de lore do servidor",
		"es":    "No se cambió nada: escribir la lore de este servidor necesita el permiso Gestionar servidor o el rol de editor de lore del servidor",
	},
	i18n.ForbiddenSettings: {
		"en":    "Nothing was changed: this needs the Manage Server permission (a lore editor writes entries, books and imports, not server settings, personas, backups or wipes)",
		"pt-BR": "Nada foi alterado: isto precisa da permissão Gerenciar Servidor (quem edita lore grava entradas, livros e importações, não as configurações do servidor, personas, backups ou limpezas)",
		"es":    "No se cambió nada: esto necesita el permiso Gestionar servidor (un editor de lore escribe entradas, libros e importaciones, no los ajustes del servidor, personas, copias de seguridad ni vaciados)",
	},
	i18n.ForbiddenService: {
		"en":    "Nothing was changed: only a service key may do this (the server life cycle is the bot's and the operators')",
		"pt-BR": "Nada foi alterado: só uma chave de serviço pode fazer isto (o ciclo de vida do servidor é do bot e dos operadores)",
		"es":    "No se cambió nada: solo una clave de servicio puede hacer esto (el ciclo de vida del servidor es del bot y de los operadores)",
	},
	i18n.ForbiddenManage: {
		"en":    "Nothing was changed: this needs the Manage Server permission (the lore editor role does not grant it)",
		"pt-BR": "Nada foi alterado: isto precisa da permissão Gerenciar Servidor (o cargo de editor de lore não a concede)",
		"es":    "No se cambió nada: esto necesita el permiso Gestionar servidor (el rol de editor de lore no lo concede)",
	},
	i18n.ForbiddenExport: {
		"en":    "Nothing was changed: exporting this server's lore needs the Manage Server permission or the server's lore editor role",
		"pt-BR": "Nada foi alterado: exportar a lore deste servidor precisa da permissão Gerenciar Servidor ou do cargo de editor de lore do servidor",
		"es":    "No se cambió nada: exportar la lore de este servidor necesita el permiso Gestionar servidor o el rol de editor de lore del servidor",
	},
}

// TestForbiddenTextFromReason: the page's text of a FORBIDDEN error comes
// from its reason key in the member's language, whatever its English
// message says (here always another case's), for every forbidden_ key of
// the catalog; an error without a key reads as a lore write.
func TestForbiddenTextFromReason(t *testing.T) {
	cat := i18n.NewCatalog(texts)
	n := 0
	for _, r := range i18n.Reasons() {
		if !strings.HasPrefix(r.Key, "forbidden_") {
			continue
		}
		n++
		require.Contains(t, forbiddenTexts, r.Key, "a page text for every forbidden_ key")
	}
	require.Len(t, forbiddenTexts, n)
	const misleading = "forbidden: this needs the Manage Server permission (a lore editor writes entries, books and imports, not server settings, personas, backups or wipes)"
	for _, lang := range []string{"en", "pt-BR", "es"} {
		tag := i18n.Tag(lang)
		tt := tr{p: i18n.Printer(cat, tag), tag: tag}
		for key, want := range forbiddenTexts {
			msg := misleading
			if key == i18n.ForbiddenSettings {
				msg = "forbidden: writing this server's lore needs the Manage Server permission or the server's lore editor role"
			}
			err := &client.Error{Op: client.OpCreateCollection, Code: graph.CodeForbidden, Message: msg, Reason: key, Params: map[string]any{}}
			require.Equal(t, want[lang], forbiddenText(tt, err), "%s in %s", key, lang)
		}
		keyless := &client.Error{Op: client.OpCreateCollection, Code: graph.CodeForbidden, Message: misleading}
		require.Equal(t, forbiddenTexts[i18n.ForbiddenLoreWrite][lang], forbiddenText(tt, keyless), "no key, in %s", lang)
	}
}

// ForbiddenTexts is forbiddenTexts for the package's external tests.
var ForbiddenTexts = forbiddenTexts
