package dashboard

// workbenchTexts are the texts of the workbench pages (workbench.go): the
// English key, its Brazilian Portuguese and its Spanish translation.
var workbenchTexts = [...][3]string{
	{"Apply", "Aplicar", "Aplicar"},
	{"Approve", "Aprovar", "Aprobar"},
	{"Approve anyway", "Aprovar mesmo assim", "Aprobar de todos modos"},
	{"Approved", "Aprovada", "Aprobada"},
	{"Approved.", "Aprovada.", "Aprobada."},
	{"Book to move to", "Livro de destino", "Libro de destino"},
	{"Change", "Alteração", "Cambio"},
	{"Changed: %s", "Alterou: %s", "Cambió: %s"},
	{"Changes members proposed, newest first. Approving writes the proposed fields onto the entry as it is now.", "Alterações propostas por membros, das mais recentes para as mais antigas. Aprovar grava os campos propostos na entrada como ela está agora.", "Cambios que propusieron los miembros, del más reciente al más antiguo. Aprobar escribe los campos propuestos en la entrada tal como está ahora."},
	{"Choose the book to move the entries to.", "Escolha o livro para onde mover as entradas.", "Elige el libro al que mover las entradas."},
	{"Content changes", "Mudanças no conteúdo", "Cambios en el contenido"},
	{"Delete", "Excluir", "Eliminar"},
	{"Deleted", "Excluída", "Eliminada"},
	{"Deleted entries", "Entradas excluídas", "Entradas eliminadas"},
	{"Deletion", "Exclusão", "Eliminación"},
	{"Done.", "Feito.", "Hecho."},
	{"Edited", "Editada", "Editada"},
	{"Entries deleted on this server, newest first. Restoring one brings it back with its id in its book.", "Entradas excluídas neste servidor, das mais recentes para as mais antigas. Restaurar uma a traz de volta com seu id, no seu livro.", "Entradas eliminadas en este servidor, de la más reciente a la más antigua. Restaurar una la devuelve con su id a su libro."},
	{"Every write of this entry, newest first. Restoring a revision writes its state as a new change; the state it replaces stays here.", "Cada gravação desta entrada, da mais recente para a mais antiga. Restaurar uma revisão grava seu estado como uma nova alteração; o estado substituído continua aqui.", "Cada escritura de esta entrada, de la más reciente a la más antigua. Restaurar una revisión escribe su estado como un cambio nuevo; el estado reemplazado sigue aquí."},
	{"Field", "Campo", "Campo"},
	{"History", "Histórico", "Historial"},
	{"History of %s", "Histórico de %s", "Historial de %s"},
	{"Move to the book below", "Mover para o livro abaixo", "Mover al libro de abajo"},
	{"Moved or copied", "Movida ou copiada", "Movida o copiada"},
	{"Moved.", "Movidas.", "Movidas."},
	{"No entry was deleted.", "Nenhuma entrada foi excluída.", "No se eliminó ninguna entrada."},
	{"No proposals are waiting.", "Nenhuma proposta aguardando.", "No hay propuestas en espera."},
	{"No revisions are kept for this entry.", "Nenhuma revisão desta entrada foi guardada.", "No se guarda ninguna revisión de esta entrada."},
	{"Not restored, nothing was changed: %s", "Não restaurada, nada foi alterado: %s", "No se restauró, no se cambió nada: %s"},
	{"Note for the member (optional)", "Nota para o membro (opcional)", "Nota para el miembro (opcional)"},
	{"Nothing was changed: %s", "Nada foi alterado: %s", "No se cambió nada: %s"},
	{"Now", "Agora", "Ahora"},
	{"Open", "Aberta", "Abierta"},
	{"Proposal approved", "Proposta aprovada", "Propuesta aprobada"},
	{"Proposals", "Propostas", "Propuestas"},
	{"Proposed", "Proposto", "Propuesto"},
	{"Reject", "Recusar", "Rechazar"},
	{"Rejected", "Recusada", "Rechazada"},
	{"Rejected.", "Recusada.", "Rechazada."},
	{"Restore", "Restaurar", "Restaurar"},
	{"Restore this revision", "Restaurar esta revisão", "Restaurar esta revisión"},
	{"Restore this revision? Its state becomes the entry's current state.", "Restaurar esta revisão? Seu estado passa a ser o estado atual da entrada.", "¿Restaurar esta revisión? Su estado pasa a ser el estado actual de la entrada."},
	{"Restored", "Restaurada", "Restaurada"},
	{"Restored.", "Restaurada.", "Restaurada."},
	{"Select", "Selecionar", "Seleccionar"},
	{"Select %s", "Selecionar %s", "Seleccionar %s"},
	{"Select at least one entry.", "Selecione pelo menos uma entrada.", "Selecciona al menos una entrada."},
	{"The entry changed after this proposal was made. Compare the three states and decide again.", "A entrada mudou depois que esta proposta foi feita. Compare os três estados e decida de novo.", "La entrada cambió después de hacerse esta propuesta. Compara los tres estados y decide de nuevo."},
	{"This entry does not exist in this book.", "Esta entrada não existe neste livro.", "Esta entrada no existe en este libro."},
	{"When proposed", "Quando proposta", "Al proponerse"},
	{"With the selected entries", "Com as entradas selecionadas", "Con las entradas seleccionadas"},
	{"Withdrawn", "Retirada", "Retirada"},
	{"Your proposals, with the decision and the reviewer's note.", "Suas propostas, com a decisão e a nota de quem revisou.", "Tus propuestas, con la decisión y la nota de quien revisó."},
	// Books people organise (organise.go).
	{"About this book", "Sobre este livro", "Acerca de este libro"},
	{"For people only: the description, tags, categories and notes are never sent to the model.", "Só para pessoas: a descrição, as tags, as categorias e as notas nunca são enviadas ao modelo.", "Solo para personas: la descripción, las etiquetas, las categorías y las notas nunca se envían al modelo."},
	{"Description", "Descrição", "Descripción"},
	{"Tags (separated by commas)", "Tags (separadas por vírgulas)", "Etiquetas (separadas por comas)"},
	{"Save description and tags", "Salvar descrição e tags", "Guardar descripción y etiquetas"},
	{"Categories", "Categorias", "Categorías"},
	{"Category", "Categoria", "Categoría"},
	{"No category", "Sem categoria", "Sin categoría"},
	{"Its current category", "A categoria atual", "Su categoría actual"},
	{"Category disabled", "Categoria desativada", "Categoría desactivada"},
	{"A disabled category keeps its entries out of the prompt, as a disabled collection does.", "Uma categoria desativada deixa suas entradas fora do prompt, como uma coleção desativada.", "Una categoría desactivada deja sus entradas fuera del prompt, como una colección desactivada."},
	{"Delete this category? Its entries stay, without a category.", "Excluir esta categoria? Suas entradas ficam, sem categoria.", "¿Eliminar esta categoría? Sus entradas se quedan, sin categoría."},
	{"This book has no categories.", "Este livro não tem categorias.", "Este libro no tiene categorías."},
	{"New category", "Nova categoria", "Nueva categoría"},
	{"Add category", "Adicionar categoria", "Añadir categoría"},
	{"Creator's note (never sent to the model)", "Nota do criador (nunca enviada ao modelo)", "Nota del creador (nunca se envía al modelo)"},
}

// workbenchLang returns workbenchTexts as key and translation pairs: the
// Portuguese (col 1) or the Spanish (col 2).
func workbenchLang(col int) [][2]string {
	out := make([][2]string, len(workbenchTexts))
	for i, x := range workbenchTexts {
		out[i] = [2]string{x[0], x[col]}
	}
	return out
}
