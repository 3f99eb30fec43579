package main

import (
	"math/rand"
	"strconv"
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
// uniformly at random keys (a precomputed sequence) with time advancing by
// max(1, W / (2 N nkeys)) ns per request, as ratelab's store benchmark.
func benchKeys(b *testing.B, nkeys int) {
	keys := make([]string, nkeys)
	m := make(map[string]*rate.Limiter, nkeys)
	for i := range keys {
		keys[i] = "k" + strconv.Itoa(i)
		m[keys[i]] = newLimiter(benchLimit, benchWindow, benchBurst)
	}
	seqLen := 1 << 16
	if nkeys >= 1<<16 {
		seqLen = 1 << 22
	}
	rng := rand.New(rand.NewSource(int64(0x11 + nkeys)))
	seq := make([]int32, seqLen)
	for i := range seq {
		seq[i] = int32(rng.Intn(nkeys))
	}
	step := benchWindow / time.Duration(2*benchLimit*nkeys)
	if step < 1 {
		step = 1
	}
	now, allowed := start, 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := keys[seq[i&(seqLen-1)]]
		l := m[k]
		if l == nil { // get-or-create, as a server does for a new client
			l = newLimiter(benchLimit, benchWindow, benchBurst)
			m[k] = l
		}
		if l.AllowN(now, 1) {
			allowed++
		}
		now = now.Add(step)
	}
	sink = allowed
}

func BenchmarkKeys1K(b *testing.B) { benchKeys(b, 1000) }
func BenchmarkKeys1M(b *testing.B) { benchKeys(b, 1000000) }
