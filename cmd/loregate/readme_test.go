package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/lore/postgres/postgrestest"
	"loregate/lore/sharedtest"
)

// readmeBlock returns the indented command block of README.md that
// follows the paragraph starting with after and contains must, unindented
// (its backslash continuations kept, so a shell runs it as written).
func readmeBlock(t *testing.T, after, must string) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	text := string(b)
	i := strings.Index(text, after)
	require.GreaterOrEqual(t, i, 0, "README.md has no %q", after)
	var block []string
	for _, line := range strings.Split(text[i:], "\n") {
		switch {
		case strings.HasPrefix(line, "    "):
			block = append(block, strings.TrimPrefix(line, "    "))
		case len(block) > 0:
			if cmd := strings.Join(block, "\n"); strings.Contains(cmd, must) {
				return cmd
			}
			block = nil
		}
	}
	t.Fatalf("README.md has no command block with %q after %q", must, after)
	return ""
}

// runReadme runs a README command with bash, the service's address in
// place of localhost:8080 and the given replacements, and decodes its
// JSON answer.
func runReadme(t *testing.T, cmd, addr string, replace ...string) map[string]any {
	t.Helper()
	cmd = strings.NewReplacer(append([]string{"localhost:8080", addr}, replace...)...).Replace(cmd)
	out, err := exec.Command("bash", "-c", cmd+" --silent --show-error").Output()
	require.NoError(t, err, "%s", cmd)
	var v map[string]any
	require.NoError(t, json.Unmarshal(out, &v), "%s", out)
	require.Nil(t, v["errors"], "%s", out)
	return v["data"].(map[string]any)
}

// TestReadmeUploadExample runs the README's upload example as written
// against a real `loregate serve`: a small world info book answers with its
// report (split, inert, warnings) and importId, a 4 MB PNG card with a job,
// and the README's job(id) poll then shows the job's result.
func TestReadmeUploadExample(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatal("the README example needs curl (apt-get install curl)")
	}
	upload := readmeBlock(t, "Upload a lorebook file", "importLorebook")
	poll := readmeBlock(t, "Upload a lorebook file", "job(id:")
	const key = "dev-key-change-me-0123"
	require.Contains(t, upload, "Bearer "+key, "the example uses the README's service key")
	p := startServe(t, loregateBinary(t), []string{"DATABASE_URL=" + postgrestest.NewDatabase(t), "LOREGATE_SERVICE_KEYS=" + key})
	body := `{"query":"mutation { upsertServer(input: {discordId: \"123456789012345678\", name: \"My server\"}) { error { code } } }"}`
	req, err := http.NewRequest(http.MethodPost, "http://"+p.addr+"/graphql", bytes.NewBufferString(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)

	dir := t.TempDir()
	small := filepath.Join(dir, "Eorzea.json")
	require.NoError(t, os.WriteFile(small, sharedtest.Read(t, "corpus", "st-worldinfo", "bronya-rand__Eorzea.json"), 0o600))
	got := runReadme(t, upload, p.addr, "@MyBook.json", "@"+small)["importLorebook"].(map[string]any)
	require.Nil(t, got["error"], "%v", got)
	require.Nil(t, got["job"], "a small book is imported inline")
	require.NotNil(t, got["importId"])
	require.Greater(t, got["added"], 0.0)
	report := got["report"].(map[string]any)
	for _, k := range []string{"split", "inert", "warnings", "skipped"} {
		require.Contains(t, report, k, "the example selects %s", k)
	}
	require.Equal(t, "st-worldinfo", report["format"])

	large := filepath.Join(dir, "Clorinde.png")
	require.NoError(t, os.WriteFile(large, sharedtest.Read(t, "corpus", "png", "bronya-rand__Clorinde_v3_ccv3.png"), 0o600))
	got = runReadme(t, upload, p.addr, "@MyBook.json", "@"+large)["importLorebook"].(map[string]any)
	require.Nil(t, got["error"], "%v", got)
	require.Nil(t, got["report"], "a large card is a job: no report yet")
	require.Zero(t, got["added"])
	job := got["job"].(map[string]any)
	require.NotEmpty(t, job["id"])
	require.NotEmpty(t, job["state"])

	deadline := time.Now().Add(2 * time.Minute)
	for {
		j := runReadme(t, poll, p.addr, "JOB_ID", job["id"].(string))["job"].(map[string]any)
		if j["state"] == "COMPLETED" {
			res := j["importResult"].(map[string]any)
			require.Equal(t, 38.0, res["added"])
			require.NotNil(t, res["importId"])
			require.Equal(t, "png/v3-card", res["report"].(map[string]any)["format"])
			return
		}
		require.NotContains(t, []any{"CANCELLED", "DISCARDED"}, j["state"], "%v", j)
		require.True(t, time.Now().Before(deadline), "the job did not finish: %v\n%s", j, p.output())
		time.Sleep(200 * time.Millisecond)
	}
}
