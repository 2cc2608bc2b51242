package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"loregate/lore"
	"loregate/lore/i18n"
)

const (
	// personaNextIDs returns the next free persona id and the next free
	// lineage id of a server: one past the largest persona id, and one past
	// the largest lineage read by a persona or owning lore (removed personas
	// and lore-only lineages included, so an alter never inherits old lore).
	personaNextIDs = `SELECT
    COALESCE((SELECT max(id) FROM personas WHERE server_id = $1), 0) + 1,
    GREATEST(COALESCE((SELECT max(lineage_id) FROM personas WHERE server_id = $1), 0),
             COALESCE((SELECT max(lineage_id) FROM lorebook_entries WHERE server_id = $1), 0)) + 1`

	personaInsert = `INSERT INTO personas (server_id, id, lineage_id, display_name)
VALUES ($1, $2, $3, $4)
RETURNING ` + personaColumns

	personaGet = `SELECT ` + personaColumns + ` FROM personas WHERE server_id = $1 AND id = $2`

	personaSetCardContext = `UPDATE personas SET card_context = $3 WHERE server_id = $1 AND id = $2`
	// personaGetCardContext is one persona's card character (NULL none).
	personaGetCardContext = `SELECT card_context FROM personas WHERE server_id = $1 AND id = $2`

	// personaLineageRead is what the per-turn read of a persona lineage
	// takes from the registry, in one row: the lineage's card character,
	// its personas' (answered by personas_lineage_idx), not removed first,
	// then by id (NULL none); and whether the lineage is known on the
	// server, as personaLineageKnown says.
	personaLineageRead = `SELECT (SELECT card_context FROM personas
    WHERE server_id = $1 AND lineage_id = $2 AND card_context IS NOT NULL
    ORDER BY removed, id LIMIT 1), ` + lineageKnownExpr
)

// lineageRead reads the card character of a persona lineage (nil when
// none of its personas has one) and whether the lineage is known on the
// server (a persona, removed or not, reads it or it owns lore there).
func lineageRead(ctx context.Context, q executor, server string, lineage lore.Lineage) (*lore.CharacterContext, bool, error) {
	var (
		raw   []byte
		known bool
	)
	if err := q.QueryRow(ctx, personaLineageRead, server, int64(lineage)).Scan(&raw, &known); err != nil {
		return nil, false, err
	}
	if raw == nil {
		return nil, known, nil
	}
	var c lore.CharacterContext
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, false, fmt.Errorf("persona card context: %w", err)
	}
	return &c, known, nil
}

// ImportPersonaCard writes a character card's import (see
// lore.PersonaCardImport) in one transaction under the server lock. A new
// persona (c.PersonaID 0) gets the next free persona id and a new lineage;
// the card's book, when c.Entries is non-nil, replaces that lineage's book.
// The whole batch is validated first; any failure of the lore write rolls
// the persona back with it, so a failed alter import leaves no persona and
// nothing else changed.
func (s *Store) ImportPersonaCard(ctx context.Context, c lore.PersonaCardImport) (lore.Persona, lore.ImportResult, error) {
	const op = "import persona card"
	if err := checkServerID(c.Server); err != nil {
		return lore.Persona{}, lore.ImportResult{}, wrapErr(op, err)
	}
	if c.PersonaID < 0 {
		return lore.Persona{}, lore.ImportResult{}, wrapErr(op, lore.Reject("personaId", i18n.PersonaIDOrNew, nil))
	}
	if c.PersonaID == 0 {
		if err := lore.ValidatePersonaName(c.Name); err != nil {
			return lore.Persona{}, lore.ImportResult{}, wrapErr(op, err)
		}
	}
	var batch []lore.Entry
	if c.Entries != nil {
		// Validated with a placeholder lineage: the real one may only be
		// known under the lock.
		var err error
		if batch, err = s.prepareBatch(c.Server, 1, "", c.Entries); err != nil {
			return lore.Persona{}, lore.ImportResult{}, wrapErr(op, err)
		}
		if err := s.checkCapacity(c.Server, 1, 0, len(batch)); err != nil {
			return lore.Persona{}, lore.ImportResult{}, wrapErr(op, err)
		}
	}
	var p lore.Persona
	var res lore.ImportResult
	err := s.write(ctx, op, c.Server, func(tx pgx.Tx) error {
		var err error
		if c.PersonaID == 0 {
			var id, lineage int64
			if err := tx.QueryRow(ctx, personaNextIDs, c.Server).Scan(&id, &lineage); err != nil {
				return err
			}
			if p, err = scanPersona(tx.QueryRow(ctx, personaInsert, c.Server, id, lineage, c.Name)); err != nil {
				return err
			}
		} else {
			p, err = scanPersona(tx.QueryRow(ctx, personaGet, c.Server, c.PersonaID))
			if errors.Is(err, pgx.ErrNoRows) {
				return notFound("persona", c.PersonaID)
			}
			if err != nil {
				return err
			}
		}
		if err := setCardContextTx(ctx, tx, c.Server, p.ID, c.Character); err != nil {
			return err
		}
		if batch == nil {
			return nil
		}
		for i := range batch {
			batch[i].Lineage = p.Lineage
		}
		if res, err = replaceLineageTx(ctx, tx, c.Server, p.Lineage, batch); err != nil || c.Settings == nil {
			return err
		}
		return setPersonaBookTx(ctx, tx, c.Server, p.Lineage, *c.Settings)
	})
	if err != nil {
		return lore.Persona{}, lore.ImportResult{}, err
	}
	return p, res, nil
}

// setCardContextTx keeps the card's character on persona id (nil clears
// it).
func setCardContextTx(ctx context.Context, tx pgx.Tx, server string, id int64, c *lore.CharacterContext) error {
	var raw []byte
	if !c.IsZero() {
		var err error
		if raw, err = json.Marshal(c); err != nil {
			return fmt.Errorf("persona card context: %w", err)
		}
	}
	_, err := tx.Exec(ctx, personaSetCardContext, server, id, raw)
	return err
}
