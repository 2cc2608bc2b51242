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
	// Categories and book info (docs/workbench.md#categories).
	DuplicateCategory   Key = "duplicate_category"
	CategoryOtherBook   Key = "category_of_other_book"
	TooManyCategories   Key = "too_many_categories"
	DuplicateTag        Key = "duplicate_tag"
	AtLeast             Key = "at_least"
	UnknownSortField    Key = "unknown_sort_field"
	RejectedByDatabase  Key = "rejected_by_database"
	NotALorebook        Key = "not_a_lorebook"
	NoLorebookInCard    Key = "no_lorebook_in_card"
	NoImportableEntries Key = "no_importable_entries"
	ScopeFull           Key = "scope_full"
	NotFound            Key = "not_found"
	UnknownLineage      Key = "unknown_lineage"
	// UnregisteredLineage is the activation notice of a turn whose
	// lineage the server does not know: Serverwide lore only.
	UnregisteredLineage Key = "unregistered_lineage"
	DuplicateName       Key = "duplicate_name"
	StaleTarget         Key = "stale_target"
	StaleVersion        Key = "stale_version"
	Unavailable         Key = "unavailable"
	// EmbeddingsNotConfigured is the UNAVAILABLE of a request that needs
	// an embeddings provider (reindexEmbeddings) on a deployment without
	// one (docs/operations.md#embeddings).
	EmbeddingsNotConfigured Key = "embeddings_not_configured"
	// The FORBIDDEN GraphQL errors' reasons (extensions.reason), one per
	// permission a refused call lacks (docs/api.md "Reason keys").
	ForbiddenLoreWrite Key = "forbidden_lore_write"
	ForbiddenSettings  Key = "forbidden_settings"
	ForbiddenService   Key = "forbidden_service"
	ForbiddenExport    Key = "forbidden_export"
	ForbiddenManage    Key = "forbidden_manage"
	// The IDEMPOTENCY_KEY_REUSED GraphQL errors' reasons (docs/api.md
	// "Idempotency keys"): the key was used by another mutation or
	// caller, or by the same one with other input.
	IdempotencyKeyReused    Key = "idempotency_key_reused"
	IdempotencyInputDiffers Key = "idempotency_input_differs"
	PositionPlacement       Key = "position_placement_mismatch"
	// Field reasons added for the rules that raised the generic invalid.
	CursorOtherOrder           Key = "cursor_of_other_order"
	CursorOtherConnection      Key = "cursor_of_other_connection"
	NotAPosition               Key = "not_a_position"
	Between                    Key = "between"
	Negative                   Key = "negative"
	NotPositive                Key = "not_positive"
	MustBePositive             Key = "must_be_positive"
	MessageCountRange          Key = "message_count_range"
	NotUnitInterval            Key = "not_unit_interval"
	RandomOutOfRange           Key = "random_out_of_range"
	BudgetFlagsExclusive       Key = "budget_flags_exclusive"
	BudgetFieldsExclusive      Key = "budget_fields_exclusive"
	ZeroBudget                 Key = "zero_budget"
	TokenizerRequired          Key = "tokenizer_required"
	NotPersonaLineage          Key = "not_persona_lineage"
	SettingsNeedPersonaLineage Key = "settings_need_persona_lineage"
	NotPositiveLineage         Key = "not_positive_lineage"
	NullOrPositiveLineage      Key = "null_or_positive_lineage"
	LineageMapPositive         Key = "lineage_map_positive"
	LineageMapChanged          Key = "lineage_map_changed"
	LineageListedTwice         Key = "lineage_listed_twice"
	PersonaBookConflict        Key = "persona_book_conflict"
	NotPositivePersonaID       Key = "not_positive_persona_id"
	// PersonaOtherLineage refuses upsertPersona with the id of a persona
	// (not removed) registered under another lineage: it would move the
	// persona away from its book.
	PersonaOtherLineage        Key = "persona_other_lineage"
	PersonaIDOrNew             Key = "persona_id_or_new"
	NotPositiveID              Key = "not_positive_id"
	ConversationChannel        Key = "conversation_channel"
	TurnIDLength               Key = "turn_id_length"
	TurnIDLengthUTF8           Key = "turn_id_length_utf8"
	TurnIDReused               Key = "turn_id_reused"
	ByteLength                 Key = "byte_length"
	InvalidText                Key = "invalid_text"
	NotNull                    Key = "not_null"
	NotJSON                    Key = "not_json"
	CollectionRequired         Key = "collection_required"
	PersonaBookNoCollection    Key = "persona_book_has_no_collection"
	ListingCollection          Key = "listing_collection"
	TooManyMessages            Key = "too_many_messages"
	TooMuchText                Key = "too_much_text"
	RequestTextBudget          Key = "request_text_budget"
	TooManyDocuments           Key = "too_many_documents"
	TooManyEntries             Key = "too_many_entries"
	TooManyTags                Key = "too_many_tags"
	TooManyCollections         Key = "too_many_collections"
	CollectionsFull            Key = "collections_full"
	BatchOverScope             Key = "batch_over_scope"
	CollectionSettingsDisagree Key = "collection_settings_disagree"
	FileTooLarge               Key = "file_too_large"
	NotACard                   Key = "not_a_card"
	UnknownPromptMarker        Key = "unknown_prompt_marker"
	NotPositionKind            Key = "not_position_kind"
	DepthOnlyAtDepth           Key = "depth_only_at_depth"
	RoleOnlyAtDepth            Key = "role_only_at_depth"
	RoleDiffers                Key = "role_differs"
	OutletOnlyOutlet           Key = "outlet_only_outlet"
	OutletNameRequired         Key = "outlet_name_required"
	MatcherEntriesDiffer       Key = "matcher_entries_differ"
	MatcherOptionsDiffer       Key = "matcher_options_differ"
	MatcherBookSettingsDiffer  Key = "matcher_book_settings_differ"
	RegexTooLong               Key = "regex_too_long"
	RegexNoCompile             Key = "regex_does_not_compile"
	RegexRepeats               Key = "regex_repeats"
	RegexTooBig                Key = "regex_too_big"
	SpeakersMismatch           Key = "speakers_mismatch"
	NotBulkEdit                Key = "not_bulk_edit"
	NoReplaceField             Key = "no_replace_field"
	UndoOfUndo                 Key = "undo_of_undo"
	AlreadyUndone              Key = "already_undone"
	PastRetention              Key = "past_retention"
	UndoLaterFirst             Key = "undo_later_first"
	EntryIDTaken               Key = "entry_id_taken"
	NotAMemoryObject           Key = "not_a_memory_object"
	NotJSONLines               Key = "not_json_lines"
	MemoryIDRequired           Key = "memory_id_required"
	FileUnreadable             Key = "file_unreadable"
	FileOverLimit              Key = "file_over_limit"
	NotABackup                 Key = "not_a_backup"
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
	// The entry notices of an import (conv.STCtx.Note): each text begins
	// with the entry's 0-based index in source order.
	// ReportOutletCut is a conversion report notice: an entry's outlet name was cut to max characters.
	ReportOutletCut Key = "outlet_name_cut"
	// ReportGroupCut is a conversion report notice: an entry's inclusion group names were cut to max characters.
	ReportGroupCut Key = "group_names_cut"
	// ReportTriggerUnknown is a conversion report notice: an entry's trigger is not a generation type.
	ReportTriggerUnknown Key = "trigger_not_generation_type"
	// ReportFilterNamesCut is a conversion report notice: an entry's character filter lists more names than kept.
	ReportFilterNamesCut Key = "character_filter_names_cut"
	// ReportFilterTagsCut is a conversion report notice: an entry's character filter lists more tags than kept.
	ReportFilterTagsCut Key = "character_filter_tags_cut"
	// ReportValueClamped is a conversion report notice: an entry's numeric field (named as world info spells it) was outside its range.
	ReportValueClamped Key = "entry_value_clamped"
	// ReportLogicUnknown is a conversion report notice: an entry's selectiveLogic is not 0-3.
	ReportLogicUnknown Key = "selective_logic_unknown"
	// ReportPositionUnknown is a conversion report notice: an entry's world info position is not 0-7.
	ReportPositionUnknown Key = "position_unknown"
	// ReportScanDepthClamped is a conversion report notice: an entry's scan depth was outside its range.
	ReportScanDepthClamped Key = "scan_depth_clamped"
	// ReportStrategyUnknown is a conversion report notice: a worldbook entry's strategy.type is unknown.
	ReportStrategyUnknown Key = "worldbook_strategy_unknown"
	// ReportWorldbookPositionUnknown is a conversion report notice: a worldbook entry's position.type is unknown.
	ReportWorldbookPositionUnknown Key = "worldbook_position_unknown"
	// ReportCardDataNotObject is a conversion report notice: a card's data field is not an object.
	ReportCardDataNotObject Key = "card_data_not_object"
	// ReportCardFieldType is a conversion report notice: a card field has another JSON type (got, want: JSON type names).
	ReportCardFieldType Key = "card_field_wrong_type"
	// ReportCamelCaseOne is a conversion report notice: one bare book entry spells its fields in camelCase.
	ReportCamelCaseOne Key = "camel_case_fields_one"
	// ReportCamelCase is a conversion report notice: count bare book entries spell their fields in camelCase.
	ReportCamelCase Key = "camel_case_fields"
	// ReportPersonaDroppedOne is a conversion report notice: one entry beyond the persona limit was dropped.
	ReportPersonaDroppedOne Key = "persona_entries_dropped_one"
	// ReportPersonaDropped is a conversion report notice: count entries beyond the persona limit were dropped.
	ReportPersonaDropped Key = "persona_entries_dropped"
	// ReportBookSettingDropped is a conversion report notice: a book setting of the file was outside its range and dropped.
	ReportBookSettingDropped Key = "book_setting_dropped"
	// ReportCharxModuleIgnored is a conversion report notice: a CHARX archive's RisuAI module was ignored.
	ReportCharxModuleIgnored Key = "charx_module_ignored"
	// ReportPNGTooManyChunks is a conversion report notice: a PNG has more card text chunks than are read.
	ReportPNGTooManyChunks Key = "png_too_many_card_chunks"
	// ReportPNGDuplicateChunk is a conversion report notice: a PNG repeats a card text chunk.
	ReportPNGDuplicateChunk Key = "png_duplicate_chunk"
	// ReportPNGChunkTooLarge is a conversion report notice: a PNG card chunk decodes to more than max bytes.
	ReportPNGChunkTooLarge Key = "png_chunk_too_large"
	// ReportPNGInflateBudget is a conversion report notice: a compressed PNG card chunk was not inflated, the file's inflation budget spent.
	ReportPNGInflateBudget Key = "png_inflate_budget_spent"
	// ReportPNGChunkUnreadable is a conversion report notice: a PNG card chunk is not base64 JSON (or its compression is damaged).
	ReportPNGChunkUnreadable Key = "png_chunk_unreadable"
	// ReportPNGTruncated is a conversion report notice: a PNG ends inside a chunk after its card chunks.
	ReportPNGTruncated Key = "png_truncated_after_card"
	// ReportPNGPastEnd is a conversion report notice: a PNG chunk after the card chunks runs past the end of the file.
	ReportPNGPastEnd Key = "png_chunk_past_end"
	// ReportPNGCardBadCRC is a conversion report notice: a PNG card chunk has a bad CRC and is skipped.
	ReportPNGCardBadCRC Key = "png_card_chunk_bad_crc"
	// ReportPNGImageBadCRC is a conversion report notice: a PNG chunk other than a card chunk has a bad CRC.
	ReportPNGImageBadCRC Key = "png_image_bad_crc"
	// ReportDecoratorsNotExported is an export notice of loregate convert: an entry's decorators have no field in the target format.
	ReportDecoratorsNotExported Key = "decorators_not_exported"
	// ReportAgnaiAlwaysOnOne is an export notice of loregate convert --to agnai: one Always On entry carries loregate's marker.
	ReportAgnaiAlwaysOnOne Key = "agnai_always_on_one"
	// ReportAgnaiAlwaysOn is an export notice of loregate convert --to agnai: count Always On entries carry loregate's marker.
	ReportAgnaiAlwaysOn Key = "agnai_always_on"
	// ReportRisuMarkerUnreadable is a conversion report notice: a RisuAI entry's "loregate" member is not loregate's position marker.
	ReportRisuMarkerUnreadable Key = "risu_position_marker_unreadable"
	// ReportRisuMarkerOutOfRange is a conversion report notice: a RisuAI entry's "loregate" position is out of range.
	ReportRisuMarkerOutOfRange Key = "risu_position_out_of_range"
	// ReportFiltersNotExportedOne is an export notice of loregate convert: one entry's match flags, character filter or generation types have no field in the target format.
	ReportFiltersNotExportedOne Key = "filters_not_exported_one"
	// ReportFiltersNotExported is an export notice of loregate convert: count entries' match flags, character filters or generation types have no field in the target format.
	ReportFiltersNotExported Key = "filters_not_exported"
	// ReportRisuPositionsInMarkerOne is an export notice of loregate convert --to risu: one entry's position is kept only in loregate's marker.
	ReportRisuPositionsInMarkerOne Key = "risu_positions_in_marker_one"
	// ReportRisuPositionsInMarker is an export notice of loregate convert --to risu: count entries' positions are kept only in loregate's marker.
	ReportRisuPositionsInMarker Key = "risu_positions_in_marker"
	// ReportPositionsLostOne is an export notice of loregate convert: one entry not after the character is placed there (the format has no position field).
	ReportPositionsLostOne Key = "positions_lost_one"
	// ReportPositionsLost is an export notice of loregate convert: count entries not after the character are placed there (the format has no position field).
	ReportPositionsLost Key = "positions_lost"
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
	{DuplicateCategory, "a category named \"{name}\" already exists in this book", "já existe uma categoria chamada \"{name}\" neste livro", "ya existe una categoría llamada \"{name}\" en este libro"},
	{CategoryOtherBook, "{id} is not a category of the entry's book", "{id} não é uma categoria do livro da entrada", "{id} no es una categoría del libro de la entrada"},
	{TooManyCategories, "the book already has {count} categories, at most {max} allowed", "o livro já tem {count} categorias; o máximo é {max}", "el libro ya tiene {count} categorías; el máximo es {max}"},
	{DuplicateTag, "repeats the tag \"{value}\"", "repete a tag \"{value}\"", "repite la etiqueta \"{value}\""},
	{AtLeast, "must be at least {min}", "deve ser pelo menos {min}", "debe ser al menos {min}"},
	{UnknownSortField, "unknown sort field \"{value}\"", "campo de ordenação desconhecido: \"{value}\"", "campo de orden desconocido: \"{value}\""},
	{PositionPlacement, "{kind} places the entry {placement}, but placement is \"{value}\"", "{kind} coloca a entrada em {placement}, mas o posicionamento é \"{value}\"", "{kind} coloca la entrada en {placement}, pero la ubicación es \"{value}\""},
	{RejectedByDatabase, "rejected by the database", "recusado pelo banco de dados", "rechazado por la base de datos"},
	{NotALorebook, "this is not a lorebook file; loregate reads {formats}", "este não é um arquivo de lorebook; o loregate lê {formats}", "este no es un archivo de lorebook; loregate lee {formats}"},
	{NoLorebookInCard, "no lorebook in this card: nothing was changed", "este cartão não tem lorebook: nada foi alterado", "esta tarjeta no tiene lorebook: no se cambió nada"},
	{NoImportableEntries, "has no importable entries ({skipped} skipped): nothing was changed", "não tem entradas importáveis ({skipped} puladas): nada foi alterado", "no tiene entradas importables ({skipped} omitidas): no se cambió nada"},
	{CursorOtherOrder, "is a cursor of another orderBy ({order}); page with the orderBy it came from", "é um cursor de outro orderBy ({order}); pagine com o orderBy de onde ele veio", "es un cursor de otro orderBy ({order}); pagina con el orderBy del que vino"},
	{CursorOtherConnection, "is not a cursor of this connection", "não é um cursor desta listagem", "no es un cursor de este listado"},
	{NotAPosition, "is not a position of this orderBy ({order})", "não é uma posição deste orderBy ({order})", "no es una posición de este orderBy ({order})"},
	{Between, "must be between {min} and {max}", "deve estar entre {min} e {max}", "debe estar entre {min} y {max}"},
	{Negative, "{value} is negative", "{value} é negativo", "{value} es negativo"},
	{NotPositive, "{value} must be positive", "{value} deve ser positivo", "{value} debe ser positivo"},
	{MustBePositive, "must be > 0", "deve ser > 0", "debe ser > 0"},
	{MessageCountRange, "{value} is outside {min} (the messages sent) to {max}", "{value} está fora do intervalo de {min} (as mensagens enviadas) a {max}", "{value} está fuera del rango de {min} (los mensajes enviados) a {max}"},
	{NotUnitInterval, "must be in [0, 1)", "deve estar em [0, 1)", "debe estar en [0, 1)"},
	{RandomOutOfRange, "returned {value}, outside [0, 1)", "devolveu {value}, fora de [0, 1)", "devolvió {value}, fuera de [0, 1)"},
	{BudgetFlagsExclusive, "and --budget are exclusive: a budget counts characters or tokens", "e --budget são exclusivos: um orçamento conta caracteres ou tokens", "y --budget son excluyentes: un presupuesto cuenta caracteres o tokens"},
	{BudgetFieldsExclusive, "give budget or budgetTokens, not both", "informe budget ou budgetTokens, não os dois", "indica budget o budgetTokens, no ambos"},
	{ZeroBudget, "0 would admit nothing; give a positive budget, or a negative one for no limit", "0 não admitiria nada; informe um orçamento positivo, ou negativo para não ter limite", "0 no admitiría nada; indica un presupuesto positivo, o uno negativo para no tener límite"},
	{TokenizerRequired, "is required with a token budget", "é obrigatório com um orçamento em tokens", "es obligatorio con un presupuesto en tokens"},
	{NotPersonaLineage, "must be a persona lineage (> 0)", "deve ser uma linhagem de persona (> 0)", "debe ser un linaje de persona (> 0)"},
	{SettingsNeedPersonaLineage, "must be a persona lineage (> 0); Serverwide settings live on collections", "deve ser uma linhagem de persona (> 0); as configurações de Todo o Servidor ficam nas coleções", "debe ser un linaje de persona (> 0); los ajustes de todo el servidor están en las colecciones"},
	{NotPositiveLineage, "must be a positive lineage id", "deve ser o id positivo de uma linhagem", "debe ser el id positivo de un linaje"},
	{NullOrPositiveLineage, "must be null (Serverwide) or a positive lineage", "deve ser null (Todo o Servidor) ou uma linhagem positiva", "debe ser null (todo el servidor) o un linaje positivo"},
	{LineageMapPositive, "lineages must be > 0 (Serverwide stays Serverwide)", "as linhagens devem ser > 0 (Todo o Servidor continua Todo o Servidor)", "los linajes deben ser > 0 (todo el servidor sigue siendo todo el servidor)"},
	{LineageMapChanged, "differs from the mapping this preview was made with; preview again with the new mapping", "difere do mapeamento com que esta prévia foi feita; gere a prévia de novo com o novo mapeamento", "difiere del mapeo con el que se hizo esta vista previa; vuelve a generar la vista previa con el nuevo mapeo"},
	{LineageListedTwice, "lineage {lineage} is listed twice", "a linhagem {lineage} aparece duas vezes", "el linaje {lineage} aparece dos veces"},
	{PersonaBookConflict, "maps to lineage {lineage} like personas[{other}] but carries a different book", "é mapeada para a linhagem {lineage} como personas[{other}], mas traz outro livro", "se asigna al linaje {lineage} como personas[{other}], pero trae otro libro"},
	{PersonaOtherLineage, "must be {lineage}, the lineage persona {id} is registered under, not {requested}: a persona does not move to another book (rename it with lineage {lineage}, or register a new persona id)", "deve ser {lineage}, a linhagem em que a persona {id} está registrada, não {requested}: uma persona não muda de livro (renomeie-a com a linhagem {lineage} ou registre um novo id de persona)", "debe ser {lineage}, el linaje en el que está registrada la persona {id}, no {requested}: una persona no cambia de libro (renómbrala con el linaje {lineage} o registra un nuevo id de persona)"},
	{NotPositivePersonaID, "must be a positive persona id", "deve ser o id positivo de uma persona", "debe ser el id positivo de una persona"},
	{PersonaIDOrNew, "must be a positive persona id, or 0 for a new persona", "deve ser o id positivo de uma persona, ou 0 para uma persona nova", "debe ser el id positivo de una persona, o 0 para una persona nueva"},
	{NotPositiveID, "must be a positive id", "deve ser um id positivo", "debe ser un id positivo"},
	{ConversationChannel, "is required and must be a Discord snowflake: a conversation is a channel or thread", "é obrigatório e deve ser um id do Discord: uma conversa é um canal ou tópico", "es obligatorio y debe ser un id de Discord: una conversación es un canal o hilo"},
	{TurnIDLength, "must be 1-{max} characters, not blank", "deve ter de 1 a {max} caracteres, sem ficar em branco", "debe tener de 1 a {max} caracteres, sin quedar en blanco"},
	{TurnIDLengthUTF8, "must be 1-{max} characters of valid UTF-8", "deve ter de 1 a {max} caracteres de UTF-8 válido", "debe tener de 1 a {max} caracteres de UTF-8 válido"},
	{TurnIDReused, "was already used in this conversation for a different turn; use a new turn id", "já foi usado nesta conversa para outro turno; use um novo id de turno", "ya se usó en esta conversación para otro turno; usa un id de turno nuevo"},
	{ByteLength, "must be 1-{max} bytes long", "deve ter de 1 a {max} bytes", "debe tener de 1 a {max} bytes"},
	{InvalidText, "must be valid UTF-8 without NUL characters", "deve ser UTF-8 válido sem caracteres NUL", "debe ser UTF-8 válido sin caracteres NUL"},
	{NotNull, "must not be null", "não pode ser null", "no puede ser null"},
	{NotJSON, "is not valid JSON", "não é JSON válido", "no es JSON válido"},
	{CollectionRequired, "is required for a Serverwide book (the collection it is in)", "é obrigatório para um livro de Todo o Servidor (a coleção em que ele está)", "es obligatorio para un libro de todo el servidor (la colección en la que está)"},
	{PersonaBookNoCollection, "persona books have no collection", "livros de persona não têm coleção", "los libros de una persona no tienen colección"},
	{ListingCollection, "a Serverwide listing names one collection; a persona listing none", "uma listagem de Todo o Servidor indica uma coleção; a de uma persona, nenhuma", "un listado de todo el servidor indica una colección; el de una persona, ninguna"},
	{TooManyMessages, "{count} messages, at most {max} allowed", "{count} mensagens; o máximo é {max}", "{count} mensajes; el máximo es {max}"},
	{TooMuchText, "{size} bytes of text (messages and context), at most {max} allowed", "{size} bytes de texto (mensagens e contexto); o máximo é {max}", "{size} bytes de texto (mensajes y contexto); el máximo es {max}"},
	{RequestTextBudget, "the activations of one request carry at most {max} bytes of text together; this one would take {over} more bytes than remain", "as ativações de uma requisição levam no máximo {max} bytes de texto juntas; esta usaria {over} bytes a mais do que resta", "las activaciones de una solicitud llevan como máximo {max} bytes de texto juntas; esta usaría {over} bytes más de los que quedan"},
	{TooManyDocuments, "{count} documents, at most {max} allowed", "{count} documentos; o máximo é {max}", "{count} documentos; el máximo es {max}"},
	{TooManyEntries, "names {count} entries, at most {max} allowed", "indica {count} entradas; o máximo é {max}", "indica {count} entradas; el máximo es {max}"},
	{TooManyTags, "{count} tags, at most {max} allowed", "{count} tags; o máximo é {max}", "{count} etiquetas; el máximo es {max}"},
	{TooManyCollections, "{count} collections, at most {max} allowed", "{count} coleções; o máximo é {max}", "{count} colecciones; el máximo es {max}"},
	{CollectionsFull, "the server already has {count} collections, at most {max} allowed", "o servidor já tem {count} coleções; o máximo é {max}", "el servidor ya tiene {count} colecciones; el máximo es {max}"},
	{BatchOverScope, "{count} entries in one write: a scope holds at most {max} entries", "{count} entradas em uma gravação: um escopo comporta no máximo {max} entradas", "{count} entradas en una escritura: un ámbito admite como máximo {max} entradas"},
	{CollectionSettingsDisagree, "settings of collection \"{name}\" disagree with an earlier occurrence", "as configurações da coleção \"{name}\" divergem de uma ocorrência anterior", "los ajustes de la colección \"{name}\" no coinciden con una aparición anterior"},
	{FileTooLarge, "is larger than {max} bytes", "tem mais de {max} bytes", "tiene más de {max} bytes"},
	{NotACard, "is {format}, not a character card; import it as a lorebook instead", "é {format}, não um cartão de personagem; importe-o como lorebook", "es {format}, no una tarjeta de personaje; impórtalo como lorebook"},
	{UnknownPromptMarker, "\"{value}\" is not a SillyTavern prompt identifier ({allowed})", "\"{value}\" não é um identificador de prompt do SillyTavern ({allowed})", "\"{value}\" no es un identificador de prompt de SillyTavern ({allowed})"},
	{NotPositionKind, "kind \"{value}\" is not a position kind", "o tipo \"{value}\" não é um tipo de posição", "el tipo \"{value}\" no es un tipo de posición"},
	{DepthOnlyAtDepth, "depth is only for AT_DEPTH, not {kind}", "a profundidade só vale para posições em profundidade, não para {kind}", "la profundidad solo vale para posiciones en profundidad, no para {kind}"},
	{RoleOnlyAtDepth, "role is only for AT_DEPTH, not {kind}", "o papel só vale para posições em profundidade, não para {kind}", "el rol solo vale para posiciones en profundidad, no para {kind}"},
	{RoleDiffers, "role {role} differs from the entry's role {entryRole}", "o papel {role} difere do papel da entrada, {entryRole}", "el rol {role} difiere del rol de la entrada, {entryRole}"},
	{OutletOnlyOutlet, "outlet is only for OUTLET, not {kind}", "a saída só vale para posições de saída nomeada, não para {kind}", "la salida solo vale para posiciones de salida con nombre, no para {kind}"},
	{OutletNameRequired, "OUTLET needs an outlet name", "uma posição de saída nomeada precisa do nome da saída", "una posición de salida con nombre necesita el nombre de la salida"},
	{MatcherEntriesDiffer, "are not the entries the matcher was compiled from", "não são as entradas a partir das quais o matcher foi compilado", "no son las entradas a partir de las cuales se compiló el matcher"},
	{MatcherOptionsDiffer, "match options differ from the compiled matcher's", "as opções de correspondência diferem das do matcher compilado", "las opciones de coincidencia difieren de las del matcher compilado"},
	{MatcherBookSettingsDiffer, "book case or whole-word settings differ from the compiled matcher's", "as configurações de maiúsculas ou palavra inteira dos livros diferem das do matcher compilado", "los ajustes de mayúsculas o palabra completa de los libros difieren de los del matcher compilado"},
	{RegexTooLong, "regex longer than {max} bytes", "regex com mais de {max} bytes", "regex de más de {max} bytes"},
	{RegexNoCompile, "regex does not compile: {detail}", "a regex não compila: {detail}", "la regex no compila: {detail}"},
	{RegexRepeats, "regex repeats {count} times, at most {max} allowed", "a regex repete {count} vezes; o máximo é {max}", "la regex repite {count} veces; el máximo es {max}"},
	{RegexTooBig, "regex compiles to about {count} instructions, at most {max} allowed", "a regex compila para cerca de {count} instruções; o máximo é {max}", "la regex compila a unas {count} instrucciones; el máximo es {max}"},
	{SpeakersMismatch, "{count} speaker names for {messages} messages", "{count} nomes de falantes para {messages} mensagens", "{count} nombres de hablantes para {messages} mensajes"},
	{NotBulkEdit, "is not a bulk edit", "não é uma edição em massa", "no es una edición masiva"},
	{NoReplaceField, "names no field (TITLE, KEYS, CONTENT)", "não indica nenhum campo (título, chaves, conteúdo)", "no indica ningún campo (título, claves, contenido)"},
	{UndoOfUndo, "{id} is itself an undo and cannot be undone", "{id} já é um desfazer e não pode ser desfeito", "{id} ya es un deshacer y no se puede deshacer"},
	{AlreadyUndone, "{id} was already undone (by {by})", "{id} já foi desfeito (por {by})", "{id} ya se deshizo (por {by})"},
	{PastRetention, "{id} is older than the snapshot retention: what it replaced is no longer kept", "{id} é mais antigo que a retenção de instantâneos: o que ele substituiu não é mais guardado", "{id} es más antiguo que la retención de instantáneas: lo que reemplazó ya no se guarda"},
	{UndoLaterFirst, "{later} replaced or removed entries that {id} created: undo {later} first", "{later} substituiu ou removeu entradas que {id} criou: desfaça {later} primeiro", "{later} reemplazó o eliminó entradas que {id} creó: deshaz {later} primero"},
	{EntryIDTaken, "entry id {entry}, which {id} replaced or removed, is occupied again: nothing was changed", "o id de entrada {entry}, que {id} substituiu ou removeu, está ocupado de novo: nada foi alterado", "el id de entrada {entry}, que {id} reemplazó o eliminó, está ocupado de nuevo: no se cambió nada"},
	{NotAMemoryObject, "is not a memory object: {detail}", "não é um objeto de memória: {detail}", "no es un objeto de memoria: {detail}"},
	{NotJSONLines, "cannot be read as JSON lines: {detail}", "não pode ser lido como linhas JSON: {detail}", "no se puede leer como líneas JSON: {detail}"},
	{MemoryIDRequired, "is required (1-200 characters): a rerun skips recorded ids", "é obrigatório (1-200 caracteres): uma nova execução pula os ids registrados", "es obligatorio (1-200 caracteres): una nueva ejecución omite los ids registrados"},
	{FileUnreadable, "cannot be read: {detail}", "não pode ser lido: {detail}", "no se puede leer: {detail}"},
	{FileOverLimit, "is over its size limit: {detail}", "passa do limite de tamanho: {detail}", "supera su límite de tamaño: {detail}"},
	{NotABackup, "is not a loregate workspace backup ({detail})", "não é um backup de workspace do loregate ({detail})", "no es una copia de seguridad de workspace de loregate ({detail})"},

	// Mutation-level reasons (MutationError.reason of the other codes).
	{ScopeFull, "the scope would hold {total} entries, {over} over the limit of {limit}", "o escopo ficaria com {total} entradas, {over} acima do limite de {limit}", "el ámbito tendría {total} entradas, {over} por encima del límite de {limit}"},
	{NotFound, "{argument} {id} was not found: it does not exist, was deleted, or belongs to another server or scope", "{argument} {id} não foi encontrado: não existe, foi excluído ou pertence a outro servidor ou escopo", "{argument} {id} no se encontró: no existe, se eliminó o pertenece a otro servidor o ámbito"},
	{UnregisteredLineage, "lineage {lineage} is not registered on the server (no persona reads it and it holds no lore): only Serverwide lore was activated", "a linhagem {lineage} não está registrada no servidor (nenhuma persona a usa e ela não tem lore): só a lore de Todo o Servidor foi ativada", "el linaje {lineage} no está registrado en el servidor (ninguna persona lo usa y no tiene lore): solo se activó la lore de todo el servidor"},
	{UnknownLineage, "lineage {id} is not registered on the server", "a linhagem {id} não está registrada no servidor", "el linaje {id} no está registrado en el servidor"},
	{DuplicateName, "a collection named \"{name}\" already exists on this server", "já existe uma coleção chamada \"{name}\" neste servidor", "ya existe una colección llamada \"{name}\" en este servidor"},
	{StaleTarget, "the collection was renamed or deleted after this write was prepared; nothing was written", "a coleção foi renomeada ou excluída depois que esta gravação foi preparada; nada foi gravado", "la colección se renombró o eliminó después de preparar esta escritura; no se guardó nada"},
	{StaleVersion, "{target} was changed after you read it; nothing was written, read it again", "{target} foi alterado depois que você o leu; nada foi gravado, leia de novo", "{target} cambió después de que lo leyeras; no se guardó nada, vuelve a leerlo"},
	{Unavailable, "the lore store is unavailable; nothing was written, try again", "o armazenamento de lore está indisponível; nada foi gravado, tente novamente", "el almacén de lore no está disponible; no se guardó nada, inténtalo de nuevo"},
	{EmbeddingsNotConfigured, "this deployment has no embeddings provider, so there is nothing to reindex: vectorized entries are ranked by the built-in lexical ranker (the operator sets LOREGATE_EMBEDDINGS_URL and LOREGATE_EMBEDDINGS_MODEL to use one)",
		"esta instalação não tem provedor de embeddings, então não há nada para reindexar: as entradas vetorizadas são ordenadas pelo ranqueador léxico embutido (o operador define LOREGATE_EMBEDDINGS_URL e LOREGATE_EMBEDDINGS_MODEL para usar um)",
		"esta instalación no tiene proveedor de embeddings, así que no hay nada que reindexar: las entradas vectorizadas se ordenan con el clasificador léxico integrado (el operador define LOREGATE_EMBEDDINGS_URL y LOREGATE_EMBEDDINGS_MODEL para usar uno)"},

	// Permission failures (extensions.reason of a FORBIDDEN GraphQL error).
	{ForbiddenLoreWrite, "writing this server's lore needs the Manage Server permission or the server's lore editor role",
		"gravar a lore deste servidor precisa da permissão Gerenciar Servidor ou do cargo de editor de lore do servidor",
		"escribir la lore de este servidor necesita el permiso Gestionar servidor o el rol de editor de lore del servidor"},
	{ForbiddenSettings, "this needs the Manage Server permission (a lore editor writes entries, books and imports, not server settings, personas, backups or wipes)",
		"isto precisa da permissão Gerenciar Servidor (quem edita lore grava entradas, livros e importações, não as configurações do servidor, personas, backups ou limpezas)",
		"esto necesita el permiso Gestionar servidor (un editor de lore escribe entradas, libros e importaciones, no los ajustes del servidor, personas, copias de seguridad ni vaciados)"},
	{ForbiddenService, "only a service key may do this (the server life cycle is the bot's and the operators')",
		"só uma chave de serviço pode fazer isto (o ciclo de vida do servidor é do bot e dos operadores)",
		"solo una clave de servicio puede hacer esto (el ciclo de vida del servidor es del bot y de los operadores)"},
	{ForbiddenExport, "exporting this server's lore needs the Manage Server permission or the server's lore editor role",
		"exportar a lore deste servidor precisa da permissão Gerenciar Servidor ou do cargo de editor de lore do servidor",
		"exportar la lore de este servidor necesita el permiso Gestionar servidor o el rol de editor de lore del servidor"},
	{ForbiddenManage, "this needs the Manage Server permission (the lore editor role does not grant it)",
		"isto precisa da permissão Gerenciar Servidor (o cargo de editor de lore não a concede)",
		"esto necesita el permiso Gestionar servidor (el rol de editor de lore no lo concede)"},

	// A repeated idempotency key refused (extensions.reason of an
	// IDEMPOTENCY_KEY_REUSED GraphQL error).
	{IdempotencyKeyReused, "this idempotency key was already used on this server by another operation or caller in the last 24 hours; a new write needs a new key",
		"esta chave de idempotência já foi usada neste servidor por outra operação ou por outra pessoa nas últimas 24 horas; uma nova gravação precisa de uma nova chave",
		"esta clave de idempotencia ya se usó en este servidor en otra operación o por otra persona en las últimas 24 horas; una nueva escritura necesita una nueva clave"},
	{IdempotencyInputDiffers, "this idempotency key was already used in the last 24 hours for the same operation with other input; nothing was written: a new write needs a new key",
		"esta chave de idempotência já foi usada nas últimas 24 horas na mesma operação com outros dados; nada foi gravado: uma nova gravação precisa de uma nova chave",
		"esta clave de idempotencia ya se usó en las últimas 24 horas en la misma operación con otros datos; no se guardó nada: una nueva escritura necesita una nueva clave"},

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
	{ReportOutletCut, "entry {index}: outlet name longer than {max} characters; cut",
		"entrada {index}: nome do outlet com mais de {max} caracteres; cortado",
		"entrada {index}: nombre del outlet de más de {max} caracteres; recortado"},
	{ReportGroupCut, "entry {index}: group names longer than {max} characters; cut",
		"entrada {index}: nomes de grupo com mais de {max} caracteres; cortados",
		"entrada {index}: nombres de grupo de más de {max} caracteres; recortados"},
	{ReportTriggerUnknown, "entry {index}: trigger {trigger} is not a generation type; ignored",
		"entrada {index}: o gatilho {trigger} não é um tipo de geração; ignorado",
		"entrada {index}: el disparador {trigger} no es un tipo de generación; ignorado"},
	{ReportFilterNamesCut, "entry {index}: character filter has {count} names, at most {max} kept",
		"entrada {index}: o filtro de personagens tem {count} nomes, no máximo {max} mantidos",
		"entrada {index}: el filtro de personajes tiene {count} nombres, se conservan como máximo {max}"},
	{ReportFilterTagsCut, "entry {index}: character filter has {count} tags, at most {max} kept",
		"entrada {index}: o filtro de personagens tem {count} tags, no máximo {max} mantidas",
		"entrada {index}: el filtro de personajes tiene {count} etiquetas, se conservan como máximo {max}"},
	{ReportValueClamped, "entry {index}: {field} {value} is outside {min}-{max}; clamped",
		"entrada {index}: {field} {value} está fora do intervalo {min}-{max}; ajustado",
		"entrada {index}: {field} {value} está fuera del rango {min}-{max}; ajustado"},
	{ReportLogicUnknown, "entry {index}: selectiveLogic {value} is not 0-3; imported as AND_ANY",
		"entrada {index}: selectiveLogic {value} não é 0-3; importada como AND_ANY",
		"entrada {index}: selectiveLogic {value} no es 0-3; importada como AND_ANY"},
	{ReportPositionUnknown, "entry {index}: position {value} is not 0-7; imported as after the character",
		"entrada {index}: a posição {value} não é 0-7; importada como depois do personagem",
		"entrada {index}: la posición {value} no es 0-7; importada como después del personaje"},
	{ReportScanDepthClamped, "entry {index}: scan depth {value} is outside {min}-{max}; clamped",
		"entrada {index}: a profundidade de varredura {value} está fora do intervalo {min}-{max}; ajustada",
		"entrada {index}: la profundidad de escaneo {value} está fuera del rango {min}-{max}; ajustada"},
	{ReportStrategyUnknown, "entry {index}: strategy.type {value} is not constant, selective or vectorized; read as selective",
		"entrada {index}: strategy.type {value} não é constant, selective nem vectorized; lida como selective",
		"entrada {index}: strategy.type {value} no es constant, selective ni vectorized; leída como selective"},
	{ReportWorldbookPositionUnknown, "entry {index}: position.type {value} is not a worldbook position; read as after_character_definition",
		"entrada {index}: position.type {value} não é uma posição de worldbook; lida como after_character_definition",
		"entrada {index}: position.type {value} no es una posición de worldbook; leída como after_character_definition"},
	{ReportCardDataNotObject, "card field data is not an object",
		"o campo data do cartão não é um objeto",
		"el campo data de la tarjeta no es un objeto"},
	{ReportCardFieldType, "card field {field} is a {got}, expected a {want}; ignored",
		"o campo {field} do cartão é do tipo JSON {got}, esperado {want}; ignorado",
		"el campo {field} de la tarjeta es del tipo JSON {got}, se esperaba {want}; ignorado"},
	{ReportCamelCaseOne, "1 entry spells fields in camelCase (insertionOrder, secondaryKeys, caseSensitive); read as the card fields",
		"1 entrada escreve campos em camelCase (insertionOrder, secondaryKeys, caseSensitive); lidos como os campos do cartão",
		"1 entrada escribe campos en camelCase (insertionOrder, secondaryKeys, caseSensitive); leídos como los campos de la tarjeta"},
	{ReportCamelCase, "{count} entries spell fields in camelCase (insertionOrder, secondaryKeys, caseSensitive); read as the card fields",
		"{count} entradas escrevem campos em camelCase (insertionOrder, secondaryKeys, caseSensitive); lidos como os campos do cartão",
		"{count} entradas escriben campos en camelCase (insertionOrder, secondaryKeys, caseSensitive); leídos como los campos de la tarjeta"},
	{ReportPersonaDroppedOne, "persona books hold {max} entries; 1 later entry was dropped",
		"livros de persona comportam {max} entradas; 1 entrada posterior foi descartada",
		"los libros de persona admiten {max} entradas; se descartó 1 entrada posterior"},
	{ReportPersonaDropped, "persona books hold {max} entries; {count} later entries were dropped",
		"livros de persona comportam {max} entradas; {count} entradas posteriores foram descartadas",
		"los libros de persona admiten {max} entradas; se descartaron {count} entradas posteriores"},
	{ReportBookSettingDropped, "book setting {field} {value} is outside {min}-{max}; dropped",
		"a configuração de livro {field} {value} está fora do intervalo {min}-{max}; descartada",
		"el ajuste de libro {field} {value} está fuera del rango {min}-{max}; descartado"},
	{ReportCharxModuleIgnored, "module.risum (RisuAI module with scripts) ignored; the lorebook comes from card.json",
		"module.risum (módulo do RisuAI com scripts) ignorado; o lorebook vem de card.json",
		"module.risum (módulo de RisuAI con scripts) ignorado; el lorebook viene de card.json"},
	{ReportPNGTooManyChunks, "{count} card text chunks; only the first {max} are read",
		"{count} chunks de texto de cartão; só os primeiros {max} são lidos",
		"{count} chunks de texto de tarjeta; solo se leen los primeros {max}"},
	{ReportPNGDuplicateChunk, "duplicate {keyword} chunk {chunk} ignored; the first valid one is used",
		"chunk {keyword} {chunk} duplicado ignorado; o primeiro válido é usado",
		"chunk {keyword} {chunk} duplicado ignorado; se usa el primero válido"},
	{ReportPNGChunkTooLarge, "{keyword} chunk {chunk} is unusable (card text is too large: over {max} bytes); falling back",
		"o chunk {keyword} {chunk} é inutilizável (texto do cartão grande demais: mais de {max} bytes); usando o seguinte",
		"el chunk {keyword} {chunk} no se puede usar (texto de la tarjeta demasiado grande: más de {max} bytes); se usa el siguiente"},
	{ReportPNGInflateBudget, "{keyword} chunk {chunk} is unusable (the file's inflation budget is spent); falling back",
		"o chunk {keyword} {chunk} é inutilizável (o limite de descompressão do arquivo se esgotou); usando o seguinte",
		"el chunk {keyword} {chunk} no se puede usar (se agotó el límite de descompresión del archivo); se usa el siguiente"},
	{ReportPNGChunkUnreadable, "{keyword} chunk {chunk} is unusable (not base64 JSON, or damaged compression); falling back",
		"o chunk {keyword} {chunk} é inutilizável (não é JSON em base64, ou a compressão está danificada); usando o seguinte",
		"el chunk {keyword} {chunk} no se puede usar (no es JSON en base64, o la compresión está dañada); se usa el siguiente"},
	{ReportPNGTruncated, "png: chunk {chunk} is truncated (no IEND); the card chunks before it are read",
		"png: o chunk {chunk} está truncado (sem IEND); os chunks de cartão anteriores são lidos",
		"png: el chunk {chunk} está truncado (sin IEND); se leen los chunks de tarjeta anteriores"},
	{ReportPNGPastEnd, "png: chunk {chunk} ({type}) length {length} runs past the end of the file; the card chunks before it are read",
		"png: o chunk {chunk} ({type}) de tamanho {length} passa do fim do arquivo; os chunks de cartão anteriores são lidos",
		"png: el chunk {chunk} ({type}) de longitud {length} pasa del final del archivo; se leen los chunks de tarjeta anteriores"},
	{ReportPNGCardBadCRC, "png: chunk {chunk} ({type}) has a bad CRC; skipped",
		"png: o chunk {chunk} ({type}) tem um CRC inválido; ignorado",
		"png: el chunk {chunk} ({type}) tiene un CRC no válido; omitido"},
	{ReportPNGImageBadCRC, "png: chunk {chunk} ({type}) has a bad CRC (damaged image data); the card is read anyway",
		"png: o chunk {chunk} ({type}) tem um CRC inválido (dados de imagem danificados); o cartão é lido mesmo assim",
		"png: el chunk {chunk} ({type}) tiene un CRC no válido (datos de imagen dañados); la tarjeta se lee igualmente"},
	{ReportDecoratorsNotExported, "entry {index} {title}: {decorators} not carried by the export (no such field)",
		"entrada {index} {title}: {decorators} não levados pela exportação (não há esse campo)",
		"entrada {index} {title}: {decorators} no se llevan en la exportación (no existe ese campo)"},
	{ReportAgnaiAlwaysOnOne, "1 entry is Always On: Agnai has no such setting, so the export marks it with the marker \"loregate\" (constant: true), which loregate reads back as Always On; Agnai itself will not insert it unless a keyword matches",
		"1 entrada é Sempre Ativa: o Agnai não tem essa configuração, então a exportação a marca com o marcador \"loregate\" (constant: true), que o loregate lê de volta como Sempre Ativa; o próprio Agnai não a insere a menos que uma palavra-chave combine",
		"1 entrada es Siempre Activa: Agnai no tiene ese ajuste, así que la exportación la marca con el marcador \"loregate\" (constant: true), que loregate vuelve a leer como Siempre Activa; Agnai no la insertará a menos que coincida una palabra clave"},
	{ReportRisuMarkerUnreadable, "entry {index}: \"loregate\" member {value} is not loregate's position marker; ignored",
		"entrada {index}: o membro \"loregate\" {value} não é o marcador de posição do loregate; ignorado",
		"entrada {index}: el miembro \"loregate\" {value} no es el marcador de posición de loregate; ignorado"},
	{ReportRisuMarkerOutOfRange, "entry {index}: \"loregate\" position {value} is out of range; ignored",
		"entrada {index}: a posição \"loregate\" {value} está fora do intervalo; ignorada",
		"entrada {index}: la posición \"loregate\" {value} está fuera de rango; ignorada"},
	{ReportFiltersNotExportedOne, "1 entry has match flags, a character filter or generation types, which {format} has no field for: not carried by the export",
		"1 entrada tem indicadores de correspondência, um filtro de personagens ou tipos de geração, para os quais o {format} não tem campo: não levados pela exportação",
		"1 entrada tiene indicadores de coincidencia, un filtro de personajes o tipos de generación, para los que {format} no tiene campo: no se llevan en la exportación"},
	{ReportFiltersNotExported, "{count} entries have match flags, a character filter or generation types, which {format} has no field for: not carried by the export",
		"{count} entradas têm indicadores de correspondência, um filtro de personagens ou tipos de geração, para os quais o {format} não tem campo: não levados pela exportação",
		"{count} entradas tienen indicadores de coincidencia, un filtro de personajes o tipos de generación, para los que {format} no tiene campo: no se llevan en la exportación"},
	{ReportRisuPositionsInMarkerOne, "1 entry is placed around the author's note, around the example messages or in an outlet, which RisuAI has no decorator for: the export keeps the position in the \"loregate\" member, which loregate reads back; RisuAI itself places such an entry after the character",
		"1 entrada fica em volta da nota do autor, em volta das mensagens de exemplo ou num outlet, para o que o RisuAI não tem decorador: a exportação guarda a posição no membro \"loregate\", que o loregate lê de volta; o próprio RisuAI põe essa entrada depois do personagem",
		"1 entrada va alrededor de la nota del autor, alrededor de los mensajes de ejemplo o en un outlet, para lo que RisuAI no tiene decorador: la exportación guarda la posición en el miembro \"loregate\", que loregate vuelve a leer; el propio RisuAI coloca esa entrada después del personaje"},
	{ReportRisuPositionsInMarker, "{count} entries are placed around the author's note, around the example messages or in an outlet, which RisuAI has no decorator for: the export keeps the position in the \"loregate\" member, which loregate reads back; RisuAI itself places such an entry after the character",
		"{count} entradas ficam em volta da nota do autor, em volta das mensagens de exemplo ou num outlet, para o que o RisuAI não tem decorador: a exportação guarda a posição no membro \"loregate\", que o loregate lê de volta; o próprio RisuAI põe essa entrada depois do personagem",
		"{count} entradas van alrededor de la nota del autor, alrededor de los mensajes de ejemplo o en un outlet, para lo que RisuAI no tiene decorador: la exportación guarda la posición en el miembro \"loregate\", que loregate vuelve a leer; el propio RisuAI coloca esa entrada después del personaje"},
	{ReportPositionsLostOne, "1 entry is not after the character, and {format} has no position field: the export places it after the character",
		"1 entrada não está depois do personagem, e o {format} não tem campo de posição: a exportação a põe depois do personagem",
		"1 entrada no está después del personaje, y {format} no tiene campo de posición: la exportación la coloca después del personaje"},
	{ReportPositionsLost, "{count} entries are not after the character, and {format} has no position field: the export places them after the character",
		"{count} entradas não estão depois do personagem, e o {format} não tem campo de posição: a exportação as põe depois do personagem",
		"{count} entradas no están después del personaje, y {format} no tiene campo de posición: la exportación las coloca después del personaje"},
	{ReportAgnaiAlwaysOn, "{count} entries are Always On: Agnai has no such setting, so the export marks them with the marker \"loregate\" (constant: true), which loregate reads back as Always On; Agnai itself will not insert them unless a keyword matches",
		"{count} entradas são Sempre Ativas: o Agnai não tem essa configuração, então a exportação as marca com o marcador \"loregate\" (constant: true), que o loregate lê de volta como Sempre Ativas; o próprio Agnai não as insere a menos que uma palavra-chave combine",
		"{count} entradas son Siempre Activas: Agnai no tiene ese ajuste, así que la exportación las marca con el marcador \"loregate\" (constant: true), que loregate vuelve a leer como Siempre Activas; Agnai no las insertará a menos que coincida una palabra clave"},

	// Trace verdicts (TraceItem.reason; the keys are lore/activation's
	// verdict names). Params: the entry's pass, and the numbers and names
	// of the verdict (activation.TraceItem.Reason).
	{"admitted", "entered the prompt", "entrou no prompt", "entró en el prompt"},
	{"disabled", "the entry is disabled", "a entrada está desativada", "la entrada está desactivada"},
	{"gated_server", "the entry belongs to another server", "a entrada pertence a outro servidor", "la entrada pertenece a otro servidor"},
	{"gated_lineage", "the entry belongs to persona lineage {lineage}, not the active one", "a entrada pertence à linhagem de persona {lineage}, não à ativa", "la entrada pertenece al linaje de persona {lineage}, no al activo"},
	{"gated_collection", "its collection \"{collection}\" is disabled or no longer exists", "sua coleção \"{collection}\" está desativada ou não existe mais", "su colección \"{collection}\" está desactivada o ya no existe"},
	{"gated_category", "its category \"{category}\" is disabled", "sua categoria \"{category}\" está desativada", "su categoría \"{category}\" está desactivada"},
	{"gated_channel", "the entry is not active in this channel", "a entrada não está ativa neste canal", "la entrada no está activa en este canal"},
	{"no_key_match", "no key matched the scanned messages", "nenhuma chave correspondeu às mensagens pesquisadas", "ninguna clave coincidió con los mensajes revisados"},
	{"secondary_logic_failed", "the secondary keys did not satisfy its logic", "as chaves secundárias não satisfizeram a lógica", "las claves secundarias no cumplieron su lógica"},
	{"chance_failed", "the chance roll failed (chance {chance}%)", "a rolagem de chance falhou (chance de {chance}%)", "la tirada de probabilidad falló (probabilidad {chance}%)"},
	{"over_budget", "it did not fit in the remaining budget (priority {priority})", "não coube no orçamento restante (prioridade {priority})", "no cupo en el presupuesto restante (prioridad {priority})"},
	{"over_budget_always_on", "it did not fit in the remaining budget: Always On entries took {alwaysOn} of {limit} first (priority {priority})",
		"não coube no orçamento restante: entradas Sempre Ativas ocuparam {alwaysOn} de {limit} antes (prioridade {priority})",
		"no cupo en el presupuesto restante: las entradas Siempre Activas ocuparon {alwaysOn} de {limit} antes (prioridad {priority})"},
	{"over_budget_keyword_share", "it did not fit in the budget left to keyword and Always On entries: {held} of {limit} is held for similarity matches (priority {priority})",
		"não coube no orçamento que resta às entradas por palavra-chave e Sempre Ativas: {held} de {limit} estão reservados para correspondências por semelhança (prioridade {priority})",
		"no cupo en el presupuesto que queda a las entradas por palabra clave y Siempre Activas: {held} de {limit} están reservados para coincidencias por similitud (prioridad {priority})"},
	{"over_budget_semantic_share", "it did not fit in what the budget leaves for similarity matches ({held} of {limit} held for them; priority {priority})",
		"não coube no que o orçamento deixa para correspondências por semelhança ({held} de {limit} reservados para elas; prioridade {priority})",
		"no cupo en lo que el presupuesto deja para coincidencias por similitud ({held} de {limit} reservados para ellas; prioridad {priority})"},
	{"group_lost", "another entry won its inclusion group \"{group}\"", "outra entrada venceu seu grupo de inclusão \"{group}\"", "otra entrada ganó su grupo de inclusión \"{group}\""},
	{"excluded_from_recursion", "only recursion text matched and the entry is excluded from recursion", "só o texto de recursão correspondeu e a entrada está excluída da recursão", "solo coincidió texto de recursión y la entrada está excluida de la recursión"},
	{"delayed_until_recursion", "it waits for recursion level {level}, which this turn did not reach", "espera o nível de recursão {level}, que este turno não alcançou", "espera el nivel de recursión {level}, que este turno no alcanzó"},
	{"decorator_blocked", "the decorator line {decorator} blocked it", "a linha de decorador {decorator} a bloqueou", "la línea de decorador {decorator} la bloqueó"},
	{"cooldown", "its cooldown of {cooldown} messages is still running", "seu tempo de espera de {cooldown} mensagens ainda está correndo", "su enfriamiento de {cooldown} mensajes sigue en curso"},
	{"delayed", "the conversation has fewer messages than its delay of {delay}", "a conversa tem menos mensagens que seu atraso de {delay}", "la conversación tiene menos mensajes que su retraso de {delay}"},
	{"filtered_character", "its character filter does not admit this character", "seu filtro de personagem não admite este personagem", "su filtro de personaje no admite a este personaje"},
	{"filtered_generation_type", "it fires only on the generation types {allowed}, not this one", "só dispara nos tipos de geração {allowed}, não neste", "solo se activa en los tipos de generación {allowed}, no en este"},
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

// Notice is a warning with its reason key and params (an import or export
// report's, docs/api.md "Reason keys"): clients render it in the member's
// language with Text.
type Notice struct {
	Reason Key            `json:"reason"`
	Params map[string]any `json:"params"`
}

// Text renders n in the language of tag (Text of its key and params).
func (n Notice) Text(tag language.Tag) string { return Text(tag, n.Reason, n.Params) }

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
