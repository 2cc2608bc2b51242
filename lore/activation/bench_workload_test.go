package activation

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"
)

// BenchmarkWorkload measures a bot turn (Options.SkipTrace, warm text
// cache, scan depth = the chat's length, unlimited budget) over the bench
// workload's books and chats (workload/NAME.json, imported by the real
// importer: latin-250, latin-500 and cjk-250 with their 5, 20 and
// 100-message chats) against the one-lookup-per-byte loop over the same
// messages (docs/benchmarks.md "Activation engine"): engine repeats the
// chat (every message seen by the turn before, as in BenchmarkActivation),
// new makes the newest message new each turn (its last message with a turn
// number), as in a conversation. Goals: at most 5x the byte loop at 5
// messages and 3x at 100. Process CPU time per turn, each variant's
// fastest of 7 interleaved rounds.
func BenchmarkWorkload(b *testing.B) {
	for _, book := range []string{"latin-250", "latin-500", "cjk-250"} {
		for _, n := range []int{5, 20, 100} {
			b.Run(fmt.Sprintf("%s/msgs=%d", book, n), func(b *testing.B) {
				in := recWorkload(b, book, fmt.Sprintf("%s-chat-%d", book, n))
				opts := Options{ScanDepth: ptr(n), CharBudget: -1, Random: func() float64 { return 0 }, SkipTrace: true, Texts: NewTextCache(0)}
				m := CompileInput(&in, opts.MatchOptions())
				res, err := m.Activate(context.Background(), in, opts)
				if err != nil {
					b.Fatal(err)
				}
				if res.NumAdmitted() == 0 {
					b.Fatal("the workload's chat admits nothing")
				}
				textBytes := 0
				for _, msg := range in.Messages {
					textBytes += len(msg)
				}
				b.SetBytes(int64(textBytes))
				var tbl [256]uint8
				for i := range tbl {
					tbl[i] = uint8(i*167 + 13)
				}
				// slide is the turn whose newest message is new (as in a
				// conversation): the chat's last message with a turn number.
				slide := in
				slide.Messages = slices.Clone(in.Messages)
				last, turn := in.Messages[len(in.Messages)-1], 0
				engine, slid, bytes := time.Duration(1<<62), time.Duration(1<<62), time.Duration(1<<62)
				for range 7 {
					engine = min(engine, cpuPerTurn(20*time.Millisecond, func() {
						res, _ := m.Activate(context.Background(), in, opts)
						benchSink += res.NumAdmitted()
					}))
					slid = min(slid, cpuPerTurn(20*time.Millisecond, func() {
						turn++
						slide.Messages[len(slide.Messages)-1] = last + " " + strconv.Itoa(turn)
						res, _ := m.Activate(context.Background(), slide, opts)
						benchSink += res.NumAdmitted()
					}))
					bytes = min(bytes, cpuPerTurn(10*time.Millisecond, func() { benchSink += int(byteLoop(&tbl, in.Messages)) }))
				}
				for b.Loop() {
					res, _ := m.Activate(context.Background(), in, opts)
					benchSink += res.NumAdmitted()
				}
				b.ReportMetric(float64(res.NumAdmitted()), "admitted")
				b.ReportMetric(float64(engine.Nanoseconds()), "cpu-ns/turn")
				b.ReportMetric(float64(bytes.Nanoseconds()), "byteloop-ns/turn")
				b.ReportMetric(float64(slid.Nanoseconds()), "new-ns/turn")
				b.ReportMetric(float64(engine)/float64(bytes), "engine/byteloop")
				b.ReportMetric(float64(slid)/float64(bytes), "new/byteloop")
			})
		}
	}
}
