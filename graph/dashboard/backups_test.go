package dashboard_test

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
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
	wb := &lore.WorkbenchSettings{ProposalsEnabled: true, LoreEditorRoleID: "300000000000000002"}
	file := func(r lore.SemanticRanker) []byte {
		set := lore.DefaultServerSettings()
		set.Semantic.Ranker = r
		data, err := backup.Encode(backup.Build(lore.Server{ID: serverA, Settings: set}, nil, nil, nil, backup.BookData{Workbench: wb}, time.Now()))
		require.NoError(t, err)
		return data
	}
	const (
		replaced = "The server's settings are replaced by the backup's (budget"
		other    = "belong to another server and are not applied"
		kept     = "This server keeps its ranker for retrieval by meaning"
	)
	for _, tc := range []struct {
		name, lang, dest string
		from, ranker     lore.SemanticRanker
		want, not        []string
	}{
		{name: "same server", lang: "en", dest: serverA, from: lore.RankerAuto, ranker: lore.RankerAuto,
			want: []string{replaced}, not: []string{other, kept}},
		{name: "lexical keeps its ranker", lang: "en", dest: serverA, from: lore.RankerAuto, ranker: lore.RankerLexical,
			want: []string{replaced, kept, "the backup's would send it to the embeddings provider"}, not: []string{other}},
		{name: "other server, off keeps its ranker", lang: "en", dest: serverB, from: lore.RankerEmbeddings, ranker: lore.RankerOff,
			want: []string{other, kept}},
		{name: "other server, ranker applies", lang: "en", dest: serverB, from: lore.RankerLexical, ranker: lore.RankerAuto,
			want: []string{other}, not: []string{kept}},
		{name: "pt-BR", lang: "pt-BR", dest: serverA, from: lore.RankerAuto, ranker: lore.RankerOff,
			want: []string{"Este servidor mantém o seu ranqueador da busca por significado"}},
		{name: "es", lang: "es", dest: serverB, from: lore.RankerAuto, ranker: lore.RankerLexical,
			want: []string{"Este servidor conserva su clasificador de la búsqueda por significado", "son de otro servidor y no se aplican"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sv, err := e.store.GetServer(t.Context(), tc.dest)
			require.NoError(t, err)
			sv.Settings.Semantic.Ranker = tc.ranker
			_, err = e.store.UpdateServerSettings(t.Context(), tc.dest, sv.Settings)
			require.NoError(t, err)
			status, _ := get(t, c, e.srv.URL+"/dashboard/lang/"+tc.lang+"?back=/dashboard/")
			require.Equal(t, http.StatusSeeOther, status)
			page := previewBackup(t, c, e.srv.URL, tc.dest, file(tc.from))
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
