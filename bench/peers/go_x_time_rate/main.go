// Peer driver: golang.org/x/time/rate (token bucket, float64 tokens), used
// through its public API with time passed in (AllowN/ReserveN take now).
//
//	peer decide   the decider protocol of `ratelab sim --decider` (README):
//	              reads "T KEY", answers "1" or "0 RETRY_NS"; the rule from
//	              RATELAB_LIMIT, RATELAB_WINDOW_NS, RATELAB_BURST
//	peer bytes    bytes per key: heap in use (runtime.MemStats, after GC)
//	              before and after 1M keys in a map[string]*rate.Limiter
//
// The timings are `go test -bench .` (peer_test.go).
package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"
)

// The benchmarks' rule, as ratelab's (bench/common.h): N = 100 per W = 1 s, burst N.
const (
	benchLimit  = 100
	benchWindow = time.Second
	benchBurst  = 100
)

func newLimiter(limit int64, window time.Duration, burst int) *rate.Limiter {
	return rate.NewLimiter(rate.Every(window/time.Duration(limit)), burst)
}

// decide answers one request at simulated time now: admitted, or the wait
// until a token is there (a reservation taken, measured and cancelled).
func decide(l *rate.Limiter, now time.Time) (bool, time.Duration) {
	r := l.ReserveN(now, 1)
	if !r.OK() {
		return false, time.Duration(1<<63 - 1)
	}
	d := r.DelayFrom(now)
	if d == 0 {
		return true, 0
	}
	r.CancelAt(now)
	return false, d
}

func envInt(name string) int64 {
	v, err := strconv.ParseInt(os.Getenv(name), 10, 64)
	if err != nil || v < 1 {
		fmt.Fprintf(os.Stderr, "peer go_x_time_rate: %s=%q is not a positive integer\n", name, os.Getenv(name))
		os.Exit(2)
	}
	return v
}

func runDecide() {
	limit, window, burst := envInt("RATELAB_LIMIT"), envInt("RATELAB_WINDOW_NS"), envInt("RATELAB_BURST")
	limiters := map[string]*rate.Limiter{}
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	for line := 1; in.Scan(); line++ {
		f := strings.Fields(in.Text())
		if len(f) != 2 {
			fmt.Fprintf(os.Stderr, "peer go_x_time_rate: line %d: %q: expected 'T KEY'\n", line, in.Text())
			os.Exit(2)
		}
		t, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || t < 0 {
			fmt.Fprintf(os.Stderr, "peer go_x_time_rate: line %d: bad time %q\n", line, f[0])
			os.Exit(2)
		}
		l := limiters[f[1]]
		if l == nil {
			l = newLimiter(limit, time.Duration(window), int(burst))
			limiters[f[1]] = l
		}
		if ok, d := decide(l, time.Unix(0, t)); ok {
			out.WriteString("1\n")
		} else {
			fmt.Fprintf(out, "0 %d\n", d.Nanoseconds())
		}
		out.Flush()
	}
}

func heapInUse() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func runBytes() {
	const n = 1000000
	keys := make([]string, n)
	for i := range keys {
		keys[i] = "k" + strconv.Itoa(i)
	}
	before := heapInUse()
	m := map[string]*rate.Limiter{}
	for _, k := range keys {
		m[k] = newLimiter(benchLimit, benchWindow, benchBurst)
	}
	after := heapInUse()
	runtime.KeepAlive(m)
	fmt.Printf("%.1f\n", float64(after-before)/n)
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == "decide" {
		runDecide()
	} else if len(os.Args) == 2 && os.Args[1] == "bytes" {
		runBytes()
	} else {
		fmt.Fprintln(os.Stderr, "usage: peer decide | peer bytes")
		os.Exit(2)
	}
}
