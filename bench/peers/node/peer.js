'use strict';
// Peer driver: rate-limiter-flexible's RateLimiterMemory (fixed window of
// `duration` seconds starting at a key's first request, `points` per window),
// through its public API: `await limiter.consume(key)` resolves when
// admitted and rejects with a RateLimiterRes (msBeforeNext) when not.
//
// Simulated time: the library has no explicit-time API and reads the clock
// only through `Date.now()` and `new Date()`. The global Date is replaced by a
// subclass whose now() (and argument-less construction) is the simulated
// time in whole ms (floor(T / 10^6)); everything else is the real Date.
// Timers: each new window's record also schedules a setTimeout that deletes
// it at expiry. The loops below never yield to the event loop (stdin is read
// with fs.readSync; `await` only runs microtasks), so those timers never
// fire during a run; the library's own expiry check (expiresAt against the
// faked clock) then starts the new window, with the same decisions.
//
//   node peer.js decide            the decider protocol of `ratelab sim
//                                  --decider` (README): "T KEY" in, "1" or
//                                  "0 RETRY_NS" out; the rule from
//                                  RATELAB_LIMIT (points) and
//                                  RATELAB_WINDOW_NS (duration = W / 10^9 s)
//   node --expose-gc peer.js bench REPS SCALE
//                                  one line per figure and repetition (after
//                                  a warm-up): "hot_ns X", "keys_1k_ns X",
//                                  "keys_1m_ns X" (process.hrtime.bigint()
//                                  around the loop / ops), then
//                                  "bytes_per_key X" (heapUsed after gc(),
//                                  before and after 1M keys); SCALE 1 is 2M
//                                  ops per figure, 500,000 at 1M keys
const fs = require('fs');
const { RateLimiterMemory } = require('rate-limiter-flexible');

let simNowMs = 0;
const RealDate = Date;
class SimDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(simNowMs);
    else super(...args);
  }
  static now() {
    return simNowMs;
  }
}
global.Date = SimDate;

function die(msg) {
  process.stderr.write(`peer node_rlf: ${msg}\n`);
  process.exit(2);
}

function envInt(name) {
  const v = process.env[name];
  if (!/^[1-9][0-9]*$/.test(v || '')) die(`${name}=${v} is not a positive integer`);
  return BigInt(v);
}

// Reads stdin synchronously, line by line; beforeRead() runs before each
// read, i.e. before the driver waits for more input.
function* stdinLines(beforeRead) {
  const buf = Buffer.alloc(1 << 16);
  let rest = '';
  for (;;) {
    let n;
    beforeRead();
    try {
      n = fs.readSync(0, buf, 0, buf.length, null);
    } catch (e) {
      if (e.code === 'EAGAIN') continue;
      if (e.code === 'EOF') break;
      throw e;
    }
    if (n === 0) break;
    rest += buf.toString('latin1', 0, n);
    let nl;
    while ((nl = rest.indexOf('\n')) >= 0) {
      yield rest.slice(0, nl);
      rest = rest.slice(nl + 1);
    }
  }
  if (rest.length) yield rest;
}

// [T, KEY] of a line "T KEY" (blanks: space, tab; T decimal digits), else null.
function splitTwo(line) {
  const n = line.length;
  const blank = (c) => c === 32 || c === 9;
  let a = 0;
  while (a < n && blank(line.charCodeAt(a))) a++;
  let b = a;
  while (b < n && !blank(line.charCodeAt(b))) b++;
  let c = b;
  while (c < n && blank(line.charCodeAt(c))) c++;
  let d = c;
  while (d < n && !blank(line.charCodeAt(d))) d++;
  let e = d;
  while (e < n && blank(line.charCodeAt(e))) e++;
  if (b === a || d === c || e !== n) return null;
  for (let i = a; i < b; i++) {
    const ch = line.charCodeAt(i);
    if (ch < 48 || ch > 57) return null;
  }
  return [line.slice(a, b), line.slice(c, d)];
}

async function decide() {
  const limit = envInt('RATELAB_LIMIT');
  const windowNs = envInt('RATELAB_WINDOW_NS');
  const limiter = new RateLimiterMemory({ points: Number(limit), duration: Number(windowNs) / 1e9 });
  let lineno = 0;
  // the answers of the requests read so far, written at once before the next read (the protocol's flush)
  let out = [];
  const flush = () => {
    if (out.length) fs.writeSync(1, out.join(''));
    out = [];
  };
  for (const line of stdinLines(flush)) {
    lineno++;
    // "T KEY" split by hand: a regex split and BigInt per line were most of this loop's time
    const f = splitTwo(line);
    if (f === null) die(`line ${lineno}: '${line}': expected 'T KEY'`);
    // below 10^15 ns a double holds T exactly and T / 10^6 is at least 10^-6 from the next
    // integer, far above its rounding error: the floor is exact; longer T through BigInt
    simNowMs = f[0].length <= 15 ? Math.floor(Number(f[0]) / 1e6) : Number(BigInt(f[0]) / 1000000n);
    let answer;
    try {
      await limiter.consume(f[1]);
      answer = '1\n';
    } catch (res) {
      if (!(res && typeof res.msBeforeNext === 'number')) throw res;
      // admitted again once the faked clock reaches the window's end, expiresAt ms
      const retry = BigInt(simNowMs + res.msBeforeNext) * 1000000n - BigInt(f[0]);
      answer = `0 ${retry > 0n ? retry : 1n}\n`;
    }
    out.push(answer);
  }
  flush();
}

// The benchmarks' rule, as ratelab's (bench/common.h): N = 100 per W = 1 s.
const START_NS = 1000n * 1000000000n + 1000000000n / 3n;

function newBench() {
  return new RateLimiterMemory({ points: 100, duration: 1 });
}

async function hot(ops) {
  const limiter = newBench();
  const stepNs = 1000000000n / 100n / 2n;
  let now = START_NS;
  let allowed = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < ops; i++) {
    simNowMs = Number(now / 1000000n);
    try {
      await limiter.consume('hot');
      allowed++;
    } catch (res) {
      /* rejected */
    }
    now += stepNs;
  }
  const t1 = process.hrtime.bigint();
  return [Number(t1 - t0) / ops, allowed];
}

// splitmix64, to draw the uniform key sequence
function* splitmix(seed) {
  let s = BigInt.asUintN(64, seed);
  for (;;) {
    s = BigInt.asUintN(64, s + 0x9e3779b97f4a7c15n);
    let z = s;
    z = BigInt.asUintN(64, (z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n);
    z = BigInt.asUintN(64, (z ^ (z >> 27n)) * 0x94d049bb133111ebn);
    yield z ^ (z >> 31n);
  }
}

// nkeys keys in the limiter's own store (created first), offered uniformly. As
// ratelab's store benchmark (bench/store.cc), the store is filled once per
// nkeys and kept, with its time, across the repetitions: a repetition measures
// the filled store's steady state, and the fill of a million keys (about 6 s
// each) is not done again.
const filled = new Map();

async function filledStore(nkeys) {
  let f = filled.get(nkeys);
  if (f) return f;
  f = { limiter: newBench(), names: Array.from({ length: nkeys }, (_, i) => `k${i}`), now: START_NS };
  simNowMs = Number(f.now / 1000000n);
  for (const k of f.names) await f.limiter.consume(k);
  const seqLen = nkeys >= 1 << 16 ? 1 << 22 : 1 << 16;
  f.seq = new Int32Array(seqLen);
  const rng = splitmix(BigInt(0x11 + nkeys));
  for (let i = 0; i < seqLen; i++) f.seq[i] = Number(rng.next().value % BigInt(nkeys));
  f.stepNs = 1000000000n / (2n * 100n * BigInt(nkeys));
  if (f.stepNs < 1n) f.stepNs = 1n;
  filled.set(nkeys, f);
  return f;
}

async function keys(nkeys, ops) {
  const f = await filledStore(nkeys);
  const { limiter, names, seq, stepNs } = f;
  const seqLen = seq.length;
  let now = f.now;
  let allowed = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < ops; i++) {
    simNowMs = Number(now / 1000000n);
    try {
      await limiter.consume(names[seq[i & (seqLen - 1)]]);
      allowed++;
    } catch (res) {
      /* rejected */
    }
    now += stepNs;
  }
  const t1 = process.hrtime.bigint();
  f.now = now;
  return [Number(t1 - t0) / ops, allowed];
}

async function bytesPerKey() {
  const n = 1000000;
  const names = Array.from({ length: n }, (_, i) => `k${i}`);
  simNowMs = Number(START_NS / 1000000n);
  global.gc();
  const before = process.memoryUsage().heapUsed;
  const limiter = newBench();
  for (const k of names) await limiter.consume(k);
  global.gc();
  const after = process.memoryUsage().heapUsed;
  if (!limiter || names.length !== n) die('lost the keys');
  return (after - before) / n;
}

async function bench(reps, scale) {
  if (typeof global.gc !== 'function') die('bench needs node --expose-gc');
  const ops = Math.round(2000000 * scale);
  const ops1m = 500000; // at a million keys, as every peer's harness (bench/peers/run.sh)
  await hot(ops); // warm-up: the JIT compiles the loops before anything is timed
  await keys(1000, ops);
  for (let r = 0; r < reps; r++) {
    console.log(`hot_ns ${(await hot(ops))[0].toFixed(3)}`);
    console.log(`keys_1k_ns ${(await keys(1000, ops))[0].toFixed(3)}`);
    console.log(`keys_1m_ns ${(await keys(1000000, ops1m))[0].toFixed(3)}`);
  }
  filled.clear(); // the stores above are not counted in the heap bytesPerKey measures
  console.log(`bytes_per_key ${(await bytesPerKey()).toFixed(1)}`);
}

const [mode, reps, scale] = process.argv.slice(2);
if (mode === 'decide') decide().catch((e) => die(e.stack || e));
else if (mode === 'bench' && reps && scale) bench(Number(reps), Number(scale)).then(() => process.exit(0), (e) => die(e.stack || e));
else die('usage: node peer.js decide | node --expose-gc peer.js bench REPS SCALE');
