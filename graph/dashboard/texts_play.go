package dashboard

// playgroundTexts are the texts of the playground's injections view and
// per-book budget bar (playplaces.go): the English key, its Brazilian
// Portuguese and its Spanish translation.
var playgroundTexts = [...][3]string{
	{"Depth %d from the end of the chat, as %s", "Profundidade %d a partir do fim do chat, como %s", "Profundidad %d desde el final del chat, como %s"},
	{"%s of its own budget", "%s do próprio orçamento", "%s de su propio presupuesto"},
	{"%s of the shared budget", "%s do orçamento compartilhado", "%s del presupuesto compartido"},
	{"Activated entries, above the four most recent messages", "Entradas ativadas, acima das quatro mensagens mais recentes", "Entradas activadas, encima de los cuatro mensajes más recientes"},
	{"After the last message, as %s", "Depois da última mensagem, como %s", "Después del último mensaje, como %s"},
	{"Always On entries, before the chat", "Entradas Sempre Ativas, antes do chat", "Entradas Siempre Activas, antes del chat"},
	{"Lorebook, in the chat at a depth", "Lorebook, no chat em uma profundidade", "Lorebook, en el chat a una profundidad"},
	{"Author's note", "Nota do autor", "Nota del autor"},
	{"Entries placed around the author's note or the example messages, and named outlets ({{outlet::name}}), are placed only where these texts give them a place.", "Entradas em volta da nota do autor ou das mensagens de exemplo, e saídas nomeadas ({{outlet::name}}), só entram onde estes textos lhes dão lugar.", "Las entradas alrededor de la nota del autor o de los mensajes de ejemplo, y las salidas con nombre ({{outlet::name}}), solo entran donde estos textos les dan lugar."},
	{"Example messages", "Mensagens de exemplo", "Mensajes de ejemplo"},
	{"Its own budget", "Orçamento próprio", "Presupuesto propio"},
	{"Not placed: no %s in the system prompt, author's note or example messages.", "Não colocada: não há %s no prompt de sistema, na nota do autor nem nas mensagens de exemplo.", "No colocada: no hay %s en el prompt de sistema, la nota del autor ni los mensajes de ejemplo."},
	{"Not placed: no author's note was given.", "Não colocada: nenhuma nota do autor foi dada.", "No colocada: no se dio ninguna nota del autor."},
	{"Not placed: no example messages were given.", "Não colocada: nenhuma mensagem de exemplo foi dada.", "No colocada: no se dieron mensajes de ejemplo."},
	{"Of the shared budget", "Do orçamento compartilhado", "Del presupuesto compartido"},
	{"System prompt", "Prompt de sistema", "Prompt de sistema"},
	{"System prompt, author's note and example messages (optional)", "Prompt de sistema, nota do autor e mensagens de exemplo (opcional)", "Prompt de sistema, nota del autor y mensajes de ejemplo (opcional)"},
	{"Each text of the prompt, the character and the persona may have at most %d characters.", "Cada texto do prompt, do personagem e da persona pode ter no máximo %d caracteres.", "Cada texto del prompt, del personaje y de la persona puede tener como máximo %d caracteres."},
	{"Generation type", "Tipo de geração", "Tipo de generación"},
	{"Character and persona (optional: character filters and match flags read them)", "Personagem e persona (opcional: filtros de personagem e as opções de correspondência os leem)", "Personaje y persona (opcional: los filtros de personaje y las opciones de coincidencia los leen)"},
	{"Without a character here, a persona's imported card is the character; a filter that includes only some characters blocks its entry when there is none.", "Sem um personagem aqui, o cartão importado da persona é o personagem; um filtro que inclui só alguns personagens bloqueia sua entrada quando não há nenhum.", "Sin un personaje aquí, la tarjeta importada de la persona es el personaje; un filtro que incluye solo algunos personajes bloquea su entrada cuando no hay ninguno."},
	{"Character name", "Nome do personagem", "Nombre del personaje"},
	{"Character tags (comma-separated)", "Tags do personagem (separadas por vírgula)", "Etiquetas del personaje (separadas por comas)"},
	{"Character description", "Descrição do personagem", "Descripción del personaje"},
	{"Character personality", "Personalidade do personagem", "Personalidad del personaje"},
	{"Scenario", "Cenário", "Escenario"},
	{"Creator's notes", "Notas do criador", "Notas del creador"},
	{"Character depth prompt", "Prompt de profundidade do personagem", "Prompt de profundidad del personaje"},
	{"Persona name", "Nome da persona", "Nombre de la persona"},
	{"Persona description", "Descrição da persona", "Descripción de la persona"},
	{"Scan each message with its speaker's name (include names)", "Ler cada mensagem com o nome de quem fala (incluir nomes)", "Leer cada mensaje con el nombre de quien habla (incluir nombres)"},
	{"Share of the shared budget (percent, 1-100; blank = no share of its own)", "Parte do orçamento compartilhado (porcentagem, 1-100; em branco = sem parte própria)", "Parte del presupuesto compartido (porcentaje, 1-100; en blanco = sin parte propia)"},
	{"Share of the shared budget", "Parte do orçamento compartilhado", "Parte del presupuesto compartido"},
	{"Min activations: scan deeper until this many entries fired (0 = off)", "Ativações mínimas: ler mais fundo até disparar este número de entradas (0 = desligado)", "Activaciones mínimas: leer más hondo hasta que se activen tantas entradas (0 = apagado)"},
	{"Min activations scan at most this many messages (0 = the whole chat)", "As ativações mínimas leem no máximo este número de mensagens (0 = o chat inteiro)", "Las activaciones mínimas leen como máximo tantos mensajes (0 = todo el chat)"},
	{"Most keyword entries a turn admits (0 = no cap)", "Máximo de entradas por palavra-chave num turno (0 = sem limite)", "Máximo de entradas por palabra clave en un turno (0 = sin límite)"},
	{"Min activations", "Ativações mínimas", "Activaciones mínimas"},
	{"Min activations depth max", "Profundidade máxima das ativações mínimas", "Profundidad máxima de las activaciones mínimas"},
	{"Max entries", "Máximo de entradas", "Máximo de entradas"},
	{"Used", "Usado", "Usado"},
	{"Where the entries go", "Onde as entradas entram", "Dónde entran las entradas"},
	{"Who used the budget", "Quem usou o orçamento", "Quién usó el presupuesto"},
	{"none set", "nenhum definido", "ninguno definido"},
	{"unlimited", "ilimitado", "ilimitado"},
}

// textColumn returns a table of [English, Portuguese, Spanish] texts as
// key and translation pairs: the Portuguese (col 1) or the Spanish (col 2).
func textColumn(table [][3]string, col int) [][2]string {
	out := make([][2]string, len(table))
	for i, x := range table {
		out[i] = [2]string{x[0], x[col]}
	}
	return out
}
