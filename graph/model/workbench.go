package model

import (
	"strconv"
	"strings"
	"time"
)

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

// EntryFieldText is one field of e (an Entry field name, as in
// EntryRevision.changedFields and Proposal.changedFields) as text for a
// person to compare: title, content, keys and secondaryKeys (comma
// separated), constant and enabled; "…" for the other fields, "" for a
// nil entry. The Discord panel and the dashboard show proposals with it.
func EntryFieldText(e *Entry, field string) string {
	if e == nil {
		return ""
	}
	switch field {
	case "title":
		return e.Title
	case "content":
		return e.Content
	case "keys":
		return strings.Join(e.Keys, ", ")
	case "secondaryKeys":
		return strings.Join(e.SecondaryKeys, ", ")
	case "constant":
		return strconv.FormatBool(e.Constant)
	case "enabled":
		return strconv.FormatBool(e.Enabled)
	}
	return "…"
}
