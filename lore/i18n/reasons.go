package i18n

import (
	"fmt"
	"strings"

	"golang.org/x/text/language"
)

// Key is a reason key: a stable lower_snake name of one failure or one
// trace verdict that clients switch on and render in the member's
// language with the reason's params (docs/api.md "Reason keys"). A key
// never changes meaning; a new meaning gets a new key.
type Key = string

// Reason is one reason key with its texts. Texts are predicates that
// follow the name of the field at fault ("is 300 characters long, ..."),
// or whole sentences for mutation-level and trace reasons; {name} marks a
// param, filled from the reason's params.
type Reason struct{ Key, En, Pt, Es string }

// The reason keys raised from Go code. A key used from Go gets a constant
// here and its line in the reasons table below; trace verdict keys are
// the verdict names of lore/activation and need only their line.
const (
	Invalid              Key = "invalid"
	Required             Key = "required"
	Blank                Key = "blank"
	Empty                Key = "empty"
	InvalidUTF8          Key = "invalid_utf8"
	HasNUL               Key = "has_nul"
	HasControl           Key = "has_control"
	SurroundingSpace     Key = "surrounding_space"
	TooLong              Key = "too_long"
	TooManyKeys          Key = "too_many_keys"
	TooManyChannelIDs    Key = "too_many_channel_ids"
	TooManyNames         Key = "too_many_names"
	TooManyBytes         Key = "too_many_bytes"
	TooManyIDs           Key = "too_many_ids"
	OutOfRange           Key = "out_of_range"
	OutOfRangeCharacters Key = "out_of_range_characters"
	OutOfRangeTokens     Key = "out_of_range_tokens"
	Not32Bit             Key = "not_32bit"
	NotSnowflake         Key = "not_snowflake"
	DuplicateChannel     Key = "duplicate_channel"
	NotOneOf             Key = "not_one_of"
	BadLineage           Key = "bad_lineage"
	NoChannelsServerwide Key = "serverwide_uses_collection_channels"
	NoCollectionPersona  Key = "persona_has_no_collection"
	BadLegacyTag         Key = "bad_legacy_tag"
	ExtensionNotJSON     Key = "extension_not_json"
	ExtensionHasNUL      Key = "extension_has_nul"
	NotACursor           Key = "not_a_cursor"
	// The workbench's reasons (docs/workbench.md).
	TooManyOpenProposals   Key = "too_many_open_proposals"
	TooManyServerProposals Key = "too_many_server_proposals"
	ProposalNotOpen        Key = "proposal_not_open"
	ChangesNothing         Key = "changes_nothing"
	SameBook               Key = "same_book"
	RepeatsEntry           Key = "repeats_entry"
	AtLeast                Key = "at_least"
	UnknownSortField       Key = "unknown_sort_field"
	RejectedByDatabase     Key = "rejected_by_database"
	NotALorebook           Key = "not_a_lorebook"
	NoLorebookInCard       Key = "no_lorebook_in_card"
	NoImportableEntries    Key = "no_importable_entries"
	ScopeFull              Key = "scope_full"
	NotFound               Key = "not_found"
	UnknownLineage         Key = "unknown_lineage"
	DuplicateName          Key = "duplicate_name"
	StaleTarget            Key = "stale_target"
	StaleVersion           Key = "stale_version"
	Unavailable            Key = "unavailable"
	// EmbeddingsNotConfigured is the UNAVAILABLE of a request that needs
	// an embeddings provider (reindexEmbeddings) on a deployment without
	// one (docs/operations.md#embeddings).
	EmbeddingsNotConfigured Key = "embeddings_not_configured"
	PositionPlacement       Key = "position_placement_mismatch"
	// AlwaysOnBudgetShare is a conversion report notice: an imported
	// book's Always On entries alone take more than half of the server's
	// budget.
	AlwaysOnBudgetShare Key = "always_on_budget_share"
	// The import report's warnings (conv.Report.Notef), each also in
	// ConversionReport.warnings in English.
	// ReportEntryNeverFits is a conversion report notice: an over-long entry, split into parts, is longer than the default budget.
	ReportEntryNeverFits Key = "entry_never_fits_budget"
	// ReportNoEnabledFlagOne is a conversion report notice: one entry had no enabled flag.
	ReportNoEnabledFlagOne Key = "no_enabled_flag_one"
	// ReportNoEnabledFlag is a conversion report notice: count entries had no enabled flag.
	ReportNoEnabledFlag Key = "no_enabled_flag"
	// ReportSpecVersionNewer is a conversion report notice: a V3 card declares a newer spec version.
	ReportSpecVersionNewer Key = "spec_version_newer"
	// ReportBookDisabled is a conversion report notice: a card book is marked disabled.
	ReportBookDisabled Key = "book_disabled"
	// ReportTokenBudgetClamped is a conversion report notice: a book's token budget was outside the range.
	ReportTokenBudgetClamped Key = "token_budget_clamped"
	// ReportBudgetUnitUnknown is a conversion report notice: a book's budget unit is unknown.
	ReportBudgetUnitUnknown Key = "budget_unit_unknown"
	// ReportFolderNotKept is a conversion report notice: a RisuAI folder holds no imported entry.
	ReportFolderNotKept Key = "folder_not_kept"
	// ReportFoldersKept is a conversion report notice: RisuAI folders kept on their entries.
	ReportFoldersKept Key = "folders_kept"
	// ReportSettingsNotApplied is a conversion report notice: an append keeps the book's settings.
	ReportSettingsNotApplied Key = "settings_not_applied"
	// ReportBudgetUnitMismatch is a conversion report notice: the file's budget counts another unit than the server.
	ReportBudgetUnitMismatch Key = "budget_unit_mismatch"
	// ReportCardSpelledKeys is a conversion report notice: a world info entry spells its keys the card way.
	ReportCardSpelledKeys Key = "card_spelled_keys"
)

// reasons is every reason key with its English, Brazilian Portuguese and
// Spanish texts: the one place to add a key (then list it in docs/api.md
// "Reason keys"; TestReasons checks both). Field reasons first, then
// mutation-level reasons, then trace verdicts.
var reasons = [...]Reason{
	// Field reasons (FieldError.reason, MutationError.reason of INVALID_INPUT).
	{Invalid, "{detail}", "é inválido: {detail}", "no es válido: {detail}"},
	{Required, "is required", "é obrigatório", "es obligatorio"},
	{Blank, "must not be blank", "não pode ficar em branco", "no puede quedar en blanco"},
	{Empty, "must not be empty", "não pode ficar vazio", "no puede quedar vacío"},
	{InvalidUTF8, "is not valid UTF-8", "não é UTF-8 válido", "no es UTF-8 válido"},
	{HasNUL, "must not contain NUL characters", "não pode conter caracteres NUL", "no puede contener caracteres NUL"},
	{HasControl, "must not contain control characters", "não pode conter caracteres de controle", "no puede contener caracteres de control"},
	{SurroundingSpace, "must not start or end with whitespace", "não pode começar nem terminar com espaço", "no puede empezar ni terminar con espacios"},
	{TooLong, "is {length} characters long, at most {max} allowed", "tem {length} caracteres; o máximo é {max}", "tiene {length} caracteres; el máximo es {max}"},
	{TooManyKeys, "{count} keys, at most {max} allowed", "{count} chaves; o máximo é {max}", "{count} claves; el máximo es {max}"},
	{TooManyChannelIDs, "{count} channel ids, at most {max} allowed", "{count} ids de canal; o máximo é {max}", "{count} ids de canal; el máximo es {max}"},
	{TooManyNames, "{count} names, at most {max} allowed", "{count} nomes; o máximo é {max}", "{count} nombres; el máximo es {max}"},
	{TooManyIDs, "{count} ids, at most {max} allowed", "{count} ids; o máximo é {max}", "{count} ids; el máximo es {max}"},
	{TooManyBytes, "{size} bytes, at most {max} allowed", "{size} bytes; o máximo é {max}", "{size} bytes; el máximo es {max}"},
	{OutOfRange, "{value} is outside {min}-{max}", "{value} está fora do intervalo {min}-{max}", "{value} está fuera del rango {min}-{max}"},
	{OutOfRangeCharacters, "{value} is outside {min}-{max} characters", "{value} está fora do intervalo de {min}-{max} caracteres", "{value} está fuera del rango de {min}-{max} caracteres"},
	{OutOfRangeTokens, "{value} is outside {min}-{max} tokens", "{value} está fora do intervalo de {min}-{max} tokens", "{value} está fuera del rango de {min}-{max} tokens"},
	{Not32Bit, "{value} is outside the 32-bit range", "{value} está fora do intervalo de 32 bits", "{value} está fuera del rango de 32 bits"},
	{NotSnowflake, "\"{value}\" is not a Discord snowflake", "\"{value}\" não é um id do Discord", "\"{value}\" no es un id de Discord"},
	{DuplicateChannel, "duplicate channel id {value}", "id de canal repetido: {value}", "id de canal repetido: {value}"},
	{NotOneOf, "\"{value}\" is not one of {allowed}", "\"{value}\" não é um de {allowed}", "\"{value}\" no es uno de {allowed}"},
	{BadLineage, "must be 0 (Serverwide) or a positive lineage id", "deve ser 0 (Todo o Servidor) ou o id positivo de uma linhagem", "debe ser 0 (todo el servidor) o el id positivo de un linaje"},
	{NoChannelsServerwide, "Serverwide entries use their collection's channels", "entradas de Todo o Servidor usam os canais da sua coleção", "las entradas de todo el servidor usan los canales de su colección"},
	{NoCollectionPersona, "persona entries have no collection", "entradas de persona não têm coleção", "las entradas de una persona no tienen colección"},
	{BadLegacyTag, "must be a non-blank name of at most {max} characters", "deve ser um nome não vazio de no máximo {max} caracteres", "debe ser un nombre no vacío de como máximo {max} caracteres"},
	{ExtensionNotJSON, "value of \"{name}\" is not valid JSON", "o valor de \"{name}\" não é JSON válido", "el valor de \"{name}\" no es JSON válido"},
	{ExtensionHasNUL, "\"{name}\" must not contain NUL characters", "\"{name}\" não pode conter caracteres NUL", "\"{name}\" no puede contener caracteres NUL"},
	{NotACursor, "is not a cursor returned by this API", "não é um cursor devolvido por esta API", "no es un cursor devuelto por esta API"},
	{TooManyOpenProposals, "already has {count} open proposals on this server, at most {max}: wait for a decision or withdraw one", "já tem {count} propostas abertas neste servidor, o máximo é {max}: espere uma decisão ou retire uma", "ya tiene {count} propuestas abiertas en este servidor, el máximo es {max}: espera una decisión o retira una"},
	{TooManyServerProposals, "this server has {count} open proposals, at most {max}: its managers must decide some first", "este servidor tem {count} propostas abertas, o máximo é {max}: os gerentes precisam decidir algumas antes", "este servidor tiene {count} propuestas abiertas, el máximo es {max}: sus administradores deben decidir algunas antes"},
	{ProposalNotOpen, "proposal {id} is {state}, not open", "a proposta {id} está {state}, não aberta", "la propuesta {id} está {state}, no abierta"},
	{ChangesNothing, "changes nothing", "não muda nada", "no cambia nada"},
	{SameBook, "is the book the entries are in already", "é o livro em que as entradas já estão", "es el libro en el que ya están las entradas"},
	{RepeatsEntry, "repeats entry {id}", "repete a entrada {id}", "repite la entrada {id}"},
	{AtLeast, "must be at least {min}", "deve ser pelo menos {min}", "debe ser al menos {min}"},
	{UnknownSortField, "unknown sort field \"{value}\"", "campo de ordenação desconhecido: \"{value}\"", "campo de orden desconocido: \"{value}\""},
	{PositionPlacement, "{kind} places the entry {placement}, but placement is \"{value}\"", "{kind} coloca a entrada em {placement}, mas o posicionamento é \"{value}\"", "{kind} coloca la entrada en {placement}, pero la ubicación es \"{value}\""},
	{RejectedByDatabase, "rejected by the database", "recusado pelo banco de dados", "rechazado por la base de datos"},
	{NotALorebook, "this is not a lorebook file; loregate reads {formats}", "este não é um arquivo de lorebook; o loregate lê {formats}", "este no es un archivo de lorebook; loregate lee {formats}"},
	{NoLorebookInCard, "no lorebook in this card: nothing was changed", "este cartão não tem lorebook: nada foi alterado", "esta tarjeta no tiene lorebook: no se cambió nada"},
	{NoImportableEntries, "has no importable entries ({skipped} skipped): nothing was changed", "não tem entradas importáveis ({skipped} puladas): nada foi alterado", "no tiene entradas importables ({skipped} omitidas): no se cambió nada"},

	// Mutation-level reasons (MutationError.reason of the other codes).
	{ScopeFull, "the scope would hold {total} entries, {over} over the limit of {limit}", "o escopo ficaria com {total} entradas, {over} acima do limite de {limit}", "el ámbito tendría {total} entradas, {over} por encima del límite de {limit}"},
	{NotFound, "{argument} {id} was not found: it does not exist, was deleted, or belongs to another server or scope", "{argument} {id} não foi encontrado: não existe, foi excluído ou pertence a outro servidor ou escopo", "{argument} {id} no se encontró: no existe, se eliminó o pertenece a otro servidor o ámbito"},
	{UnknownLineage, "lineage {id} is not registered on the server", "a linhagem {id} não está registrada no servidor", "el linaje {id} no está registrado en el servidor"},
	{DuplicateName, "a collection named \"{name}\" already exists on this server", "já existe uma coleção chamada \"{name}\" neste servidor", "ya existe una colección llamada \"{name}\" en este servidor"},
	{StaleTarget, "the collection was renamed or deleted after this write was prepared; nothing was written", "a coleção foi renomeada ou excluída depois que esta gravação foi preparada; nada foi gravado", "la colección se renombró o eliminó después de preparar esta escritura; no se guardó nada"},
	{StaleVersion, "{target} was changed after you read it; nothing was written, read it again", "{target} foi alterado depois que você o leu; nada foi gravado, leia de novo", "{target} cambió después de que lo leyeras; no se guardó nada, vuelve a leerlo"},
	{Unavailable, "the lore store is unavailable; nothing was written, try again", "o armazenamento de lore está indisponível; nada foi gravado, tente novamente", "el almacén de lore no está disponible; no se guardó nada, inténtalo de nuevo"},
	{EmbeddingsNotConfigured, "this deployment has no embeddings provider, so there is nothing to reindex: vectorized entries are ranked by the built-in lexical ranker (the operator sets LOREGATE_EMBEDDINGS_URL and LOREGATE_EMBEDDINGS_MODEL to use one)",
		"esta instalação não tem provedor de embeddings, então não há nada para reindexar: as entradas vetorizadas são ordenadas pelo ranqueador léxico embutido (o operador define LOREGATE_EMBEDDINGS_URL e LOREGATE_EMBEDDINGS_MODEL para usar um)",
		"esta instalación no tiene proveedor de embeddings, así que no hay nada que reindexar: las entradas vectorizadas se ordenan con el clasificador léxico integrado (el operador define LOREGATE_EMBEDDINGS_URL y LOREGATE_EMBEDDINGS_MODEL para usar uno)"},

	// Conversion report notices (ConversionReport.notices).
	{AlwaysOnBudgetShare, "the Always On entries of \"{book}\" alone take {used} of the server's budget of {limit} ({percent}%): keyword entries of every book share what is left",
		"as entradas Sempre Ativas de \"{book}\" sozinhas ocupam {used} do orçamento de {limit} do servidor ({percent}%): as entradas por palavra-chave de todos os livros dividem o que sobra",
		"las entradas Siempre Activas de \"{book}\" ocupan por sí solas {used} del presupuesto de {limit} del servidor ({percent}%): las entradas por palabra clave de todos los libros se reparten lo que queda"},
	{ReportEntryNeverFits, "entry {index} {title} has {characters} characters: it can never fit the default budget of {budget} characters",
		"a entrada {index} {title} tem {characters} caracteres: ela nunca cabe no orçamento padrão de {budget} caracteres",
		"la entrada {index} {title} tiene {characters} caracteres: nunca cabe en el presupuesto predeterminado de {budget} caracteres"},
	{ReportNoEnabledFlagOne, "1 entry has no enabled flag; imported as enabled",
		"1 entrada não tem o indicador enabled; importada como ativada",
		"1 entrada no tiene el indicador enabled; importada como activada"},
	{ReportNoEnabledFlag, "{count} entries have no enabled flag; imported as enabled",
		"{count} entradas não têm o indicador enabled; importadas como ativadas",
		"{count} entradas no tienen el indicador enabled; importadas como activadas"},
	{ReportSpecVersionNewer, "spec_version {version} is newer than 3.0; imported as 3.0",
		"spec_version {version} é mais nova que 3.0; importado como 3.0",
		"spec_version {version} es más reciente que 3.0; importado como 3.0"},
	{ReportBookDisabled, "the book is marked disabled (enabled: false); loregate has no disabled books, so its entries keep their own enabled flags",
		"o livro está marcado como desativado (enabled: false); o loregate não tem livros desativados, então as entradas mantêm o próprio indicador enabled",
		"el libro está marcado como desactivado (enabled: false); loregate no tiene libros desactivados, así que sus entradas conservan su propio indicador enabled"},
	{ReportTokenBudgetClamped, "the book's token budget {budget} is outside {min}-{max}; clamped to {clamped}",
		"o orçamento de tokens {budget} do livro está fora de {min}-{max}; ajustado para {clamped}",
		"el presupuesto de tokens {budget} del libro está fuera de {min}-{max}; ajustado a {clamped}"},
	{ReportBudgetUnitUnknown, "the book's budget unit {unit} is unknown; budget {budget} dropped",
		"a unidade de orçamento {unit} do livro é desconhecida; orçamento {budget} descartado",
		"la unidad de presupuesto {unit} del libro es desconocida; presupuesto {budget} descartado"},
	{ReportFolderNotKept, "folder {folder} holds no imported entry; it is not kept",
		"a pasta {folder} não contém nenhuma entrada importada; ela não é mantida",
		"la carpeta {folder} no contiene ninguna entrada importada; no se conserva"},
	{ReportFoldersKept, "{count} RisuAI folders kept as folder metadata on their entries",
		"{count} pastas do RisuAI mantidas como metadados de pasta nas suas entradas",
		"{count} carpetas de RisuAI conservadas como metadatos de carpeta en sus entradas"},
	{ReportSettingsNotApplied, "the file's book settings ({settings}) were not applied: appending keeps the book's own settings",
		"as configurações de livro do arquivo ({settings}) não foram aplicadas: acrescentar mantém as configurações do próprio livro",
		"la configuración de libro del archivo ({settings}) no se aplicó: añadir conserva la configuración del propio libro"},
	{ReportBudgetUnitMismatch, "the file's budget of {budget} {unit} was not applied: this server counts {serverUnit}",
		"o orçamento de {budget} {unit} do arquivo não foi aplicado: este servidor conta {serverUnit}",
		"el presupuesto de {budget} {unit} del archivo no se aplicó: este servidor cuenta {serverUnit}"},
	{ReportCardSpelledKeys, "entry {index} has keys/secondary_keys but no key/keysecondary; read as its keys",
		"a entrada {index} tem keys/secondary_keys mas não key/keysecondary; lidas como suas chaves",
		"la entrada {index} tiene keys/secondary_keys pero no key/keysecondary; leídas como sus claves"},

	// Trace verdicts (TraceItem.reason; the keys are lore/activation's
	// verdict names). Params: the entry's pass, and where the verdict has
	// them: chance (percent), priority.
	{"admitted", "entered the prompt", "entrou no prompt", "entró en el prompt"},
	{"disabled", "the entry is disabled", "a entrada está desativada", "la entrada está desactivada"},
	{"gated_server", "the entry belongs to another server", "a entrada pertence a outro servidor", "la entrada pertenece a otro servidor"},
	{"gated_lineage", "the entry belongs to another persona", "a entrada pertence a outra persona", "la entrada pertenece a otra persona"},
	{"gated_collection", "its collection is disabled", "sua coleção está desativada", "su colección está desactivada"},
	{"gated_channel", "the entry is not active in this channel", "a entrada não está ativa neste canal", "la entrada no está activa en este canal"},
	{"no_key_match", "no key matched the scanned messages", "nenhuma chave correspondeu às mensagens pesquisadas", "ninguna clave coincidió con los mensajes revisados"},
	{"secondary_logic_failed", "the secondary keys did not satisfy its logic", "as chaves secundárias não satisfizeram a lógica", "las claves secundarias no cumplieron su lógica"},
	{"chance_failed", "the chance roll failed (chance {chance}%)", "a rolagem de chance falhou (chance de {chance}%)", "la tirada de probabilidad falló (probabilidad {chance}%)"},
	{"over_budget", "it did not fit in the remaining budget (priority {priority})", "não coube no orçamento restante (prioridade {priority})", "no cupo en el presupuesto restante (prioridad {priority})"},
	{"group_lost", "another entry won its inclusion group", "outra entrada venceu seu grupo de inclusão", "otra entrada ganó su grupo de inclusión"},
	{"excluded_from_recursion", "only recursion text matched and the entry is excluded from recursion", "só o texto de recursão correspondeu e a entrada está excluída da recursão", "solo coincidió texto de recursión y la entrada está excluida de la recursión"},
	{"delayed_until_recursion", "it waits for a recursion level this turn did not reach", "espera um nível de recursão que este turno não alcançou", "espera un nivel de recursión que este turno no alcanzó"},
	{"decorator_blocked", "a decorator line blocked it", "uma linha de decorador a bloqueou", "una línea de decorador la bloqueó"},
	{"cooldown", "its cooldown is still running", "seu tempo de espera ainda está correndo", "su enfriamiento sigue en curso"},
	{"delayed", "the conversation has fewer messages than its delay", "a conversa tem menos mensagens que seu atraso", "la conversación tiene menos mensajes que su retraso"},
	{"filtered_character", "its character filter does not admit this character", "seu filtro de personagem não admite este personagem", "su filtro de personaje no admite a este personaje"},
	{"filtered_generation_type", "it is not set to fire on this generation type", "não está configurada para disparar neste tipo de geração", "no está configurada para activarse en este tipo de generación"},
	{"over_entry_cap", "more entries were activated than the entry cap keeps (priority {priority})", "mais entradas foram ativadas do que o limite de entradas mantém (prioridade {priority})", "se activaron más entradas de las que mantiene el límite de entradas (prioridad {priority})"},
	{"regex_budget_exhausted", "the turn's regex budget ran out before its keys were checked", "o orçamento de regex do turno acabou antes de suas chaves serem verificadas", "el presupuesto de regex del turno se agotó antes de revisar sus claves"},
	{"semantic_match", "entered the prompt by similarity to the chat (score {score})", "entrou no prompt por semelhança com a conversa (pontuação {score})", "entró en el prompt por similitud con la conversación (puntuación {score})"},
	{"below_threshold", "not similar enough to the chat (score {score})", "não é semelhante o bastante à conversa (pontuação {score})", "no es lo bastante similar a la conversación (puntuación {score})"},
	{"over_semantic_cap", "similar to the chat (score {score}), but better-scoring entries took every place", "semelhante à conversa (pontuação {score}), mas entradas com pontuação maior ocuparam todas as vagas", "similar a la conversación (puntuación {score}), pero entradas con mejor puntuación ocuparon todos los lugares"},
}

// reasonIndex maps a key to its line of reasons.
var reasonIndex = func() map[Key]int {
	m := make(map[Key]int, len(reasons))
	for i, r := range reasons {
		m[r.Key] = i
	}
	return m
}()

// Reasons returns every reason of the table, in its order.
func Reasons() []Reason { return append([]Reason(nil), reasons[:]...) }

// Known reports whether key is in the table.
func Known(key Key) bool {
	_, ok := reasonIndex[key]
	return ok
}

// Text renders a reason in the language of tag (English for any other
// language) with params: each {name} becomes the param's value. An
// unknown key renders as itself; a param the params lack stays {name}.
func Text(tag language.Tag, key Key, params map[string]any) string {
	i, ok := reasonIndex[key]
	if !ok {
		return key
	}
	r := reasons[i]
	s := r.En
	switch tag {
	case PT:
		s = r.Pt
	case ES:
		s = r.Es
	}
	return fill(s, params)
}

// fill replaces the {name} placeholders of s.
func fill(s string, params map[string]any) string {
	if len(params) == 0 || !strings.Contains(s, "{") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '{')
		j := strings.IndexByte(s[i+1:], '}')
		if i < 0 || j < 0 {
			b.WriteString(s)
			return b.String()
		}
		name := s[i+1 : i+1+j]
		b.WriteString(s[:i])
		if v, ok := params[name]; ok {
			b.WriteString(paramText(v))
		} else {
			b.WriteString(s[i : i+2+j])
		}
		s = s[i+2+j:]
	}
}

// paramText is a param's text: strings as they are, lists joined with
// ", ", other values as fmt prints them.
func paramText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []string:
		return strings.Join(x, ", ")
	}
	return fmt.Sprint(v)
}

// Placeholders returns the {name} params a text uses, in order.
func Placeholders(s string) []string {
	var out []string
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(s[i+1:], '}')
		if j < 0 {
			return out
		}
		out = append(out, s[i+1:i+1+j])
		s = s[i+2+j:]
	}
}
