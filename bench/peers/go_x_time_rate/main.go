// Peer driver: golang.org/x/time/rate (token bucket, float64 tokens), used
// through its public API with time passed in (AllowN/ReserveN take now).
//
//	peer decide   the decider protocol (ratelabpeer): one rate.Limiter per
//	              key, in a map[string]*rate.Limiter
//	peer bytes    bytes per key of 1M keys in a map[string]*rate.Limiter
//
// The timings are `go test -bench .` (peer_test.go).
package main

import (
	"time"

	"golang.org/x/time/rate"
	"ratelabpeer"
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

func newDecide(limit, window, burst int64) ratelabpeer.Decide {
	limiters := map[string]*rate.Limiter{}
	return func(key string, t int64) (bool, int64) {
		l := limiters[key]
		if l == nil {
			l = newLimiter(limit, time.Duration(window), int(burst))
			limiters[key] = l
		}
		ok, d := decide(l, time.Unix(0, t))
		return ok, d.Nanoseconds()
	}
}

func fill(keys []string) any {
	m := map[string]*rate.Limiter{}
	for _, k := range keys {
		m[k] = newLimiter(benchLimit, benchWindow, benchBurst)
	}
	return m
}

func main() { ratelabpeer.Main("go_x_time_rate", newDecide, fill) }
