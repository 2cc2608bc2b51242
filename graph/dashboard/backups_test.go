package dashboard_test

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/lore"
	"loregate/lore/backup"
)

// previewBackup uploads file on server's backups page (a manager's
// client c) and returns the page with the preview.
func previewBackup(t *testing.T, c *http.Client, base, server string, file []byte) string {
	t.Helper()
	u := base + "/dashboard/s/" + server + "/backups"
	_, page := get(t, c, u)
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	require.NoError(t, mw.WriteField("csrf", between(page, `name="csrf" value="`, `"`)))
	require.NoError(t, mw.WriteField("action", "preview"))
	fw, err := mw.CreateFormFile("file", "backup.json")
	require.NoError(t, err)
	_, err = fw.Write(file)
	require.NoError(t, err)
	require.NoError(t, mw.Close())
	resp, err := c.Post(u, mw.FormDataContentType(), &body)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	return string(b)
}

// TestBackupPreviewSaysSkips: the backups page's preview says what the
// import does with the server's settings for each reason one is left
// (docs/contract.md#backups): the ids of another server, and a semantic
// ranker that keeps lore local, which a backup's AUTO or EMBEDDINGS
// never replaces; in English, Portuguese and Spanish.
func TestBackupPreviewSaysSkips(t *testing.T) {
	e := newEnvJobs(t, 1<<20) // a preview keeps the upload for its import job
	c := e.httpClientSignedIn(e.token("42", map[string]bool{serverA: true, serverB: true}))
	roleOnly := &lore.WorkbenchSettings{ProposalsEnabled: true, LoreEditorRoleID: "300000000000000002"}
	file := func(r lore.SemanticRanker, wb *lore.WorkbenchSettings) []byte {
		if wb == nil {
			wb = roleOnly
		}
		set := lore.DefaultServerSettings()
		set.Semantic.Ranker = r
		data, err := backup.Encode(backup.Build(lore.Server{ID: serverA, Settings: set}, nil, nil, nil, backup.BookData{Workbench: wb}, time.Now()))
		require.NoError(t, err)
		return data
	}
	const (
		replaced = "The server's settings are replaced by the backup's (budget"
		other    = "another server and "
		role     = "its lore editor role belongs to another server and is not applied"
		channel  = "its suggestion channel belongs to another server and is not applied"
		both     = "its lore editor role and suggestion channel belong to another server and are not applied"
		kept     = "This server keeps its ranker for retrieval by meaning"
	)
	for _, tc := range []struct {
		name, lang, dest string
		from, ranker     lore.SemanticRanker
		wb               *lore.WorkbenchSettings // nil: the role only
		want, not        []string
	}{
		{name: "other server, channel only", lang: "en", dest: serverB, from: lore.RankerAuto, ranker: lore.RankerAuto,
			wb: &lore.WorkbenchSettings{ProposalChannelID: "300000000000000001"}, want: []string{channel}, not: []string{role, both}},
		{name: "other server, both ids", lang: "en", dest: serverB, from: lore.RankerAuto, ranker: lore.RankerAuto,
			wb: &lore.WorkbenchSettings{ProposalChannelID: "300000000000000001", LoreEditorRoleID: "300000000000000002"}, want: []string{both}, not: []string{role, channel}},
		{name: "other server, no ids", lang: "en", dest: serverB, from: lore.RankerAuto, ranker: lore.RankerAuto,
			wb: &lore.WorkbenchSettings{ProposalsEnabled: true}, want: []string{replaced}, not: []string{other}},
		{name: "pt-BR, role only", lang: "pt-BR", dest: serverB, from: lore.RankerAuto, ranker: lore.RankerAuto,
			want: []string{"o cargo de editor de lore é de outro servidor e não é aplicado"}},
		{name: "same server", lang: "en", dest: serverA, from: lore.RankerAuto, ranker: lore.RankerAuto,
			want: []string{replaced}, not: []string{other, kept}},
		{name: "lexical keeps its ranker", lang: "en", dest: serverA, from: lore.RankerAuto, ranker: lore.RankerLexical,
			want: []string{replaced, kept, "the backup's would send it to the embeddings provider"}, not: []string{other}},
		{name: "other server, off keeps its ranker", lang: "en", dest: serverB, from: lore.RankerEmbeddings, ranker: lore.RankerOff,
			want: []string{role, kept}},
		{name: "other server, ranker applies", lang: "en", dest: serverB, from: lore.RankerLexical, ranker: lore.RankerAuto,
			want: []string{role}, not: []string{kept, both}},
		{name: "pt-BR", lang: "pt-BR", dest: serverA, from: lore.RankerAuto, ranker: lore.RankerOff,
			want: []string{"Este servidor mantém o seu ranqueador da busca por significado"}},
		{name: "es", lang: "es", dest: serverB, from: lore.RankerAuto, ranker: lore.RankerLexical,
			want: []string{"Este servidor conserva su clasificador de la búsqueda por significado", "el rol de editor de lore es de otro servidor y no se aplica"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sv, err := e.store.GetServer(t.Context(), tc.dest)
			require.NoError(t, err)
			sv.Settings.Semantic.Ranker = tc.ranker
			_, err = e.store.UpdateServerSettings(t.Context(), tc.dest, sv.Settings)
			require.NoError(t, err)
			status, _ := get(t, c, e.srv.URL+"/dashboard/lang/"+tc.lang+"?back=/dashboard/")
			require.Equal(t, http.StatusSeeOther, status)
			page := previewBackup(t, c, e.srv.URL, tc.dest, file(tc.from, tc.wb))
			text := visibleText(between(page, `id="backup-preview"`, `id="import-backup"`))
			for _, w := range tc.want {
				require.Contains(t, text, w)
			}
			for _, n := range tc.not {
				require.NotContains(t, text, n)
			}
			requireNoEnumText(t, tc.name, page)
		})
	}
}

// TestBackupPreviewSaysOtherChannels: a backup restored onto another
// server keeps the channel lists of its collections and persona entries,
// which name the source server's channels; the backups page's preview and
// the import job's page say how many (docs/contract.md#backups), in each
// language; onto the same server they say nothing.
func TestBackupPreviewSaysOtherChannels(t *testing.T) {
	e := newEnvJobs(t, 1<<20)
	c := e.httpClientSignedIn(e.token("42", map[string]bool{serverA: true, serverB: true}))
	sword := lore.NewEntry()
	sword.Server, sword.Lineage, sword.Title, sword.Content, sword.Keys, sword.ChannelIDs = serverA, 7, "sword", "A sword.", []string{"sword"}, []string{"500000000000000001"}
	ale := lore.NewEntry()
	ale.Server, ale.Collection, ale.Title, ale.Content, ale.Keys = serverA, "Tavern", "ale", "Ale.", []string{"ale"}
	cols := []lore.Collection{{Name: "Tavern", Enabled: true, ChannelIDs: []string{"500000000000000002"}}}
	file, err := backup.Encode(backup.Build(lore.Server{ID: serverA, Settings: lore.DefaultServerSettings()}, nil, cols, []lore.Entry{sword, ale}, backup.BookData{}, time.Now()))
	require.NoError(t, err)
	for _, tc := range []struct {
		name, lang, dest, want string
	}{
		{name: "same server", lang: "en", dest: serverA},
		{name: "another server", lang: "en", dest: serverB,
			want: "1 collection and 1 persona entry keep the channel lists of the server the backup came from: while channel restrictions apply, that lore is used in no channel of this server"},
		{name: "pt-BR", lang: "pt-BR", dest: serverB, want: "1 coleção e 1 entrada de persona mantêm as listas de canais do servidor de onde o backup veio"},
		{name: "es", lang: "es", dest: serverB, want: "1 colección y 1 entrada de persona conservan las listas de canales del servidor de donde viene la copia"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, _ := get(t, c, e.srv.URL+"/dashboard/lang/"+tc.lang+"?back=/dashboard/")
			require.Equal(t, http.StatusSeeOther, status)
			page := previewBackup(t, c, e.srv.URL, tc.dest, file)
			text := visibleText(between(page, `id="backup-preview"`, `id="import-backup"`))
			if tc.want == "" {
				require.NotContains(t, page, `id="backup-channels"`)
			} else {
				require.Contains(t, text, tc.want)
			}
			if tc.lang != "en" {
				return
			}
			// The import job's page says it too.
			u := e.srv.URL + "/dashboard/s/" + tc.dest + "/backups"
			resp, err := c.PostForm(u, url.Values{"csrf": {between(page, `name="csrf" value="`, `"`)}, "action": {"import"},
				"previewId": {between(page, `name="previewId" value="`, `"`)}})
			require.NoError(t, err)
			resp.Body.Close()
			require.Equal(t, http.StatusSeeOther, resp.StatusCode)
			job := e.srv.URL + resp.Header.Get("Location")
			var body string
			require.Eventually(t, func() bool {
				_, body = get(t, c, job)
				return strings.Contains(body, `id="backup-done"`)
			}, 20*time.Second, 100*time.Millisecond)
			if tc.want == "" {
				require.NotContains(t, body, `id="backup-channels"`)
			} else {
				require.Contains(t, visibleText(body), tc.want)
			}
		})
	}
}

// TestBackupPreviewSaysNoPersona: an import restores books, not the
// persona registry (docs/contract.md#backups), so the preview names the
// persona books it replaces that no persona of the destination reads:
// onto the source server only the lore-only lineage, onto another server
// every persona book; in each language.
func TestBackupPreviewSaysNoPersona(t *testing.T) {
	e := newEnvJobs(t, 1<<20)
	c := e.httpClientSignedIn(e.token("42", map[string]bool{serverA: true, serverB: true}))
	e.must(`mutation($s: String!) { upsertPersona(input: {serverDiscordId: $s, id: 1, lineageId: 7, name: "Ann"}) { error { message } } }`,
		map[string]any{"s": serverA}, nil)
	var entries []lore.Entry
	for _, l := range []lore.Lineage{7, 8} {
		x := lore.NewEntry()
		x.Server, x.Lineage, x.Title, x.Content, x.Keys = serverA, l, "t", "c", []string{"k"}
		entries = append(entries, x)
	}
	file, err := backup.Encode(backup.Build(lore.Server{ID: serverA, Settings: lore.DefaultServerSettings()},
		[]lore.Persona{{Server: serverA, ID: 1, Lineage: 7, Name: "Ann"}}, nil, entries, backup.BookData{}, time.Now()))
	require.NoError(t, err)
	for _, tc := range []struct {
		name, lang, dest, want string
	}{
		{name: "same server", lang: "en", dest: serverA,
			want: "No persona of this server reads the book of lineage 8: an import restores books, not personas."},
		{name: "another server", lang: "en", dest: serverB, want: "No persona of this server reads the book of lineage 7, the book of lineage 8:"},
		{name: "pt-BR", lang: "pt-BR", dest: serverB, want: "Nenhuma persona deste servidor lê o livro da linhagem 7, o livro da linhagem 8: uma importação restaura livros"},
		{name: "es", lang: "es", dest: serverB, want: "Ninguna persona de este servidor lee el libro del linaje 7, el libro del linaje 8: una importación restaura libros"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, _ := get(t, c, e.srv.URL+"/dashboard/lang/"+tc.lang+"?back=/dashboard/")
			require.Equal(t, http.StatusSeeOther, status)
			page := previewBackup(t, c, e.srv.URL, tc.dest, file)
			require.Contains(t, visibleText(between(page, `id="backup-personas"`, `</p>`)), tc.want)
		})
	}
}
