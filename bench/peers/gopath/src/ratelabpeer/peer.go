// Package ratelabpeer is what the Go peer drivers share: their command line,
// the decider protocol of `ratelab sim --decider` and the bytes-per-key
// figure. Each driver brings only its library's calls. The drivers build in
// GOPATH mode with this tree's bench/peers/gopath after Debian's gocode
// (bench/peers/run.sh).
package ratelabpeer

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Decide answers one request for key at simulated time t (ns): admitted, or
// the wait in ns until it would be.
type Decide func(key string, t int64) (ok bool, retryNs int64)

// Main runs the driver named name:
//
//	peer decide   reads "T KEY" lines, answers "1" or "0 RETRY_NS", deciding
//	              with newDecide(limit, window, burst), the rule from
//	              RATELAB_LIMIT, RATELAB_WINDOW_NS, RATELAB_BURST
//	peer bytes    bytes per key: heap in use (runtime.MemStats, after GC)
//	              before and after fill builds its map of 1M keys
func Main(name string, newDecide func(limit, window, burst int64) Decide, fill func(keys []string) any) {
	if len(os.Args) == 2 && os.Args[1] == "decide" {
		limit, window, burst := envInt(name, "RATELAB_LIMIT"), envInt(name, "RATELAB_WINDOW_NS"), envInt(name, "RATELAB_BURST")
		runDecide(name, newDecide(limit, window, burst))
	} else if len(os.Args) == 2 && os.Args[1] == "bytes" {
		runBytes(fill)
	} else {
		fmt.Fprintln(os.Stderr, "usage: peer decide | peer bytes")
		os.Exit(2)
	}
}

func envInt(name, v string) int64 {
	n, err := strconv.ParseInt(os.Getenv(v), 10, 64)
	if err != nil || n < 1 {
		fmt.Fprintf(os.Stderr, "peer %s: %s=%q is not a positive integer\n", name, v, os.Getenv(v))
		os.Exit(2)
	}
	return n
}

// runDecide answers each request line; the answers are flushed when no
// complete request line is left in the input buffer, i.e. before the driver
// waits for more input (the protocol's rule): one write per batch the
// simulator sent, not one per answer.
func runDecide(name string, decide Decide) {
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	for line := 1; ; line++ {
		text, err := in.ReadString('\n') // err: the input ended (a last line without its newline still counts)
		if text == "" && err != nil {
			break
		}
		text = strings.TrimRight(text, "\r\n")
		f := strings.Fields(text)
		if len(f) != 2 {
			fmt.Fprintf(os.Stderr, "peer %s: line %d: %q: expected 'T KEY'\n", name, line, text)
			os.Exit(2)
		}
		t, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || t < 0 {
			fmt.Fprintf(os.Stderr, "peer %s: line %d: bad time %q\n", name, line, f[0])
			os.Exit(2)
		}
		if ok, retry := decide(f[1], t); ok {
			out.WriteString("1\n")
		} else {
			fmt.Fprintf(out, "0 %d\n", retry)
		}
		if next, _ := in.Peek(in.Buffered()); bytes.IndexByte(next, '\n') < 0 {
			out.Flush()
		}
		if err != nil {
			break
		}
	}
	out.Flush()
}

func heapInUse() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func runBytes(fill func(keys []string) any) {
	const n = 1000000
	keys := make([]string, n)
	for i := range keys {
		keys[i] = "k" + strconv.Itoa(i)
	}
	before := heapInUse()
	m := fill(keys)
	after := heapInUse()
	runtime.KeepAlive(m)
	fmt.Printf("%.1f\n", float64(after-before)/n)
}
