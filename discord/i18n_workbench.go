package discord

// workbenchTexts are the texts of the entry history, suggestion and review
// views (revisions.go, proposals.go): the English key, its Brazilian
// Portuguese and its Spanish translation, in the catalog with texts.
var workbenchTexts = [...][3]string{
	{"Not restored, nothing was changed: %s", "Não restaurada, nada foi alterado: %s", "No se restauró, no se cambió nada: %s"},
	{"Restored **%s** to revision #%d. The state it replaced stays in its history.", "**%s** restaurada para a revisão #%d. O estado substituído fica no histórico.", "**%s** restaurada a la revisión #%d. El estado reemplazado queda en su historial."},
	{"That revision is no longer among the entry's last 10, so nothing was changed.", "Essa revisão não está mais entre as 10 últimas da entrada, então nada foi alterado.", "Esa revisión ya no está entre las 10 últimas de la entrada, así que no se cambió nada."},
	{"History · %s", "Histórico · %s", "Historial · %s"},
	{"Restore this state? It becomes the entry's current state; the state it replaces stays in the history and can be restored too.", "Restaurar este estado? Ele passa a ser o estado atual da entrada; o estado substituído fica no histórico e também pode ser restaurado.", "¿Restaurar este estado? Pasa a ser el estado actual de la entrada; el estado reemplazado queda en el historial y también se puede restaurar."},
	{"Restore", "Restaurar", "Restaurar"},
	{"No revisions are kept for this entry.", "Nenhuma revisão desta entrada foi guardada.", "No se guarda ninguna revisión de esta entrada."},
	{"Older revisions are in the dashboard and the API.", "Revisões mais antigas estão no painel web e na API.", "Las revisiones más antiguas están en el panel web y en la API."},
	{"Restore #%s · %s", "Restaurar #%s · %s", "Restaurar #%s · %s"},
	{"Choose a revision to restore", "Escolha uma revisão para restaurar", "Elige una revisión para restaurar"},
	{"Back to the entry", "Voltar à entrada", "Volver a la entrada"},
	{"changed: %s", "alterou: %s", "cambió: %s"},
	{"Created", "Criada", "Creada"},
	{"Edited", "Editada", "Editada"},
	{"Deleted", "Excluída", "Eliminada"},
	{"Undo", "Desfazer", "Deshacer"},
	{"Moved or copied", "Movida ou copiada", "Movida o copiada"},
	{"Restored", "Restaurada", "Restaurada"},
	{"Suggestion approved", "Sugestão aprovada", "Sugerencia aprobada"},
	{"Bulk edit", "Edição em massa", "Edición masiva"},
	{"the scope already holds its maximum of %d entries", "o escopo já contém o máximo de %d entradas", "el ámbito ya tiene su máximo de %d entradas"},
	{"it is no longer there (its lorebook may have been deleted)", "não existe mais (seu lorebook pode ter sido excluído)", "ya no existe (puede que se eliminara su lorebook)"},
	{"it was changed meanwhile", "foi alterada nesse meio-tempo", "se cambió mientras tanto"},
	{"the lore store is unavailable; try again in a moment", "o armazenamento de lore está indisponível; tente novamente em instantes", "el almacén de lore no está disponible; inténtalo de nuevo en un momento"},
	{"Proposals (%s)", "Propostas (%s)", "Propuestas (%s)"},
	{"My suggestions", "Minhas sugestões", "Mis sugerencias"},
	{"That suggestion is no longer open, so nothing was changed.", "Essa sugestão não está mais aberta, então nada foi alterado.", "Esa sugerencia ya no está abierta, así que no se cambió nada."},
	{"Nothing was changed: %s", "Nada foi alterado: %s", "No se cambió nada: %s"},
	{"Approved suggestion #%s: it is written, recorded in the entry's history.", "Sugestão #%s aprovada: foi gravada e registrada no histórico da entrada.", "Sugerencia #%s aprobada: quedó escrita y registrada en el historial de la entrada."},
	{"Rejected suggestion #%s. The member sees your note under My suggestions.", "Sugestão #%s recusada. O membro vê sua nota em Minhas sugestões.", "Sugerencia #%s rechazada. El miembro ve tu nota en Mis sugerencias."},
	{"Reject suggestion #%d", "Recusar sugestão #%d", "Rechazar sugerencia #%d"},
	{"A note for the member (optional)", "Uma nota para o membro (opcional)", "Una nota para el miembro (opcional)"},
	{"This server does not take suggestions right now. Nothing was sent.", "Este servidor não está aceitando sugestões agora. Nada foi enviado.", "Este servidor no acepta sugerencias ahora. No se envió nada."},
	{"Why? A note for the lore keepers", "Por quê? Uma nota para os guardiões da lore", "¿Por qué? Nota para los guardianes del lore"},
	{"Suggest deleting this entry", "Sugerir excluir esta entrada", "Sugerir eliminar esta entrada"},
	{"Suggest an entry", "Sugerir uma entrada", "Sugerir una entrada"},
	{"+ Suggest an entry", "+ Sugerir uma entrada", "+ Sugerir una entrada"},
	{"Suggest an edit", "Sugerir uma edição", "Sugerir una edición"},
	{"Suggest deletion", "Sugerir exclusão", "Sugerir eliminación"},
	{"Nothing was sent: the suggestion changes nothing.", "Nada foi enviado: a sugestão não muda nada.", "No se envió nada: la sugerencia no cambia nada."},
	{"Not sent, nothing was changed: %s", "Não enviada, nada foi alterado: %s", "No se envió, no se cambió nada: %s"},
	{"Sent your suggestion #%s to the lore keepers. Their decision shows under **My suggestions**.", "Sua sugestão #%s foi enviada aos guardiões da lore. A decisão aparece em **Minhas sugestões**.", "Tu sugerencia #%s se envió a los guardianes del lore. Su decisión aparece en **Mis sugerencias**."},
	{"New suggestion #%s from %s: %s. Lore keepers review it in `/memories` → **Proposals**.", "Nova sugestão #%s de %s: %s. Os guardiões da lore a revisam em `/memories` → **Propostas**.", "Nueva sugerencia #%s de %s: %s. Los guardianes del lore la revisan en `/memories` → **Propuestas**."},
	{"a new entry %s", "uma nova entrada %s", "una entrada nueva %s"},
	{"deleting %s", "excluir %s", "eliminar %s"},
	{"an edit of %s (%s)", "uma edição de %s (%s)", "una edición de %s (%s)"},
	{"Note: %s", "Nota: %s", "Nota: %s"},
	{"Approved by %s", "Aprovada por %s", "Aprobada por %s"},
	{"Rejected by %s", "Recusada por %s", "Rechazada por %s"},
	{"Withdrawn", "Retirada", "Retirada"},
	{"Proposals", "Propostas", "Propuestas"},
	{"No suggestions are waiting for review.", "Nenhuma sugestão aguarda revisão.", "Ninguna sugerencia espera revisión."},
	{"You have not suggested anything yet. Open an entry and press **Suggest an edit**, or choose **+ Suggest an entry** in the entry list.", "Você ainda não sugeriu nada. Abra uma entrada e pressione **Sugerir uma edição**, ou escolha **+ Sugerir uma entrada** na lista de entradas.", "Todavía no sugeriste nada. Abre una entrada y pulsa **Sugerir una edición**, o elige **+ Sugerir una entrada** en la lista de entradas."},
	{"Review #%s", "Revisar #%s", "Revisar #%s"},
	{"Choose a suggestion to review", "Escolha uma sugestão para revisar", "Elige una sugerencia para revisar"},
	{"Approve", "Aprovar", "Aprobar"},
	{"Approve anyway", "Aprovar mesmo assim", "Aprobar de todos modos"},
	{"Reject", "Recusar", "Rechazar"},
	{"Delete this entry:", "Excluir esta entrada:", "Eliminar esta entrada:"},
	{"Now:", "Agora:", "Ahora:"},
	{"Suggested:", "Sugerido:", "Sugerido:"},
	{"The entry changed after this suggestion was made (%s). Compare and decide again: approving writes the suggested fields over the entry as it is now.", "A entrada mudou depois que esta sugestão foi feita (%s). Compare e decida de novo: aprovar grava os campos sugeridos sobre a entrada como ela está agora.", "La entrada cambió después de hacerse esta sugerencia (%s). Compara y decide de nuevo: aprobar escribe los campos sugeridos sobre la entrada tal como está ahora."},
	{"The entry was deleted since, so the suggestion can only be rejected.", "A entrada foi excluída depois, então a sugestão só pode ser recusada.", "La entrada se eliminó después, así que la sugerencia solo se puede rechazar."},
	{"When suggested:", "Quando sugerida:", "Al sugerirse:"},
	{"History", "Histórico", "Historial"},
	{"Withdraw #%s", "Retirar #%s", "Retirar #%s"},
	{"Withdrew your suggestion #%s. The lore keepers no longer see it.", "Sua sugestão #%s foi retirada. Os guardiões da lore não a veem mais.", "Retiraste tu sugerencia #%s. Los guardianes del lore ya no la ven."},
	{"**Deleted entries** lists the entries deleted on this server; a lore writer can restore one from there.", "**Entradas excluídas** lista as entradas excluídas neste servidor; quem escreve a lore pode restaurar uma por lá.", "**Entradas eliminadas** lista las entradas eliminadas en este servidor; quien escribe el lore puede restaurar una desde allí."},
	{"Deleted entries", "Entradas excluídas", "Entradas eliminadas"},
	{"Restore %s", "Restaurar %s", "Restaurar %s"},
	{"Choose a deleted entry to restore", "Escolha uma entrada excluída para restaurar", "Elige una entrada eliminada para restaurar"},
	{"No deleted entries are kept on this server.", "Nenhuma entrada excluída está guardada neste servidor.", "No se guarda ninguna entrada eliminada en este servidor."},
	{"Older deleted entries are in the dashboard and the API.", "Entradas excluídas mais antigas estão no painel web e na API.", "Las entradas eliminadas más antiguas están en el panel web y en la API."},
	{"Restore this entry? It comes back with its id in its book, as it was when deleted; the scope's entry limit applies.", "Restaurar esta entrada? Ela volta com seu id ao seu livro, como estava ao ser excluída; vale o limite de entradas do escopo.", "¿Restaurar esta entrada? Vuelve con su id a su libro, tal como estaba al eliminarse; se aplica el límite de entradas del ámbito."},
	{"That entry is no longer deleted (it may have been restored meanwhile), so nothing was changed.", "Essa entrada não está mais excluída (pode ter sido restaurada nesse meio-tempo), então nada foi alterado.", "Esa entrada ya no está eliminada (puede que se restaurara mientras tanto), así que no se cambió nada."},
	{"Restored **%s**: it is back in its book with its id, and the restore is in its history.", "**%s** restaurada: voltou ao seu livro com seu id, e a restauração está no histórico dela.", "**%s** restaurada: volvió a su libro con su id, y la restauración está en su historial."},
	{"none", "nenhum", "ninguno"},
	{"Suggestions", "Sugestões", "Sugerencias"},
	{"Off: members cannot suggest; suggestions already made stay for review.", "Desligado: membros não podem sugerir; as sugestões já feitas continuam para avaliação.", "Desactivado: los miembros no pueden sugerir; las sugerencias ya hechas siguen para revisión."},
	{"On: members who cannot write lore suggest new entries, edits and deletions from the panel; lore writers review them under **Proposals**.", "Ligado: membros que não escrevem a lore sugerem entradas novas, edições e exclusões pelo painel; quem escreve a lore as avalia em **Propostas**.", "Activado: los miembros que no escriben el lore sugieren entradas nuevas, ediciones y eliminaciones desde el panel; quienes escriben el lore las revisan en **Propuestas**."},
	{"Turn suggestions on", "Ligar sugestões", "Activar sugerencias"},
	{"Turn suggestions off", "Desligar sugestões", "Desactivar sugerencias"},
	{"Suggestion notices", "Avisos de sugestões", "Avisos de sugerencias"},
	{"When a member suggests something, the bot posts a notice in this channel (no one is pinged). Clear the choice for no notice.", "Quando um membro sugere algo, o bot publica um aviso neste canal (ninguém é mencionado). Limpe a escolha para não ter aviso.", "Cuando un miembro sugiere algo, el bot publica un aviso en este canal (no se menciona a nadie). Borra la elección para no tener aviso."},
	{"Channel for suggestion notices", "Canal dos avisos de sugestões", "Canal de los avisos de sugerencias"},
	{"Lore editor role", "Cargo de editor de lore", "Rol de editor de lore"},
	{"Members with this role write lore here and in the dashboard (entries, books, imports, reviews), but not settings or backups. Clear the choice for managers only.", "Membros com este cargo escrevem a lore aqui e no painel web (entradas, livros, importações, avaliações), mas não configurações nem backups. Limpe a escolha para só gerentes.", "Los miembros con este rol escriben el lore aquí y en el panel web (entradas, libros, importaciones, revisiones), pero no la configuración ni las copias de seguridad. Borra la elección para solo administradores."},
	{"Suggestion notices are off.", "Os avisos de sugestões estão desligados.", "Los avisos de sugerencias están desactivados."},
	{"Suggestion notices now go to %s.", "Os avisos de sugestões agora vão para %s.", "Los avisos de sugerencias ahora van a %s."},
	{"No lore editor role: only managers write lore.", "Sem cargo de editor de lore: só gerentes escrevem a lore.", "Sin rol de editor de lore: solo los administradores escriben el lore."},
	{"Members with %s now write lore.", "Membros com %s agora escrevem a lore.", "Los miembros con %s ahora escriben el lore."},
	{"Your suggestions were reviewed", "Suas sugestões foram avaliadas", "Tus sugerencias fueron revisadas"},
	{"More decisions show the next time you open the panel; every one is under **My suggestions**.", "Mais decisões aparecem da próxima vez que você abrir o painel; todas estão em **Minhas sugestões**.", "Más decisiones aparecen la próxima vez que abras el panel; todas están en **Mis sugerencias**."},
}

// workbenchEnPt and workbenchEs split workbenchTexts for the catalog.
func workbenchEnPt() [][2]string {
	out := make([][2]string, len(workbenchTexts))
	for i, x := range workbenchTexts {
		out[i] = [2]string{x[0], x[1]}
	}
	return out
}

func workbenchEs() [][2]string {
	out := make([][2]string, len(workbenchTexts))
	for i, x := range workbenchTexts {
		out[i] = [2]string{x[0], x[2]}
	}
	return out
}
