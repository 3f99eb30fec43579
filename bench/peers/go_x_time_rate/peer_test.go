package main

import (
	"ratelabpeer"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// The start and steps of ratelab's benchmarks (bench/common.h, hot.cc, store.cc).
var start = time.Unix(0, 1000*int64(time.Second)+int64(time.Second)/3)

// One hot key, time passed in, advanced by W/N/2 per request: AllowN(now, 1).
func BenchmarkHot(b *testing.B) {
	l := newLimiter(benchLimit, benchWindow, benchBurst)
	now, step := start, benchWindow/benchLimit/2
	allowed := 0
	for i := 0; i < b.N; i++ {
		if l.AllowN(now, 1) {
			allowed++
		}
		now = now.Add(step)
	}
	sink = allowed
}

var sink int

// nkeys keys, the idiomatic map[string]*rate.Limiter (filled first), offered
// uniformly at random keys (a precomputed sequence: ratelabpeer.Keys) with
// time advancing by max(1, W / (2 N nkeys)) ns per request, as ratelab's
// store benchmark. As
// there (bench/store.cc), the map is filled once per process and kept, with
// its time, across -count's runs: a run measures the filled map's steady
// state, and five fills of a million keys (most of this harness's time) are
// not done again.
type keysBench struct {
	ratelabpeer.Keys
	m   map[string]*rate.Limiter
	now time.Time
}

var filled = map[int]*keysBench{}

func keysFor(nkeys int) *keysBench {
	if k := filled[nkeys]; k != nil {
		return k
	}
	k := &keysBench{Keys: ratelabpeer.NewKeys(nkeys, benchLimit, benchWindow),
		m: make(map[string]*rate.Limiter, nkeys), now: start}
	for _, name := range k.Names {
		k.m[name] = newLimiter(benchLimit, benchWindow, benchBurst)
	}
	filled[nkeys] = k
	return k
}

func benchKeys(b *testing.B, nkeys int) {
	k := keysFor(nkeys)
	keys, m, seq, seqLen, step := k.Names, k.m, k.Seq, len(k.Seq), k.Step
	now, allowed := k.now, 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		key := keys[seq[i&(seqLen-1)]]
		l := m[key]
		if l == nil { // get-or-create, as a server does for a new client
			l = newLimiter(benchLimit, benchWindow, benchBurst)
			m[key] = l
		}
		if l.AllowN(now, 1) {
			allowed++
		}
		now = now.Add(step)
	}
	k.now = now
	sink = allowed
}

func BenchmarkKeys1K(b *testing.B) { benchKeys(b, 1000) }
func BenchmarkKeys1M(b *testing.B) { benchKeys(b, 1000000) }
