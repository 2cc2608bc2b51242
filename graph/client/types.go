package client

import (
	"time"

	"loregate/graph/model"
)

// The model types hold the fields a type stores; the fields served by
// their own resolvers (gqlgen.yml) are added here, so that an operation's
// data decodes whole into one type.

// Server is a Server with its resolver fields: what OpServer selects, and
// the entry or book of OpEntry, OpPanelCollectionEntries,
// OpPanelPersonaEntries, OpCollectionEntriesPage and OpPersonaEntriesPage.
type Server struct {
	model.Server
	// CanWriteLore is Server.canWriteLore (a resolver field).
	CanWriteLore bool `json:"canWriteLore"`
	// WorkbenchSettings is Server.workbenchSettings (OpServer).
	WorkbenchSettings *model.WorkbenchSettings `json:"workbenchSettings"`
	// OpenProposals is the first 100 open proposals the caller sees
	// (OpServer's alias of proposals(state: OPEN)).
	OpenProposals *model.ProposalConnection `json:"openProposals"`
	// Proposals is Server.proposals (OpProposals).
	Proposals *model.ProposalConnection `json:"proposals"`
	// UnseenDecisions is Server.unseenDecisions (OpUnseenDecisions).
	UnseenDecisions []model.Proposal `json:"unseenDecisions"`
	// DeletedEntries is Server.deletedEntries (OpDeletedEntries).
	DeletedEntries *model.EntryRevisionConnection `json:"deletedEntries"`
	Personas       []model.Persona                `json:"personas"`
	EntryCounts    []model.ScopeCount             `json:"entryCounts"`
	Collections    model.CollectionConnection     `json:"collections"`
	Collection     *Book                          `json:"collection"`
	PersonaBook    *Book                          `json:"personaBook"`
	// Book is the collection or persona book of the *EntriesPage
	// operations (aliased book).
	Book  *Book        `json:"book"`
	Entry *model.Entry `json:"entry"`
	// Channels are the guild's channels (ServerChannels; nil without a
	// bot token).
	Channels []model.DiscordChannel `json:"channels"`
	// EntriesByID are the entries EntryNames named.
	EntriesByID []model.Entry `json:"entriesById"`
}

// ServerData is the data of the operations whose root field is server.
type ServerData struct {
	Server *Server `json:"server"`
}

// Book is a collection or a persona book with its entries.
type Book struct {
	// ID is the collection's id ("" for a persona book).
	ID string `json:"id"`
	// LineageID is the persona book's lineage (0 for a collection).
	LineageID    int64              `json:"lineageId"`
	BookSettings model.BookSettings `json:"bookSettings"`
	// UpdatedAt is the book's version (nil while a persona book has no
	// stored settings).
	UpdatedAt *time.Time            `json:"updatedAt"`
	Entries   model.EntryConnection `json:"entries"`
	// Description, Tags and Categories organise the book
	// (docs/workbench.md#categories).
	Description string           `json:"description"`
	Tags        []string         `json:"tags"`
	Categories  []model.Category `json:"categories"`
}
