package dashboard_test

import (
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkPages answers every page kind for a 250-entry book (the default
// scope limit) over HTTP with real Postgres, as a signed-in manager, and
// reports each page's median latency (ms-p50) next to the mean (ns/op),
// and the CPU time the process (dashboard, API and client) spent per page
// (cpu-ms/op), which other load on the machine does not inflate.
// The goal is under 100 ms at p50 on the 2-core machine
// (docs/benchmarks.md).
func BenchmarkPages(b *testing.B) {
	e := newEnv(b)
	book := make([][3]string, 250)
	for i := range book {
		book[i] = [3]string{fmt.Sprintf("Place %03d", i),
			strings.Repeat(fmt.Sprintf("Place number %d lies by the river and the old road. ", i), 6), fmt.Sprintf("place%d", i)}
	}
	coll := e.importBook(serverA, "World", book)
	entry := e.entryID(serverA, "World", "Place 123")
	c := e.httpClient()
	e.devSignIn(c, e.token("42", map[string]bool{serverA: true}))
	base := e.srv.URL + "/dashboard/s/" + serverA + "/"
	_, page := get(b, c, base+"play")
	csrf := between(page, `name="csrf" value="`, `"`)
	// Page 3 of a search sorted by title, descending: follow Next twice.
	page3 := base + "b/c" + coll + "/?q=river&sort=title&dir=desc"
	for range 2 {
		_, body := get(b, c, page3)
		next := between(body, `<a href="`, `" rel="next">`)
		if i := strings.LastIndex(next, `<a href="`); i >= 0 {
			next = next[i+len(`<a href="`):]
		}
		if next == "" {
			b.Fatal("no next page")
		}
		page3 = base + "b/c" + coll + "/" + html.UnescapeString(next)
	}
	chat := url.Values{"csrf": {csrf}, "chat": {"Ann: we walk to place12 and place200 along the road.\nBo: and then place7."}}
	for _, p := range []struct {
		name string
		url  string
		post url.Values
	}{
		{"servers", e.srv.URL + "/dashboard/", nil},
		{"server", base, nil},
		{"book", base + "b/c" + coll + "/", nil},
		{"book-search-sort-page3", page3, nil},
		{"entry", base + "b/c" + coll + "/e/" + entry, nil},
		{"import", base + "import", nil},
		{"history", base + "history", nil},
		{"playground-run", base + "play", chat},
		{"log", base + "log?channel=123", nil},
	} {
		b.Run(p.name, func(b *testing.B) {
			times := make([]time.Duration, 0, b.N)
			cpu0 := cpuTime()
			for b.Loop() {
				start := time.Now()
				var resp *http.Response
				var err error
				if p.post != nil {
					resp, err = c.PostForm(p.url, p.post)
				} else {
					resp, err = c.Get(p.url)
				}
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatalf("%s answered %d", p.url, resp.StatusCode)
				}
				times = append(times, time.Since(start))
			}
			cpu := cpuTime() - cpu0
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "ms-p50")
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(times)), "cpu-ms/op")
		})
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
