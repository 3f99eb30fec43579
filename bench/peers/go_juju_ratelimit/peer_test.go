package main

import (
	"ratelabpeer"
	"testing"
	"time"

	"github.com/juju/ratelimit"
)

// The start and steps of ratelab's benchmarks (bench/common.h, hot.cc, store.cc).
var start = time.Unix(0, 1000*int64(time.Second)+int64(time.Second)/3)

var sink int64

// One hot key, the simulated clock advanced by W/N/2 per request (time
// reaches the bucket through its Clock, the nearest to passing it in):
// TakeAvailable(1).
func BenchmarkHot(b *testing.B) {
	clock := &simClock{now: start}
	l := newBucket(clock, benchLimit, benchWindow, benchBurst)
	step := benchWindow / benchLimit / 2
	var allowed int64
	for i := 0; i < b.N; i++ {
		allowed += l.TakeAvailable(1)
		clock.now = clock.now.Add(step)
	}
	sink = allowed
}

// nkeys keys, the idiomatic map[string]*ratelimit.Bucket (filled first),
// offered uniformly at random keys (a precomputed sequence: ratelabpeer.Keys) with time
// advancing by max(1, W / (2 N nkeys)) ns per request, as ratelab's store
// benchmark. As there (bench/store.cc), the map is filled once per process
// and kept, with its clock, across -count's runs: a run measures the filled
// map's steady state, and five fills of a million keys (most of this
// harness's time) are not done again.
type keysBench struct {
	ratelabpeer.Keys
	clock *simClock
	m     map[string]*ratelimit.Bucket
}

var filled = map[int]*keysBench{}

func keysFor(nkeys int) *keysBench {
	if k := filled[nkeys]; k != nil {
		return k
	}
	k := &keysBench{Keys: ratelabpeer.NewKeys(nkeys, benchLimit, benchWindow), clock: &simClock{now: start},
		m: make(map[string]*ratelimit.Bucket, nkeys)}
	for _, name := range k.Names {
		k.m[name] = newBucket(k.clock, benchLimit, benchWindow, benchBurst)
	}
	filled[nkeys] = k
	return k
}

func benchKeys(b *testing.B, nkeys int) {
	k := keysFor(nkeys)
	clock, keys, m, seq, seqLen, step := k.clock, k.Names, k.m, k.Seq, len(k.Seq), k.Step
	var allowed int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		key := keys[seq[i&(seqLen-1)]]
		l := m[key]
		if l == nil { // get-or-create, as a server does for a new client
			l = newBucket(clock, benchLimit, benchWindow, benchBurst)
			m[key] = l
		}
		allowed += l.TakeAvailable(1)
		clock.now = clock.now.Add(step)
	}
	sink = allowed
}

func BenchmarkKeys1K(b *testing.B) { benchKeys(b, 1000) }
func BenchmarkKeys1M(b *testing.B) { benchKeys(b, 1000000) }
