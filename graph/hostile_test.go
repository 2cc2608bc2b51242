package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"loregate/graph"
	"loregate/lore"
)

// Bounds every hostile request must stay within (issue 18): CPU time of the
// whole process while the request is answered, extra live heap at its
// peak, and CPU once the answer is in (no work left running).
const (
	hostileMaxCPU   = 2 * time.Second
	hostileMaxHeap  = 64 << 20
	idleAfter       = time.Second
	idleWindow      = 300 * time.Millisecond
	idleMaxCPUShare = 0.15 // of one core, over idleWindow
)

func processCPU(t testing.TB) time.Duration {
	var ru syscall.Rusage
	require.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// bounded runs fn (one request) and asserts the issue-18 bounds: at most
// hostileMaxCPU of process CPU and hostileMaxHeap of extra heap while it
// runs, and the process idle within idleAfter of the answer (requireIdle).
func bounded(t *testing.T, fn func()) {
	t.Helper()
	runtime.GC()
	base := heapObjects()
	var peak uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			peak = max(peak, heapObjects())
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	cpu0 := processCPU(t)
	fn()
	cpu := processCPU(t) - cpu0
	close(stop)
	wg.Wait()
	extra := int64(peak) - int64(base)
	t.Logf("cpu %v, extra heap %.1f MiB", cpu, float64(extra)/(1<<20))
	require.LessOrEqual(t, cpu, hostileMaxCPU, "CPU of one hostile request")
	require.LessOrEqual(t, extra, int64(hostileMaxHeap), "extra heap of one hostile request")
	requireIdle(t)
}

// requireIdle asserts the process goes idle within idleAfter of an answer:
// back-to-back windows of idleWindow from the answer on, the first with at
// most idleMaxCPUShare of one core passes, and none by idleAfter+idleWindow
// fails. Work left running after the answer (an uncancelled scan, a leaked
// goroutine) keeps every window busy.
func requireIdle(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(idleAfter + idleWindow)
	for {
		c0 := processCPU(t)
		time.Sleep(idleWindow)
		busy := processCPU(t) - c0
		share := float64(busy) / float64(idleWindow)
		if share <= idleMaxCPUShare {
			return
		}
		if time.Now().After(deadline) {
			require.LessOrEqual(t, share, idleMaxCPUShare,
				"CPU %v over the last %v, %v after the answer: work went on after the answer", busy, idleWindow, idleAfter)
			return
		}
	}
}

// costlyRegexBook is the issue-18 regex repro at the costliest keys the
// stored bounds allow: entries of 100 distinct keys of about 420 RE2
// instructions each.
func costlyRegexBook(entries int) []map[string]any {
	var out []map[string]any
	for i := range entries {
		keys := make([]string, 100)
		for j := range keys {
			keys[j] = fmt.Sprintf(`/[\s\S]{0,100}[\s\S]{0,100}z%d_%d/`, i, j)
		}
		out = append(out, map[string]any{"title": fmt.Sprintf("costly %d", i), "content": "x", "keys": keys, "scanDepth": 10})
	}
	return out
}

// TestHostileRequests replays each attack of issue 18 at its repro size
// against the real handler and database and checks each is answered (or
// refused with a clear error) within the bounds.
func TestHostileRequests(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	const lineage = 7
	var p struct{ Error *mutationError }
	a.must(serviceKey, qUpsertPersona, map[string]any{"s": serverA, "id": 70, "l": lineage, "n": "Vex"}, "upsertPersona", &p)
	require.Nil(t, p.Error)
	a.must(serviceKey, `mutation($s: String!) { updateServerSettings(input: {serverDiscordId: $s, regexKeys: true}) { error { code message } } }`,
		map[string]any{"s": serverA}, "updateServerSettings", &p)
	require.Nil(t, p.Error)
	const qReplace = `mutation($s: String!, $l: Int64!, $e: [EntryInput!]!) { replacePersonaBook(input: {serverDiscordId: $s, lineageId: $l, entries: $e}) { count error { code message field } } }`

	t.Run("regex key over the bounds is refused on write", func(t *testing.T) {
		var rp struct {
			Count *int
			Error *mutationError
		}
		book := costlyRegexBook(1)
		book[0]["keys"] = []string{"dragon", `/[\s\S]{0,1000}z/`}
		bounded(t, func() {
			a.must(serviceKey, qReplace, map[string]any{"s": serverA, "l": lineage, "e": book}, "replacePersonaBook", &rp)
		})
		require.NotNil(t, rp.Error)
		require.Equal(t, "INVALID_INPUT", rp.Error.Code)
		require.Contains(t, rp.Error.Message, "keys[1]")
		require.Contains(t, rp.Error.Message, "repeats 1000 times, at most 100 allowed")
	})

	// 10 entries of 100 costly keys each, over a 10-message turn of 100 KiB.
	var rp struct {
		Count *int
		Error *mutationError
	}
	book := append(costlyRegexBook(10), map[string]any{"title": "literal", "content": "a dragon", "keys": []string{"dragon"}, "scanDepth": 10})
	a.must(serviceKey, qReplace, map[string]any{"s": serverA, "l": lineage, "e": book}, "replacePersonaBook", &rp)
	require.Nil(t, rp.Error)
	require.Equal(t, 11, *rp.Count)
	msgs := make([]map[string]any, 10)
	for i := range msgs {
		msgs[i] = map[string]any{"content": strings.Repeat("lorem ipsum dolor sit amet ", 380)[:10<<10]}
	}
	msgs[9]["content"] = msgs[9]["content"].(string) + " a dragon"
	turn := map[string]any{"serverDiscordId": serverA, "lineageId": lineage, "messages": msgs}

	t.Run("costly regex keys end in regex_budget_exhausted", func(t *testing.T) {
		var act activationResult
		bounded(t, func() {
			a.must(serviceKey, qActivate, map[string]any{"input": turn}, "activate", &act)
		})
		verdicts := map[string]string{}
		details := map[string]string{}
		for _, tr := range act.Trace {
			verdicts[tr.Title] = tr.Verdict
			if tr.Detail != nil {
				details[tr.Title] = *tr.Detail
			}
		}
		// The first keys fit the scope's regex program bound and exhaust
		// the turn's regex budget; the later ones are not compiled.
		for i := range 10 {
			title := fmt.Sprintf("costly %d", i)
			if i < 2 {
				require.Equal(t, "regex_budget_exhausted", verdicts[title], title)
				continue
			}
			if verdicts[title] != "regex_budget_exhausted" {
				require.Equal(t, "no_key_match", verdicts[title], title)
				require.Contains(t, details[title], "together exceed", title)
			}
		}
		require.Equal(t, "admitted", verdicts["literal"])
	})

	t.Run("3.6 MiB query is refused before parsing", func(t *testing.T) {
		q := "{" + strings.Repeat(" __typename", (36<<20)/10/11) + " }"
		var r gqlResponse
		bounded(t, func() { r = a.do(serviceKey, q, nil) })
		require.Len(t, r.Errors, 1)
		require.Equal(t, graph.CodeQueryTooLarge, r.Errors[0].Extensions["code"])
		require.Contains(t, r.Errors[0].Message, "at most 65536 allowed")
	})

	t.Run("{__typename x10000} is refused", func(t *testing.T) {
		var r gqlResponse
		bounded(t, func() { r = a.do(serviceKey, "{"+strings.Repeat("__typename ", 10000)+"}", nil) })
		require.Equal(t, graph.CodeQueryTooLarge, r.Errors[0].Extensions["code"])
	})

	t.Run("5,000 fields within the size are refused before validation", func(t *testing.T) {
		var r gqlResponse
		bounded(t, func() { r = a.do(serviceKey, "{"+strings.Repeat("__typename ", 5000)+"}", nil) })
		require.Equal(t, graph.CodeQueryTooComplex, r.Errors[0].Extensions["code"], r.Errors[0].Message)
	})

	t.Run("token limit", func(t *testing.T) {
		var r gqlResponse
		bounded(t, func() { r = a.do(serviceKey, "{"+strings.Repeat("a ", 12000)+"}", nil) })
		require.Equal(t, graph.CodeQueryTooLarge, r.Errors[0].Extensions["code"])
		require.Contains(t, r.Errors[0].Message, "tokens")
	})

	t.Run("fragments doubling over 26 levels are refused", func(t *testing.T) {
		var q strings.Builder
		q.WriteString("query { ...F0 }\n")
		for i := range 26 {
			fmt.Fprintf(&q, "fragment F%d on Query { ...F%d ...F%d }\n", i, i+1, i+1)
		}
		q.WriteString("fragment F26 on Query { __typename }\n")
		var r gqlResponse
		bounded(t, func() { r = a.do(serviceKey, q.String(), nil) })
		require.Equal(t, graph.CodeQueryTooComplex, r.Errors[0].Extensions["code"], r.Errors[0].Message)
	})

	t.Run("2,000 activate aliases sharing a 1 MiB message", func(t *testing.T) {
		big := map[string]any{"serverDiscordId": serverA, "lineageId": lineage,
			"messages": []map[string]any{{"content": strings.Repeat("lorem ipsum ", (1<<20)/12)}}}
		var q strings.Builder
		q.WriteString("query($i: ActivateInput!) {")
		for i := range 2000 {
			fmt.Fprintf(&q, " a%d: activate(input: $i) { budget { used } }", i)
		}
		q.WriteString(" }")
		var r gqlResponse
		bounded(t, func() { r = a.do(serviceKey, q.String(), map[string]any{"i": big}) })
		require.Equal(t, graph.CodeQueryTooLarge, r.Errors[0].Extensions["code"])
		// Within the document bounds (500 aliases), the request's one text
		// budget admits one 1 MiB activation and refuses the others.
		q.Reset()
		q.WriteString("query($i: ActivateInput!) {")
		for i := range 500 {
			fmt.Fprintf(&q, " a%d: activate(input: $i) { budget { used } }", i)
		}
		q.WriteString(" }")
		bounded(t, func() { r = a.do(serviceKey, q.String(), map[string]any{"i": big}) })
		require.Len(t, r.Errors, 499)
		require.Contains(t, r.Errors[0].Message, "the activations of one request carry at most 1048576 bytes of text together")
	})

	t.Run("5,000-entry book names the scope limit", func(t *testing.T) {
		entries := make([]map[string]any, 5000)
		for i := range entries {
			entries[i] = map[string]any{"title": fmt.Sprint("e", i), "content": "c", "keys": []string{"k"}}
		}
		bounded(t, func() {
			a.must(serviceKey, qReplace, map[string]any{"s": serverA, "l": lineage, "e": entries}, "replacePersonaBook", &rp)
		})
		require.NotNil(t, rp.Error)
		require.Contains(t, rp.Error.Message, "at most 250 entries")
		require.NotContains(t, rp.Error.Message, "1000")
	})

	t.Run("100 MB upload is refused with a code", func(t *testing.T) {
		var status int
		var body []byte
		bounded(t, func() {
			req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, a.srv.URL+"/graphql", io.LimitReader(zeros{}, 100<<20))
			require.NoError(t, err)
			req.ContentLength = 100 << 20
			req.Header.Set("Content-Type", "multipart/form-data; boundary=x")
			req.Header.Set("Authorization", "Bearer "+serviceKey)
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			status = resp.StatusCode
			body, _ = io.ReadAll(resp.Body)
		})
		require.Equal(t, http.StatusRequestEntityTooLarge, status)
		var r gqlResponse
		require.NoError(t, json.Unmarshal(body, &r))
		require.Equal(t, graph.CodeRequestTooLarge, r.Errors[0].Extensions["code"])
		// The JSON figure is the deployment's import limit (2,000,000 by
		// default), not the Discord download cap of 2 MiB it once quoted.
		require.Contains(t, r.Errors[0].Message, fmt.Sprintf("JSON lorebooks %d bytes, cards %d bytes", lore.DefaultJSONBytes, graph.MaxUploadBytes))
	})
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// TestHostileFullScope: the regex repro over a full persona scope (250
// entries of 100 costly keys): the write and the turn stay bounded.
func TestHostileFullScope(t *testing.T) {
	a := newAPI(t)
	setupServer(t, a, serverA)
	var p struct{ Error *mutationError }
	a.must(serviceKey, qUpsertPersona, map[string]any{"s": serverA, "id": 70, "l": 7, "n": "Vex"}, "upsertPersona", &p)
	a.must(serviceKey, `mutation($s: String!) { updateServerSettings(input: {serverDiscordId: $s, regexKeys: true}) { error { code message } } }`,
		map[string]any{"s": serverA}, "updateServerSettings", &p)
	var rp struct {
		Count *int
		Error *mutationError
	}
	bounded(t, func() {
		a.must(serviceKey, `mutation($s: String!, $e: [EntryInput!]!) { replacePersonaBook(input: {serverDiscordId: $s, lineageId: 7, entries: $e}) { count error { code message field } } }`,
			map[string]any{"s": serverA, "e": costlyRegexBook(250)}, "replacePersonaBook", &rp)
	})
	require.Nil(t, rp.Error)
	require.Equal(t, 250, *rp.Count)
	msgs := make([]map[string]any, 10)
	for i := range msgs {
		msgs[i] = map[string]any{"content": strings.Repeat("lorem ipsum dolor sit amet ", 380)[:10<<10]}
	}
	var act activationResult
	bounded(t, func() {
		a.must(serviceKey, qActivate, map[string]any{"input": map[string]any{"serverDiscordId": serverA, "lineageId": 7, "messages": msgs}}, "activate", &act)
	})
	require.Len(t, act.Trace, 250)
	require.Equal(t, "regex_budget_exhausted", act.Trace[0].Verdict)
	require.Equal(t, "no_key_match", act.Trace[249].Verdict)
}
