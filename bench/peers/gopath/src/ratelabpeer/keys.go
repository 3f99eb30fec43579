package ratelabpeer

import (
	"math/rand"
	"strconv"
	"time"
)

// Keys is what a driver's keys benchmark offers its map, as ratelab's store
// benchmark does its store (bench/store.cc): the names "k0", "k1", ... of
// nkeys keys, a uniform sequence of their indices (2^16 entries, 2^22 from
// 2^16 keys on; math/rand seeded 0x11 + nkeys), and the time step per
// request, max(1, W / (2 N nkeys)) ns.
type Keys struct {
	Names []string
	Seq   []int32
	Step  time.Duration
}

// NewKeys gives the Keys of nkeys keys under the rule limit per window.
func NewKeys(nkeys int, limit int64, window time.Duration) Keys {
	k := Keys{Names: make([]string, nkeys)}
	for i := range k.Names {
		k.Names[i] = "k" + strconv.Itoa(i)
	}
	seqLen := 1 << 16
	if nkeys >= 1<<16 {
		seqLen = 1 << 22
	}
	rng := rand.New(rand.NewSource(int64(0x11 + nkeys)))
	k.Seq = make([]int32, seqLen)
	for i := range k.Seq {
		k.Seq[i] = int32(rng.Intn(nkeys))
	}
	k.Step = window / time.Duration(2*limit*int64(nkeys))
	if k.Step < 1 {
		k.Step = 1
	}
	return k
}
