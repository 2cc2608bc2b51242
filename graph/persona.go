package graph

import (
	"context"

	"loregate/graph/model"
	"loregate/lore"
)

// removedPersona answers removePersona: the persona as the registry now
// holds it (removed: true, its lineage kept), read back after the removal
// so the payload is not null on success.
func removedPersona(ctx context.Context, st lore.Store, server string, id int64) (*model.PersonaPayload, error) {
	ps, err := st.ListPersonas(ctx, server)
	if err != nil {
		return failure[model.PersonaPayload](err)
	}
	for _, p := range ps {
		if p.ID == id {
			return &model.PersonaPayload{Persona: personaToModel(p)}, nil
		}
	}
	return &model.PersonaPayload{}, nil
}
