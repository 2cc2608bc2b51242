package discord

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPanelRenderingServerwide opens /memories with 0, 1, 23, 24 and 250
// collections and, in the first one, the same number of entries; every
// paint passes the fake's limit validator.
func TestPanelRenderingServerwide(t *testing.T) {
	for _, n := range []int{0, 1, 23, 24, 250} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.registerServer()
			if n > 0 {
				h.book("Book 000", n)
				for i := 1; i < n; i++ {
					h.book(fmt.Sprintf("Book %03d", i), 0)
				}
			}
			o := h.open(permMember)
			cb := o.callback()
			require.Equal(t, 4, cb.Type)
			require.Equal(t, 64|flagComponentsV2, cb.Data.Flags, "the panel is an ephemeral Components V2 message")
			p := o.panel()
			require.Contains(t, p.text(), "Lorebooks · Serverwide")
			books := h.need(p, actBookPick)
			wantBooks := min(n, bookPageSize)
			require.Len(t, books.Options, wantBooks+2)
			require.Equal(t, []string{valueAdd, valueImport}, optionValues(books)[wantBooks:])
			_, hasBookPages := p.find(actBookPage)
			require.Equal(t, n > bookPageSize, hasBookPages)
			if n == 0 {
				require.Equal(t, 2, p.rows(), "scope row and collection picker only")
				require.Contains(t, p.text(), "No lorebooks yet")
				return
			}
			require.True(t, books.Options[0].Default, "the first book is selected")
			h.need(p, actBookToggle)
			h.need(p, actBookRename)
			entries := h.need(p, actEntryPick)
			wantEntries := min(n, entryPageSize)
			require.Len(t, entries.Options, wantEntries+2)
			require.Equal(t, "+ Import Entries", entries.Options[wantEntries+1].Label)
			h.need(p, actExport)
			_, hasEntryPages := p.find(actEntryPage)
			require.Equal(t, n > entryPageSize, hasEntryPages)
			require.Len(t, p.Components, 1, "one container")
		})
	}
}

// TestPanelRenderingPersona renders Persona scope with 0, 1, 23, 24 and
// 250 entries in one lineage (and as many single-persona lineages for the
// picker, up to 30).
func TestPanelRenderingPersona(t *testing.T) {
	for _, n := range []int{0, 1, 23, 24, 250} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.registerServer()
			personas := min(n, 30)
			for i := range personas {
				h.persona(int64(i+1), int64(i+1), fmt.Sprintf("Persona %02d", i+1))
			}
			if n > 0 {
				h.persona(100, 1, "Twin of Persona 01") // same lineage: grouped
				h.importEntries(1, "", n)
			}
			p := h.clickID(permMember, route{action: actPersona}.encode()).panel()
			require.Contains(t, p.text(), "Lorebooks · Persona")
			if n == 0 {
				require.Contains(t, p.text(), "No personas")
				require.Equal(t, 1, p.rows(), "the scope row only for a member")
				return
			}
			picker := h.need(p, actPersonaPick)
			require.Len(t, picker.Options, min(personas, personaPageSize))
			require.Equal(t, "Persona 01 / Twin of Persona 01", picker.Options[0].Label)
			require.True(t, picker.Options[0].Default)
			_, hasPersonaPages := p.find(actPersonaPage)
			require.Equal(t, personas > personaPageSize, hasPersonaPages)
			entries := h.need(p, actEntryPick)
			wantEntries := min(n, entryPageSize)
			require.Len(t, entries.Options, wantEntries+2)
			require.Equal(t, "+ Import Lorebook", entries.Options[wantEntries+1].Label)
			_, hasEntryPages := p.find(actEntryPage)
			require.Equal(t, n > entryPageSize, hasEntryPages)
			h.need(p, actExport)
		})
	}
}

// TestPaging walks the entry pages of a 250-entry book and the collection
// pages of 30 books with the rendered page buttons.
func TestPaging(t *testing.T) {
	h := newHarness(t)
	h.registerServer()
	h.book("Big", 250)
	for i := 1; i < 30; i++ {
		h.book(fmt.Sprintf("Small %02d", i), 0)
	}
	p := h.open(permMember).panel()
	seen := map[string]bool{}
	for page := 0; ; page++ {
		entries := h.need(p, actEntryPick)
		for _, v := range optionValues(entries) {
			require.False(t, seen[v] && v != valueAdd && v != valueSuggest && v != valueImport, "entry %s on two pages", v)
			seen[v] = true
		}
		require.Contains(t, p.text(), fmt.Sprintf("Entries %d–", page*entryPageSize+1))
		var next wireComponent
		for _, c := range p.all() {
			if rt, err := parseRoute(c.CustomID); err == nil && rt.action == actEntryPage && rt.entryPage == page+1 {
				next = c
			}
		}
		if next.Disabled {
			require.Equal(t, 10, page, "250 entries make 11 pages")
			break
		}
		o := h.click(permMember, next)
		require.Equal(t, 7, o.callback().Type, "paging updates the panel in place")
		p = o.panel()
	}
	require.Len(t, seen, 252, "every entry once, plus Add and Import")

	// Collection pages: page 2 selects its first book.
	p = h.open(permMember).panel()
	var nextBooks wireComponent
	for _, c := range p.all() {
		if rt, err := parseRoute(c.CustomID); err == nil && rt.action == actBookPage && rt.page == 1 {
			nextBooks = c
		}
	}
	p = h.click(permMember, nextBooks).panel()
	books := h.need(p, actBookPick)
	require.Len(t, books.Options, 30-bookPageSize+2)
	require.True(t, books.Options[0].Default)
	require.Contains(t, p.text(), books.Options[0].Label)
}
