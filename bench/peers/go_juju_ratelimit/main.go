// Peer driver: github.com/juju/ratelimit (quantum token bucket: whole
// tokens added per tick of fillInterval, counted from the bucket's
// creation), through its public API: NewBucketWithQuantumAndClock with a
// simulated Clock (the API's own way to fake time; Now() returns the time
// the driver set), TakeAvailable(1) deciding.
//
//	peer decide   the decider protocol of `ratelab sim --decider` (README):
//	              reads "T KEY", answers "1" or "0 RETRY_NS"; the rule from
//	              RATELAB_LIMIT, RATELAB_WINDOW_NS, RATELAB_BURST:
//	              fillInterval W/N ns (integer division), quantum 1,
//	              capacity B; the retry-after is the wait for the next tick
//	              (TakeAvailable never leaves the bucket below zero)
//	peer bytes    bytes per key: heap in use (runtime.MemStats, after GC)
//	              before and after 1M keys in a map[string]*ratelimit.Bucket
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

	"github.com/juju/ratelimit"
)

// The benchmarks' rule, as ratelab's (bench/common.h): N = 100 per W = 1 s, burst N.
const (
	benchLimit  = 100
	benchWindow = time.Second
	benchBurst  = 100
)

// simClock is the simulated time every bucket reads.
type simClock struct{ now time.Time }

func (c *simClock) Now() time.Time        { return c.now }
func (c *simClock) Sleep(d time.Duration) { c.now = c.now.Add(d) }

// bucket is a peer bucket with the creation time and tick it was made with.
type bucket struct {
	b     *ratelimit.Bucket
	start time.Time
}

func newBucket(clock *simClock, limit int64, window time.Duration, burst int64) *ratelimit.Bucket {
	return ratelimit.NewBucketWithQuantumAndClock(window/time.Duration(limit), burst, 1, clock)
}

func envInt(name string) int64 {
	v, err := strconv.ParseInt(os.Getenv(name), 10, 64)
	if err != nil || v < 1 {
		fmt.Fprintf(os.Stderr, "peer go_juju_ratelimit: %s=%q is not a positive integer\n", name, os.Getenv(name))
		os.Exit(2)
	}
	return v
}

func runDecide() {
	limit, window, burst := envInt("RATELAB_LIMIT"), envInt("RATELAB_WINDOW_NS"), envInt("RATELAB_BURST")
	tick := time.Duration(window / limit)
	clock := &simClock{}
	buckets := map[string]bucket{}
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	for line := 1; in.Scan(); line++ {
		f := strings.Fields(in.Text())
		if len(f) != 2 {
			fmt.Fprintf(os.Stderr, "peer go_juju_ratelimit: line %d: %q: expected 'T KEY'\n", line, in.Text())
			os.Exit(2)
		}
		t, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || t < 0 {
			fmt.Fprintf(os.Stderr, "peer go_juju_ratelimit: line %d: bad time %q\n", line, f[0])
			os.Exit(2)
		}
		clock.now = time.Unix(0, t)
		b, ok := buckets[f[1]]
		if !ok {
			b = bucket{newBucket(clock, limit, time.Duration(window), burst), clock.now}
			buckets[f[1]] = b
		}
		if b.b.TakeAvailable(1) == 1 {
			out.WriteString("1\n")
		} else {
			elapsed := clock.now.Sub(b.start)
			fmt.Fprintf(out, "0 %d\n", (elapsed/tick+1)*tick-elapsed)
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
	clock := &simClock{now: time.Unix(1000, 0)}
	before := heapInUse()
	m := map[string]*ratelimit.Bucket{}
	for _, k := range keys {
		m[k] = newBucket(clock, benchLimit, benchWindow, benchBurst)
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
