package client

// Op names one operation of operations/*.graphql (its operation name).
// TestEveryOp checks that every Op constant has its document and every
// document's operation its constant.
type Op string

// The operations, by file: servers.graphql, transfer.graphql,
// activation.graphql, workbench.graphql.
const (
	OpServer                    Op = "Server"
	OpViewerServers             Op = "ViewerServers"
	OpServerChannels            Op = "ServerChannels"
	OpServerAccess              Op = "ServerAccess"
	OpViewerLoreEditorRoles     Op = "ViewerLoreEditorRoles"
	OpUpsertServer              Op = "UpsertServer"
	OpMarkServerLeft            Op = "MarkServerLeft"
	OpReconcileServers          Op = "ReconcileServers"
	OpUpdateServerSettings      Op = "UpdateServerSettings"
	OpUpsertPersona             Op = "UpsertPersona"
	OpRemovePersona             Op = "RemovePersona"
	OpPanelCollectionEntries    Op = "PanelCollectionEntries"
	OpPanelPersonaEntries       Op = "PanelPersonaEntries"
	OpCollectionEntriesPage     Op = "CollectionEntriesPage"
	OpPersonaEntriesPage        Op = "PersonaEntriesPage"
	OpEntry                     Op = "Entry"
	OpCreateCollection          Op = "CreateCollection"
	OpRenameCollection          Op = "RenameCollection"
	OpDeleteCollection          Op = "DeleteCollection"
	OpSetCollectionEnabled      Op = "SetCollectionEnabled"
	OpSetCollectionChannels     Op = "SetCollectionChannels"
	OpUpdateCollectionSettings  Op = "UpdateCollectionSettings"
	OpUpdatePersonaBookSettings Op = "UpdatePersonaBookSettings"
	OpCreateEntry               Op = "CreateEntry"
	OpUpdateEntry               Op = "UpdateEntry"
	OpDeleteEntry               Op = "DeleteEntry"
	OpSetEntryEnabled           Op = "SetEntryEnabled"
	OpExportLorebook            Op = "ExportLorebook"
	OpPreviewImport             Op = "PreviewImport"
	OpImportLorebook            Op = "ImportLorebook"
	OpImportPersonaCard         Op = "ImportPersonaCard"
	OpJob                       Op = "Job"
	OpJobState                  Op = "JobState"
	OpJobArtifact               Op = "JobArtifact"
	OpExportWorkspaceBackup     Op = "ExportWorkspaceBackup"
	OpPreviewWorkspaceBackup    Op = "PreviewWorkspaceBackup"
	OpImportWorkspaceBackup     Op = "ImportWorkspaceBackup"
	OpImportHistory             Op = "ImportHistory"
	OpUndoImport                Op = "UndoImport"
	OpAssemblePrompt            Op = "AssemblePrompt"
	OpActivationLog             Op = "ActivationLog"
	OpEntryNames                Op = "EntryNames"
	// workbench.graphql
	OpEntryRevisions       Op = "EntryRevisions"
	OpRestoreEntryRevision Op = "RestoreEntryRevision"
	OpProposals            Op = "Proposals"
	OpProposeEntryChange   Op = "ProposeEntryChange"
	OpReviewProposal       Op = "ReviewProposal"
	OpDeletedEntries       Op = "DeletedEntries"
	OpSetEntriesEnabled    Op = "SetEntriesEnabled"
	OpDeleteEntries        Op = "DeleteEntries"
	OpMoveEntries          Op = "MoveEntries"
)
