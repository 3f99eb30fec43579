/*
 * Peer driver: Guava RateLimiter (SmoothBursty), driven with simulated time.
 *
 * Guava has no public explicit-time API. RateLimiter reads time only through
 * its SleepingStopwatch, and RateLimiter.create(double, SleepingStopwatch) is
 * the package-private, @VisibleForTesting factory Guava's own tests use with
 * a fake stopwatch. This class lives in Guava's package (the jar is not
 * sealed; both are on the class path, one class loader) so it calls that
 * factory, and SmoothBursty's constructor for a burst other than 1 s, without
 * reflection; deciding goes through the public tryAcquire(). The retry-after
 * of a rejection is queryEarliestAvailable(now) - now, Guava's own answer to
 * "when could a permit be had". Guava keeps time in whole microseconds: a
 * time T ns is read as floor(T / 1000) us.
 *
 *   decide            the decider protocol of `ratelab sim --decider`
 *                     (README): "T KEY" in, "1" or "0 RETRY_NS" out; the rule
 *                     from RATELAB_LIMIT, RATELAB_WINDOW_NS, RATELAB_BURST:
 *                     N / W permits per second, maxBurstSeconds B * W / N
 *   bench REPS SCALE  per repetition (after a warm-up of the same size), one
 *                     line per figure: "hot_ns X", "keys_1k_ns X",
 *                     "keys_1m_ns X" (System.nanoTime around the loop / ops),
 *                     then "bytes_per_key X" (heap used after System.gc(),
 *                     before and after 1M keys in a HashMap<String,
 *                     RateLimiter>); SCALE 1 is 10M ops per figure, 500,000
 *                     at a million keys
 */
package com.google.common.util.concurrent;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.util.HashMap;
import java.util.SplittableRandom;

public final class RatelabGuavaPeer {
	/* The benchmarks' rule, as ratelab's (bench/common.h): N = 100 per W = 1 s, burst N. */
	static final double BENCH_RATE = 100.0;
	static final long START_NS = 1000L * 1000000000L + 1000000000L / 3;

	/* The simulated clock every limiter reads; tryAcquire() with no timeout only ever "sleeps" 0 us. */
	static final class SimStopwatch extends RateLimiter.SleepingStopwatch {
		long nowNs;

		@Override
		protected long readMicros() {
			return nowNs / 1000;
		}

		@Override
		protected void sleepMicrosUninterruptibly(long micros) {
			if (micros > 0)
				throw new IllegalStateException("the simulated stopwatch was asked to sleep " + micros + " us");
		}
	}

	static RateLimiter make(SimStopwatch sw, double permitsPerSecond, double maxBurstSeconds) {
		if (maxBurstSeconds == 1.0)
			return RateLimiter.create(permitsPerSecond, sw);
		RateLimiter r = new SmoothRateLimiter.SmoothBursty(sw, maxBurstSeconds);
		r.setRate(permitsPerSecond);
		return r;
	}

	static long envLong(String name) {
		try {
			long v = Long.parseLong(System.getenv(name));
			if (v >= 1)
				return v;
		} catch (NumberFormatException e) {
			/* reported below */
		}
		System.err.println("peer guava: " + name + "=" + System.getenv(name) + " is not a positive integer");
		System.exit(2);
		return 0;
	}

	static boolean isBlank(char c) {
		return c == ' ' || c == '\t';
	}

	static void decide() throws Exception {
		long limit = envLong("RATELAB_LIMIT"), window = envLong("RATELAB_WINDOW_NS"), burst = envLong("RATELAB_BURST");
		double rate = limit * 1e9 / window, burstSeconds = burst / rate;
		SimStopwatch sw = new SimStopwatch();
		HashMap<String, RateLimiter> limiters = new HashMap<>();
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in), 1 << 16);
		BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out), 1 << 16);
		String line;
		for (long lineno = 1; (line = in.readLine()) != null; lineno++) {
			// "T KEY": split by hand (String.split with a class of separators compiles a
			// regex per line: most of this loop's time with 15M lines)
			String key = null;
			long t = -1;
			int a = 0, n = line.length();
			while (a < n && isBlank(line.charAt(a)))
				a++;
			int b = a;
			while (b < n && !isBlank(line.charAt(b)))
				b++;
			int c = b;
			while (c < n && isBlank(line.charAt(c)))
				c++;
			int d = c;
			while (d < n && !isBlank(line.charAt(d)))
				d++;
			int e = d;
			while (e < n && isBlank(line.charAt(e)))
				e++;
			if (b > a && d > c && e == n) {
				t = 0;
				for (int i = a; i < b && t >= 0; i++) {
					char ch = line.charAt(i);
					t = ch >= '0' && ch <= '9' && t <= (Long.MAX_VALUE - 9) / 10 ? t * 10 + (ch - '0') : -1;
				}
				key = line.substring(c, d);
			}
			if (t < 0) {
				System.err.println("peer guava: line " + lineno + ": '" + line + "': expected 'T KEY'");
				System.exit(2);
			}
			sw.nowNs = t;
			RateLimiter r = limiters.get(key);
			if (r == null) {
				r = make(sw, rate, burstSeconds);
				limiters.put(key, r);
			}
			if (r.tryAcquire()) {
				out.write("1\n");
			} else {
				long earliestUs = r.queryEarliestAvailable(t / 1000);
				out.write("0 " + Math.max(1, earliestUs * 1000 - t) + "\n");
			}
			if (!in.ready()) // flushed before it waits for more input: one write per batch the simulator sent
				out.flush();
		}
		out.flush();
	}

	static volatile long sink;

	static double hot(long ops) {
		SimStopwatch sw = new SimStopwatch();
		sw.nowNs = START_NS;
		RateLimiter r = make(sw, BENCH_RATE, 1.0);
		long step = 1000000000L / 100 / 2, allowed = 0;
		long t0 = System.nanoTime();
		for (long i = 0; i < ops; i++) {
			if (r.tryAcquire())
				allowed++;
			sw.nowNs += step;
		}
		long t1 = System.nanoTime();
		sink = allowed;
		return (double) (t1 - t0) / ops;
	}

	/* nkeys keys in the idiomatic map, filled first, offered uniformly at random keys. As ratelab's
	 * store benchmark (bench/store.cc), the map is filled once per nkeys and kept, with its clock,
	 * across the repetitions: a repetition measures the filled map's steady state, and five more
	 * fills of a million keys are not done. */
	static final class Filled {
		final SimStopwatch sw = new SimStopwatch();
		String[] names;
		HashMap<String, RateLimiter> m;
		int[] seq;
		long step;
	}
	static final HashMap<Integer, Filled> filled = new HashMap<>();

	static Filled filled(int nkeys) {
		Filled f = filled.get(nkeys);
		if (f != null)
			return f;
		f = new Filled();
		f.sw.nowNs = START_NS;
		f.names = new String[nkeys];
		f.m = new HashMap<>(nkeys * 2);
		for (int i = 0; i < nkeys; i++) {
			f.names[i] = "k" + i;
			f.m.put(f.names[i], make(f.sw, BENCH_RATE, 1.0));
		}
		int seqLen = nkeys >= 1 << 16 ? 1 << 22 : 1 << 16;
		f.seq = new int[seqLen];
		SplittableRandom rng = new SplittableRandom(0x11 + nkeys);
		for (int i = 0; i < seqLen; i++)
			f.seq[i] = rng.nextInt(nkeys);
		f.step = Math.max(1, 1000000000L / (2L * 100 * nkeys));
		filled.put(nkeys, f);
		return f;
	}

	static double keys(int nkeys, long ops) {
		Filled f = filled(nkeys);
		SimStopwatch sw = f.sw;
		String[] names = f.names;
		HashMap<String, RateLimiter> m = f.m;
		int[] seq = f.seq;
		int seqLen = seq.length;
		long step = f.step, allowed = 0;
		long t0 = System.nanoTime();
		for (long i = 0; i < ops; i++) {
			String k = names[seq[(int) (i & (seqLen - 1))]];
			RateLimiter r = m.get(k);
			if (r == null) { /* get-or-create, as a server does for a new client */
				r = make(sw, BENCH_RATE, 1.0);
				m.put(k, r);
			}
			if (r.tryAcquire())
				allowed++;
			sw.nowNs += step;
		}
		long t1 = System.nanoTime();
		sink = allowed;
		return (double) (t1 - t0) / ops;
	}

	static long heapUsed() {
		Runtime rt = Runtime.getRuntime();
		for (int i = 0; i < 4; i++)
			System.gc();
		return rt.totalMemory() - rt.freeMemory();
	}

	static double bytesPerKey() {
		int n = 1000000;
		String[] names = new String[n];
		for (int i = 0; i < n; i++)
			names[i] = "k" + i;
		SimStopwatch sw = new SimStopwatch();
		sw.nowNs = START_NS;
		long before = heapUsed();
		HashMap<String, RateLimiter> m = new HashMap<>();
		for (int i = 0; i < n; i++)
			m.put(names[i], make(sw, BENCH_RATE, 1.0));
		long after = heapUsed();
		sink = m.size() + names.length;
		return (double) (after - before) / n;
	}

	public static void main(String[] args) throws Exception {
		if (args.length == 1 && args[0].equals("decide")) {
			decide();
			return;
		}
		if (args.length != 3 || !args[0].equals("bench")) {
			System.err.println("usage: RatelabGuavaPeer decide | bench REPS SCALE");
			System.exit(2);
		}
		int reps = Integer.parseInt(args[1]);
		double scale = Double.parseDouble(args[2]);
		long ops = (long) (10000000 * scale);
		hot(ops); /* warm-up: the JIT compiles the loops before anything is timed */
		keys(1000, ops);
		/* a million keys: 500,000 ops a repetition, as every peer's harness (bench/peers/run.sh) */
		long ops1m = ops / 20;
		keys(1000000, ops1m);
		for (int rep = 0; rep < reps; rep++) {
			System.out.printf("hot_ns %.3f%n", hot(ops));
			System.out.printf("keys_1k_ns %.3f%n", keys(1000, ops));
			System.out.printf("keys_1m_ns %.3f%n", keys(1000000, ops1m));
		}
		filled.clear(); /* the maps above are not counted in the heap bytesPerKey measures */
		System.out.printf("bytes_per_key %.1f%n", bytesPerKey());
	}
}
