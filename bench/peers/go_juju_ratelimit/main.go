// Peer driver: github.com/juju/ratelimit (quantum token bucket: whole
// tokens added per tick of fillInterval, counted from the bucket's
// creation), through its public API: NewBucketWithQuantumAndClock with a
// simulated Clock (the API's own way to fake time; Now() returns the time
// the driver set), TakeAvailable(1) deciding.
//
//	peer decide   the decider protocol (ratelabpeer): fillInterval W/N ns
//	              (integer division), quantum 1, capacity B, one bucket per
//	              key; the retry-after is the wait for the next tick
//	              (TakeAvailable never leaves the bucket below zero)
//	peer bytes    bytes per key of 1M keys in a map[string]*ratelimit.Bucket
//
// The timings are `go test -bench .` (peer_test.go).
package main

import (
	"time"

	"github.com/juju/ratelimit"
	"ratelabpeer"
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

// bucket is a peer bucket with the creation time it was made at.
type bucket struct {
	b     *ratelimit.Bucket
	start time.Time
}

func newBucket(clock *simClock, limit int64, window time.Duration, burst int64) *ratelimit.Bucket {
	return ratelimit.NewBucketWithQuantumAndClock(window/time.Duration(limit), burst, 1, clock)
}

func newDecide(limit, window, burst int64) ratelabpeer.Decide {
	tick := time.Duration(window / limit)
	clock := &simClock{}
	buckets := map[string]bucket{}
	return func(key string, t int64) (bool, int64) {
		clock.now = time.Unix(0, t)
		b, ok := buckets[key]
		if !ok {
			b = bucket{newBucket(clock, limit, time.Duration(window), burst), clock.now}
			buckets[key] = b
		}
		if b.b.TakeAvailable(1) == 1 {
			return true, 0
		}
		elapsed := clock.now.Sub(b.start)
		return false, int64((elapsed/tick+1)*tick - elapsed)
	}
}

var benchClock = &simClock{now: time.Unix(1000, 0)}

func fill(keys []string) any {
	m := map[string]*ratelimit.Bucket{}
	for _, k := range keys {
		m[k] = newBucket(benchClock, benchLimit, benchWindow, benchBurst)
	}
	return m
}

func main() { ratelabpeer.Main("go_juju_ratelimit", newDecide, fill) }
