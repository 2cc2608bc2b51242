package model

// Every mutation payload carries a typed MutationError when the mutation
// failed (nothing was written then). SetError lets one helper in package
// graph build the failed payload of any mutation; a new payload type gets
// its SetError here.

// SetError records why the mutation failed.
func (p *ActivateTurnPayload) SetError(e *MutationError) { p.Error = e }

// SetError records why the mutation failed.
func (p *BackupPreviewPayload) SetError(e *MutationError) { p.Error = e }

// SetError records why the mutation failed.
func (p *CollectionPayload) SetError(e *MutationError) { p.Error = e }

// SetError records why the mutation failed.
func (p *DeletePayload) SetError(e *MutationError) { p.Error = e }

// SetError records why the mutation failed.
func (p *EntryPayload) SetError(e *MutationError) { p.Error = e }

// SetError records why the mutation failed.
func (p *ExportPayload) SetError(e *MutationError) { p.Error = e }

// SetError records why the mutation failed.
func (p *ImportPayload) SetError(e *MutationError) { p.Error = e }

// SetError records why the mutation failed.
func (p *ImportPreviewPayload) SetError(e *MutationError) { p.Error = e }

// SetError records why the mutation failed.
func (p *JobPayload) SetError(e *MutationError) { p.Error = e }

// SetError records why the mutation failed.
func (p *PersonaBookPayload) SetError(e *MutationError) { p.Error = e }

// SetError records why the mutation failed.
func (p *PersonaCardPayload) SetError(e *MutationError) { p.Error = e }

// SetError records why the mutation failed.
func (p *PersonaPayload) SetError(e *MutationError) { p.Error = e }

// SetError records why the mutation failed.
func (p *ReplacePayload) SetError(e *MutationError) { p.Error = e }

// SetError records why the mutation failed.
func (p *ServerPayload) SetError(e *MutationError) { p.Error = e }

// SetError records why the mutation failed.
func (p *UndoImportPayload) SetError(e *MutationError) { p.Error = e }

// SetError implements the payload interface of graph's failure helper.
func (p *DeleteServerPayload) SetError(e *MutationError) { p.Error = e }

// SetError implements the payload interface of graph's failure helper.
func (p *ReconcileServersPayload) SetError(e *MutationError) { p.Error = e }

// SetError records why the mutation failed.
func (p *CategoryPayload) SetError(e *MutationError) { p.Error = e }

// SetError records why the mutation failed.
func (p *BookInfoPayload) SetError(e *MutationError) { p.Error = e }

// SetError records why the mutation failed.
func (p *MarkDecisionsSeenPayload) SetError(e *MutationError) { p.Error = e }
