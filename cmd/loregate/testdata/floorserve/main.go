// Command floorserve is the platform floor BenchmarkServeTurn measures
// serve's tail against (LOREGATE_BENCH_FLOOR, docs/benchmarks.md#tail-order):
// a minimal net/http server that answers every POST with the bytes of
// LOREGATE_FLOOR_ANSWER (serve's answer to the same request) after reading
// the body and running LOREGATE_BENCH_FLOOR µs of CPU over it, and GET
// /metrics with go_memstats_alloc_bytes_total. It takes serve's arguments
// (serve --addr ADDR) and prints serve's "loregate serving" line.
package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// sink keeps the CPU work from being optimized away.
var sink atomic.Uint64

// spin hashes b n times (FNV-1a).
func spin(n int, b []byte) {
	h := uint64(14695981039346656037)
	for range n {
		for _, c := range b {
			h = (h ^ uint64(c)) * 1099511628211
		}
	}
	sink.Add(h)
}

func main() {
	if len(os.Args) != 4 || os.Args[1] != "serve" || os.Args[2] != "--addr" {
		fmt.Fprintln(os.Stderr, "usage: floorserve serve --addr ADDR")
		os.Exit(2)
	}
	spinUS, err := strconv.Atoi(os.Getenv("LOREGATE_BENCH_FLOOR"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "LOREGATE_BENCH_FLOOR: µs of CPU per request:", err)
		os.Exit(2)
	}
	answer := []byte(os.Getenv("LOREGATE_FLOOR_ANSWER"))
	// Calibrate: passes of spin over a body of the bench's size per µs.
	probe := make([]byte, 5000)
	start := time.Now()
	spin(2000, probe)
	passes := int(float64(spinUS) * 1000 / (float64(time.Since(start).Nanoseconds()) / 2000))
	bodies := sync.Pool{New: func() any { return new([]byte) }}
	var id atomic.Uint64
	mux := http.NewServeMux()
	mux.HandleFunc("POST /", func(w http.ResponseWriter, r *http.Request) {
		bp := bodies.Get().(*[]byte)
		b := (*bp)[:0]
		for {
			if len(b) == cap(b) {
				b = append(b, 0)[:len(b)]
			}
			n, err := r.Body.Read(b[len(b):cap(b)])
			b = b[:len(b)+n]
			if err != nil {
				break
			}
		}
		spin(passes*5000/max(len(b), 1), b)
		*bp = b
		bodies.Put(bp)
		h := w.Header()
		h["Content-Type"] = []string{"application/json"}
		h["X-Request-Id"] = []string{fmt.Sprintf("%016x", id.Add(1))}
		h["Content-Length"] = []string{strconv.Itoa(len(answer))}
		_, _ = w.Write(answer)
	})
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		fmt.Fprintf(w, "go_memstats_alloc_bytes_total %d\n", ms.TotalAlloc)
	})
	ln, err := net.Listen("tcp", os.Args[3])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "level=INFO msg=\"loregate serving\" addr=%s\n", ln.Addr())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 60 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 2 * time.Minute}
	fmt.Fprintln(os.Stderr, srv.Serve(ln))
	os.Exit(1)
}
