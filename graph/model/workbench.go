package model

import "time"

// EntryRevision is one recorded state of an entry (graph/revision.graphqls).
// The embedded Entry carries the state's fields, so the revision exposes
// them directly and as entry; its own ID is the revision's.
type EntryRevision struct {
	Entry
	ID            string       `json:"id"`
	EntryID       string       `json:"entryId"`
	Kind          RevisionKind `json:"kind"`
	By            string       `json:"by"`
	Deleted       bool         `json:"deleted"`
	ChangedFields []string     `json:"changedFields"`
	// At is when the write committed.
	At time.Time `json:"at"`
}

// SetError records why the mutation failed (see payload.go).
func (p *MoveEntriesPayload) SetError(e *MutationError) { p.Error = e }

// SetError records why the mutation failed.
func (p *BulkEntriesPayload) SetError(e *MutationError) { p.Error = e }

// SetError records why the mutation failed.
func (p *ReplaceInEntriesPayload) SetError(e *MutationError) { p.Error = e }

// SetError records why the mutation failed.
func (p *ProposalPayload) SetError(e *MutationError) { p.Error = e }

// SetError records why the mutation failed.
func (p *WorkbenchSettingsPayload) SetError(e *MutationError) { p.Error = e }
