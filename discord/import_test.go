package discord

import (
	"context"
	"encoding/json"
	"loregate/lore"
	"loregate/lore/sharedtest"
	"strconv"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"
)

// importOptions builds /memories-import options and resolved attachments
// for a file served by the fake CDN.
func (h *harness) importCommand(perms int64, fileName string, data []byte, opts map[string]any) outcome {
	h.t.Helper()
	const attID = "120000000000000001"
	options := []map[string]any{{"name": "file", "type": 11, "value": attID}}
	for name, v := range opts {
		typ := 3
		switch v.(type) {
		case bool:
			typ = 5
		case int:
			typ = 4
		}
		options = append(options, map[string]any{"name": name, "type": typ, "value": v})
	}
	resolved := map[string]any{"attachments": map[string]any{attID: map[string]any{
		"id": attID, "filename": fileName, "size": len(data), "content_type": "application/json",
		"url": h.fake.attach(fileName, data), "proxy_url": "https://media.discordapp.net/x", "ephemeral": true,
	}}}
	return h.command(perms, CommandImport, options, resolved)
}

func corpusFile(t *testing.T, rel string) []byte {
	t.Helper()
	return sharedtest.Read(t, "corpus", rel)
}

// TestAttachmentImportThroughJob imports an attachment from the slash
// command to the receipt: deferred ephemeral reply, download from the CDN,
// importLorebook handing the upload to a River import job on real
// Postgres, the job followed to completion, the receipt edited into the
// reply, and the entries readable through the panel.
func TestAttachmentImportThroughJob(t *testing.T) {
	h := newHarnessJobs(t, true)
	h.registerServer()
	file := corpusFile(t, "st-worldinfo/sillytavern__Eldoria.json")

	o := h.importCommand(permManager, "Eldoria.json", file, nil)
	cb := o.callback()
	require.Equal(t, 5, cb.Type, "deferred reply first")
	require.Equal(t, 64, cb.Data.Flags)
	var downloaded bool
	for _, c := range o.calls {
		downloaded = downloaded || (c.Method == "GET" && c.Path == "/cdn/ephemeral-attachments/1/2/Eldoria.json")
	}
	require.True(t, downloaded)
	receipt := o.content()
	require.Contains(t, receipt, "Imported into **Eldoria**: 4 entries added, 0 skipped")
	require.Len(t, h.scope(0, "Eldoria"), 4)
	list, err := h.jobs.JobList(context.Background(), river.NewJobListParams().Kinds("lorebook_import"))
	require.NoError(t, err)
	require.Len(t, list.Jobs, 1, "the upload went through an import job")
	require.Equal(t, rivertype.JobStateCompleted, list.Jobs[0].State)

	// Again into the same book: every entry is a duplicate (skipped).
	o = h.importCommand(permManager, "Eldoria.json", file, map[string]any{"book": "eldoria"})
	require.Contains(t, o.content(), "0 entries added, 4 skipped")

	// A new book with the same name is refused by the job, with a receipt.
	o = h.importCommand(permManager, "Eldoria.json", file, nil)
	require.Contains(t, o.content(), "Not imported")
	require.Len(t, h.books(), 1)

	// The panel shows the imported book.
	p := h.open(permMember).panel()
	require.Contains(t, p.text(), "Eldoria")
}

// TestAttachmentImportInline covers the inline path (small uploads),
// persona targets, refusals and the receipt's conversion details.
func TestAttachmentImportInline(t *testing.T) {
	h := newHarness(t)
	seedScopes(h)

	t.Run("member refused", func(t *testing.T) {
		before := h.snapshot()
		o := h.importCommand(permMember, "gen.json", worldInfo(3), nil)
		require.Equal(t, 5, o.callback().Type)
		require.Contains(t, o.content(), msgNeedLoreWrite)
		require.Equal(t, before, h.snapshot())
		for _, c := range o.calls {
			require.NotEqual(t, "GET", c.Method, "nothing downloaded for a refused import")
		}
	})
	t.Run("persona book with replace", func(t *testing.T) {
		o := h.importCommand(permManager, "gen.json", worldInfo(5), map[string]any{"persona": 7, "replace": true})
		require.Contains(t, o.content(), "Imported into **Aria**: 5 entries added")
		require.Len(t, h.scope(7, ""), 5)
	})
	t.Run("unknown persona", func(t *testing.T) {
		o := h.importCommand(permManager, "gen.json", worldInfo(1), map[string]any{"persona": 99})
		require.Contains(t, o.content(), "not on this server")
	})
	t.Run("unknown book", func(t *testing.T) {
		o := h.importCommand(permManager, "gen.json", worldInfo(1), map[string]any{"book": "Nope"})
		require.Contains(t, o.content(), "no Serverwide lorebook named")
	})
	t.Run("too large", func(t *testing.T) {
		big := make([]byte, 2<<20+1)
		o := h.importCommand(permManager, "big.json", big, nil)
		require.Contains(t, o.content(), "may be at most 2.0 MiB")
	})
	t.Run("report details", func(t *testing.T) {
		file := []byte(`{"entries":{"0":{"uid":0,"key":["a"],"content":"x","comment":"A","position":4,"group":"g","sticky":2,"automationId":"hook"},"1":{"uid":1,"key":["b"],"content":"","comment":"empty"}}}`)
		o := h.importCommand(permManager, "details.json", file, map[string]any{"name": "Details " + strconv.Itoa(1)})
		receipt := o.content()
		require.Contains(t, receipt, "Imported into **Details 1**: 1 entry added, 1 skipped")
		require.Contains(t, receipt, "Ignored settings:")
		require.NotContains(t, receipt, "Collapsed placements", "world info positions are kept, not collapsed")
	})
	t.Run("long entry split", func(t *testing.T) {
		long := strings.Repeat(strings.Repeat("The river bends. ", 40)+"\n\n", 12)
		file, _ := json.Marshal(map[string]any{"entries": map[string]any{"0": map[string]any{"uid": 0, "key": []string{"river"}, "content": long, "comment": "River"}}})
		o := h.importCommand(permManager, "long.json", file, map[string]any{"name": "Long"})
		require.Contains(t, o.content(), "Split into linked parts (longer than the content limit): River ×")
	})
}

// upload serves data on the fake CDN and returns it as a modal submit's
// resolved attachment.
func (h *harness) upload(name string, data []byte) map[string]*discordgo.MessageAttachment {
	id := h.nextID()
	return map[string]*discordgo.MessageAttachment{id: {
		ID: id, Filename: name, Size: len(data), ContentType: "application/octet-stream",
		URL: h.fake.attach(name, data), ProxyURL: "https://media.discordapp.net/x", Ephemeral: true,
	}}
}

// selected returns the label of the book picker's selected option.
func selectedBook(h *harness, p wireData) string {
	for _, o := range h.need(p, actBookPick).Options {
		if o.Default {
			return o.Label
		}
	}
	return ""
}

// TestPanelUploadImport: the panel's Import opens a modal with a file
// upload; the submitted file goes through a real River import job; the
// imported book is selected afterwards with the receipt. Imports into the
// selected book append by default and replace only that book when chosen.
func TestPanelUploadImport(t *testing.T) {
	h := newHarnessJobs(t, true)
	h.registerServer()
	h.book("Other", 3)
	eldoria := corpusFile(t, "st-worldinfo/sillytavern__Eldoria.json")
	jobsBefore, err := h.jobs.JobList(context.Background(), river.NewJobListParams().Kinds("lorebook_import"))
	require.NoError(t, err)

	m := h.click(permManager, h.need(h.open(permManager).panel(), actBookPick), valueImport).modal()
	require.Equal(t, []string{fieldFile, fieldName}, fieldIDs(m))
	require.Equal(t, ctFileUpload, modalInputs(m)[0].Type)
	o := h.submitForm(permManager, m, map[string]string{fieldName: "Eldoria"}, nil, h.upload("Eldoria.json", eldoria))
	require.Equal(t, 6, o.callback().Type, "deferred, then the panel is repainted")
	p := o.panel()
	require.Contains(t, p.text(), "Imported into **Eldoria**: 4 entries added, 0 skipped")
	require.Equal(t, "Eldoria", selectedBook(h, p), "the imported book is selected")
	require.Len(t, h.scope(0, "Eldoria"), 4)
	list, err := h.jobs.JobList(context.Background(), river.NewJobListParams().Kinds("lorebook_import"))
	require.NoError(t, err)
	require.Len(t, list.Jobs, len(jobsBefore.Jobs)+1, "the upload went through an import job")
	for _, j := range list.Jobs {
		require.Equal(t, rivertype.JobStateCompleted, j.State)
	}

	tests := []struct {
		name      string
		file      []byte
		mode      string
		wantText  string
		wantCount int
	}{
		{"append skips entries already present", eldoria, "", "0 entries added, 4 skipped", 4},
		{"append adds new ones", worldInfo(2), "false", "2 entries added, 0 skipped", 6},
		{"replace only the selected book", worldInfo(1), "true", "1 entry added, 0 skipped, 6 replaced", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			entries := h.need(p, actEntryPick)
			m := h.click(permManager, entries, valueImport).modal()
			require.Equal(t, []string{fieldFile, fieldMode}, fieldIDs(m))
			require.Equal(t, ctCheckbox, modalInputs(m)[1].Type, "replace is a checkbox")
			var picks map[string][]string
			if tc.mode != "" {
				picks = map[string][]string{fieldMode: {tc.mode}}
			}
			p = h.submitForm(permManager, m, nil, picks, h.upload("f.json", tc.file)).panel()
			require.Contains(t, p.text(), tc.wantText)
			require.Equal(t, "Eldoria", selectedBook(h, p))
			require.Len(t, h.scope(0, "Eldoria"), tc.wantCount)
			require.Len(t, h.scope(0, "Other"), 3, "other books stay intact")
		})
	}

	t.Run("member refused", func(t *testing.T) {
		before := h.snapshot()
		o := h.submitForm(permMember, m, map[string]string{fieldName: "Sneaky"}, nil, h.upload("s.json", worldInfo(1)))
		require.Contains(t, o.content(), msgNeedLoreWrite)
		require.Equal(t, before, h.snapshot())
	})
	t.Run("no file", func(t *testing.T) {
		o := h.submitForm(permManager, m, map[string]string{fieldName: "Empty"}, nil, nil)
		require.Contains(t, o.content(), "Attach one file")
	})
}

// TestAttachmentJSONCapFollowsLimit: with LOREGATE_MAX_JSON_BYTES raised to
// 3 MiB the bot downloads and imports a 2.5 MiB JSON attachment (the cap
// was a fixed 2 MiB) and still refuses one over 3 MiB, naming the limit.
func TestAttachmentJSONCapFollowsLimit(t *testing.T) {
	h := newHarnessWith(t, false, lore.Limits{JSONBytes: 3 << 20})
	h.registerServer()
	padded := func(n int) []byte {
		head := `{"entries":{"0":{"uid":0,"key":["pier"],"content":"The old pier.","comment":"Pier"}},"_meta":{"pad":"`
		tail := `"}}`
		return []byte(head + strings.Repeat("x", n-len(head)-len(tail)) + tail)
	}
	o := h.importCommand(permManager, "Big.json", padded(5<<19), nil)
	require.Contains(t, o.content(), "Imported into **Big**: 1 entry added", "2.5 MiB is within the raised limit")
	o = h.importCommand(permManager, "Bigger.json", padded(3<<20+1), nil)
	require.Contains(t, o.content(), "Not imported")
	require.Contains(t, o.content(), "may be at most 3.0 MiB")
	require.Len(t, h.books(), 1)
}
