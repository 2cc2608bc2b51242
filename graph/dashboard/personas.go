package dashboard

import (
	"net/http"
	"strconv"
	"strings"

	"loregate/graph/client"
	"loregate/graph/model"
)

// personaView is the personas page's data: the registry (removed personas
// included, their lineages keep lore) with each lineage's book, and the
// next free persona and lineage ids a registration takes by default.
type personaView struct {
	Personas []personaRow
	Books    []book
	NextID   int64
	// NextLineage is a lineage no persona uses yet: a new book.
	NextLineage int64
	Errors      map[string]string
	// Form is a refused registration as sent.
	Form map[string]string
}

// personaRow is one persona with its book.
type personaRow struct {
	model.Persona
	BookRef string
	Count   int
}

func (d *Dashboard) personaData(rq *req) personaView {
	v := personaView{Books: rq.srv.PersonaBooks(), Errors: map[string]string{}, Form: map[string]string{}, NextID: 1, NextLineage: 1}
	counts := map[int64]int{}
	for _, b := range v.Books {
		counts[b.LineageID] = b.Count
		v.NextLineage = max(v.NextLineage, b.LineageID+1)
	}
	for _, p := range rq.srv.Personas {
		v.Personas = append(v.Personas, personaRow{Persona: p, BookRef: "p" + strconv.FormatInt(p.LineageID, 10), Count: counts[p.LineageID]})
		v.NextID = max(v.NextID, p.ID+1)
		v.NextLineage = max(v.NextLineage, p.LineageID+1)
	}
	return v
}

func (d *Dashboard) personasPage(rq *req) error {
	d.page(rq, "personas", rq.t.S("Personas"), d.personaData(rq))
	return nil
}

// personaAction registers a persona (a new book, or an existing lineage's
// book: an alter), renames one, or removes one (its lineage keeps its
// lore), through upsertPersona and removePersona, as the panel does.
func (d *Dashboard) personaAction(rq *req) error {
	f := rq.r.PostForm
	v := d.personaData(rq)
	in := map[string]any{"serverDiscordId": rq.sid}
	op := client.OpUpsertPersona
	switch f.Get("action") {
	case "register":
		for _, k := range []string{"name", "id", "lineage"} {
			v.Form[k] = f.Get(k)
		}
		in["name"], in["id"], in["lineageId"] = strings.TrimSpace(f.Get("name")), v.NextID, v.NextLineage
		if s := strings.TrimSpace(f.Get("id")); s != "" {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				v.Errors["id"] = rq.t.S("%q is not a whole number", s)
			}
			// Registering is for a new persona: an id in use is renamed in the
			// list. (Moving a registered persona to another book is refused by
			// upsertPersona itself, lore/postgres Store.UpsertPersona, which
			// also catches an id registered after this page was read.)
			if p, ok := findPersona(rq.srv.Personas, s); ok && !p.Removed {
				v.Errors["id"] = rq.t.S("Persona %d is registered already (%s): rename it in the list, or leave the id blank for the next free one.", p.ID, p.Name)
			}
			in["id"] = n
		}
		if l, err := strconv.ParseInt(f.Get("lineage"), 10, 64); err == nil && l > 0 {
			in["lineageId"] = l
		}
	case "rename":
		p, ok := findPersona(rq.srv.Personas, f.Get("persona"))
		if !ok {
			return fail(http.StatusNotFound, rq.t.S("This persona does not exist on this server."))
		}
		in["id"], in["lineageId"], in["name"] = p.ID, p.LineageID, strings.TrimSpace(f.Get("name"))
	case "remove":
		p, ok := findPersona(rq.srv.Personas, f.Get("persona"))
		if !ok {
			return fail(http.StatusNotFound, rq.t.S("This persona does not exist on this server."))
		}
		op, in["id"] = client.OpRemovePersona, p.ID
	default:
		return fail(http.StatusBadRequest, rq.t.S("Unknown action."))
	}
	if len(v.Errors) > 0 {
		localProblems(rq, v.Errors, personaAnchor)
		d.render(rq, "personas", rq.t.S("Personas"), http.StatusUnprocessableEntity, v)
		return nil
	}
	if err := d.api.Mutate(rq.ctx(), rq.p, op, in, nil); err != nil {
		errs, ok := fieldErrors(rq, err, "", personaAnchor)
		if !ok {
			return err
		}
		v.Errors = errs
		d.render(rq, "personas", rq.t.S("Personas"), http.StatusUnprocessableEntity, v)
		return nil
	}
	http.Redirect(rq.w, rq.r, "/dashboard/s/"+rq.sid+"/personas?done=saved", http.StatusSeeOther)
	return nil
}

// findPersona is the persona of the server with id (a form's value).
func findPersona(ps []model.Persona, id string) (model.Persona, bool) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return model.Persona{}, false
	}
	for _, p := range ps {
		if p.ID == n {
			return p, true
		}
	}
	return model.Persona{}, false
}

// personaAnchor is the id of a registration field's control.
func personaAnchor(f string) string {
	if f == "lineageId" {
		return "p-lineage"
	}
	return "p-" + f
}
