package discord

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Route wire format (docs/contract.md, "Panel and permissions"): custom ids live in
// the memories namespace with wire version v1 and positional fields,
//
//	memories:v1:<action>:<lineage>:<page>:<entry>[:<entryRange>[:<collection>]]
//
// lineage 0 is the Serverwide sentinel (mapped to "no lineage" before any
// API call); page is the first picker's page (collections in Serverwide
// scope, personas in Persona scope); entry is the selected entry id or 0;
// entryRange is the entry picker's page; collection is the selected
// Serverwide collection id, an optional trailing field. When a collection id
// is present the entry range is always emitted (as 0 when unset) so field
// positions stay unambiguous. Every field is a decimal integer, so the
// longest route (19-digit ids everywhere) stays under Discord's 100-character
// custom id limit.
const (
	routeNamespace = "memories"
	routeVersion   = "v1"
	// MaxCustomIDLen is Discord's custom_id limit, in characters.
	MaxCustomIDLen = 100
)

// Route actions. Button and select actions carry the panel state in the
// route; modal actions carry the state the modal was opened from.
const (
	actServerwide  = "lore-sw"  // scope switcher: Serverwide
	actPersona     = "lore-pe"  // scope switcher: Persona
	actPersonaPage = "lore-pp"  // persona picker page buttons
	actPersonaPick = "lore-ps"  // persona picker (value: lineage id)
	actBookPage    = "lore-bp"  // collection picker page buttons
	actBookPick    = "lore-bs"  // collection picker (value: id, add, import)
	actEntryPage   = "lore-ep"  // entry picker page buttons
	actEntryPick   = "lore-es"  // entry picker (value: id, add, import)
	actBookToggle  = "lore-bt"  // collection Active/Disabled
	actBookChans   = "lore-bc"  // collection Channels: open the channel view
	actBookChanSet = "lore-bcs" // channel select in the channel view
	actBookChanAll = "lore-bca" // channel view: every channel
	actBookRename  = "lore-br"  // collection Rename: open the modal
	actBookDelete  = "lore-bd"  // collection Delete: ask to confirm
	actBookDelOK   = "lore-bdy" // collection Delete confirmed
	actExport      = "lore-ex"  // Export Lorebook
	actEntryEdit   = "lore-ee"  // entry view: Edit (modal)
	actEntryRules  = "lore-er"  // entry view: Activation Rules (modal)
	actEntryToggle = "lore-et"  // entry view: Enabled/Disabled
	actEntryDelete = "lore-ed"  // entry view: Delete, ask to confirm
	actEntryDelOK  = "lore-edy" // entry Delete confirmed
	actBack        = "lore-bk"  // back to the picker view
	modalBookAdd   = "lore-mb"  // modal: new collection name
	modalEntryAdd  = "lore-ma"  // modal: new entry
	modalEntryEdit = "lore-me"  // modal: edit entry
	modalRules     = "lore-mr"  // modal: activation rules
	modalRename    = "lore-mn"  // modal: rename collection
	modalImport    = "lore-mi"  // modal: import a file (upload + name or mode)
	actSettings    = "lore-st"  // scope row: Settings view
	actSetToggle   = "lore-stt" // settings: toggle a server setting (entry field: which)
	actBackups     = "lore-bu"  // scope row: Backups view
	actBackupExp   = "lore-bue" // backups: export the whole workspace
	actBackupImp   = "lore-bui" // backups: open the upload modal
	actBackupOK    = "lore-buy" // backup preview: confirm (entry field: preview id)
	actCardImport  = "lore-ci"  // persona scope: Import Persona Card (modal)
	modalCard      = "lore-mc"  // modal: persona card upload
	modalBackup    = "lore-mu"  // modal: workspace backup upload
	actBookSet     = "lore-bst" // book controls: Book Settings (modal)
	modalBookSet   = "lore-mst" // modal: book settings
	actBudget      = "lore-stb" // settings: Change budget (modal)
	modalBudget    = "lore-mbg" // modal: server budget
)

// route is one decoded custom id: the action and the panel state it acts on.
type route struct {
	action string
	// lineage is the persona lineage; 0 = Serverwide.
	lineage int64
	// page is the first picker's page (0-based).
	page int
	// entry is the selected entry id, 0 = none.
	entry int64
	// entryPage is the entry picker's page (0-based).
	entryPage int
	// collection is the selected Serverwide collection id, 0 = none.
	collection int64
	// seen is the collection's updatedAt (Unix microseconds) as the
	// view showed it, 0 = none: the channel view's saves send it as
	// expectedUpdatedAt, so a save made from a stale page is refused
	// rather than overwriting a newer list.
	seen int64
}

// errOldRoute marks a custom id from another namespace or wire version, or
// one that is malformed: the caller repaints instead of acting.
var errOldRoute = errors.New("unknown or outdated panel route")

// encode returns the custom id of r.
func (r route) encode() string {
	var b strings.Builder
	b.WriteString(routeNamespace + ":" + routeVersion + ":" + r.action + ":")
	b.WriteString(strconv.FormatInt(r.lineage, 10))
	b.WriteByte(':')
	b.WriteString(strconv.Itoa(r.page))
	b.WriteByte(':')
	b.WriteString(strconv.FormatInt(r.entry, 10))
	if r.entryPage != 0 || r.collection != 0 || r.seen != 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(r.entryPage))
	}
	if r.collection != 0 || r.seen != 0 {
		b.WriteByte(':')
		b.WriteString(strconv.FormatInt(r.collection, 10))
	}
	if r.seen != 0 {
		b.WriteByte(':')
		b.WriteString(strconv.FormatInt(r.seen, 36))
	}
	return b.String()
}

// with returns r with another action.
func (r route) with(action string) route { r.action = action; return r }

// parseRoute decodes a custom id. Ids outside the memories namespace, of
// another wire version, or with malformed fields return errOldRoute (with
// the action when it could be read).
func parseRoute(id string) (route, error) {
	parts := strings.Split(id, ":")
	if len(parts) < 3 || parts[0] != routeNamespace {
		return route{}, fmt.Errorf("%w: namespace", errOldRoute)
	}
	if parts[1] != routeVersion {
		return route{}, fmt.Errorf("%w: version %.8q", errOldRoute, parts[1])
	}
	r := route{action: parts[2]}
	fields := parts[3:]
	if len(fields) < 3 || len(fields) > 6 {
		return r, fmt.Errorf("%w: %d fields", errOldRoute, len(fields))
	}
	var err error
	nonNeg := func(s string) int64 {
		if err != nil {
			return 0
		}
		var v int64
		v, err = strconv.ParseInt(s, 10, 64)
		if err == nil && v < 0 {
			err = errors.New("negative")
		}
		return v
	}
	r.lineage = nonNeg(fields[0])
	r.page = int(min(nonNeg(fields[1]), 1000))
	r.entry = nonNeg(fields[2])
	if len(fields) > 3 {
		r.entryPage = int(min(nonNeg(fields[3]), 1000))
	}
	if len(fields) > 4 {
		r.collection = nonNeg(fields[4])
	}
	if len(fields) > 5 && err == nil {
		r.seen, err = strconv.ParseInt(fields[5], 36, 64)
		if err == nil && r.seen < 0 {
			err = errors.New("negative")
		}
	}
	if err != nil {
		return r, fmt.Errorf("%w: %w", errOldRoute, err)
	}
	return r, nil
}

// withVersion returns r carrying an entry's version (updatedAt in Unix
// microseconds, the store's precision) in its collection field: the
// review routes (discord/proposals.go) are server-level and use no
// collection.
func (r route) withVersion(t time.Time) route { r.collection = t.UnixMicro(); return r }

// version is the version withVersion stored (nil when none).
func (r route) version() *time.Time {
	if r.collection <= 0 {
		return nil
	}
	t := time.UnixMicro(r.collection).UTC()
	return &t
}

// idOf parses an API id known to be decimal (0 when it is not).
func idOf(id string) int64 {
	n, _ := strconv.ParseInt(id, 10, 64)
	return n
}
