'use strict';
// redis.js - the Redis section's peer: rate-limiter-flexible's
// RateLimiterRedis through ioredis (the client its documentation uses),
// against the redis-server that bench/redis/run.sh started.
//
//   node redis.js PORT SECONDS RATELAB     one JSON object on stdout, in
//                                          ratelab_redis_bench's subject shape
//
// Speed: points 1000 per duration 1 s (the rule of ratelab's runs), 1000
// keys, k = 1, 10 and 100 consume() calls in flight for SECONDS each:
// decisions per second and each call's round trip p50/p99 (us). Server time
// per decision at k = 100 (median of 5 runs): INFO commandstats, the
// EVALSHA (and EVAL) calls' usec per call, and the server's CPU (INFO cpu)
// per decision. Bytes per key: MEMORY USAGE of 200 keys after one call.
//
// Exactness: the library reads no time from its caller; a key's window
// starts at its first request and ends when Redis expires the key (EX, whole
// seconds). A seeded trace (3 keys, 5 points per 1 s, about 3 s) is played
// in real time, one call at a time; each request's epoch ns when sent and
// its verdict are kept, and the same "T KEY" lines go through `RATELAB
// replay --algo fixed_window --limit 5 --window 1s` (the in-process exact
// fixed window of the same rule): the verdicts that differ, and the first
// as an example (RateLimiterRedis gives no retry or reset in ns to compare).
const { execFileSync } = require('child_process');
const Redis = require('ioredis');
const { RateLimiterRedis } = require('rate-limiter-flexible');

const [port, secs, ratelab] = [Number(process.argv[2]), Number(process.argv[3]), process.argv[4]];
if (!port || !secs || !ratelab) {
  process.stderr.write('usage: node redis.js PORT SECONDS RATELAB\n');
  process.exit(2);
}
const client = new Redis({ port, host: '127.0.0.1', lazyConnect: false });
const epochNs0 = BigInt(Date.now()) * 1000000n - process.hrtime.bigint();
const epochNs = () => epochNs0 + process.hrtime.bigint();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function pct(v, p) {
  return v.length ? v[Math.min(v.length - 1, Math.round(p * (v.length - 1)))] : 0;
}

function field(text, name) {
  const i = text.indexOf(name);
  return i < 0 ? 0 : parseFloat(text.slice(i + name.length));
}

async function serverClock() {
  const st = await client.info('commandstats');
  const cpu = await client.info('cpu');
  let calls = 0;
  let usec = 0;
  for (const line of st.split('\n')) {
    if (line.startsWith('cmdstat_evalsha:') || line.startsWith('cmdstat_eval:')) {
      calls += field(line, 'calls=');
      usec += field(line, 'usec=');
    }
  }
  return { calls, usec, cpu: field(cpu, 'used_cpu_user:') + field(cpu, 'used_cpu_sys:') };
}

let runId = 0;

async function run(inFlight, seconds) {
  const limiter = new RateLimiterRedis({ storeClient: client, points: 1000, duration: 1, keyPrefix: `rlf${runId++}` });
  const lat = [];
  let decisions = 0;
  let next = 0;
  await client.config('RESETSTAT');
  const k0 = await serverClock();
  const start = process.hrtime.bigint();
  const end = start + BigInt(Math.round(seconds * 1e9));
  async function worker() {
    while (process.hrtime.bigint() < end) {
      const key = String(next++ % 1000);
      const t0 = process.hrtime.bigint();
      try {
        await limiter.consume(key);
      } catch (e) {
        if (e instanceof Error) throw e;
      }
      lat.push(Number(process.hrtime.bigint() - t0) / 1000);
      decisions++;
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker));
  const elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  const k1 = await serverClock();
  lat.sort((a, b) => a - b);
  return {
    json: {
      decisions_per_s: decisions / elapsed,
      round_trips: lat.length,
      p50_us: pct(lat, 0.5),
      p99_us: pct(lat, 0.99),
      not_decided: 0,
    },
    serverUs: k1.calls > k0.calls ? (k1.usec - k0.usec) / (k1.calls - k0.calls) : 0,
    cpuUs: decisions ? ((k1.cpu - k0.cpu) * 1e6) / decisions : 0,
  };
}

async function bytesPerKey() {
  const limiter = new RateLimiterRedis({ storeClient: client, points: 1000, duration: 3600, keyPrefix: 'rlfmem' });
  let sum = 0;
  for (let k = 0; k < 200; k++) await limiter.consume(String(k));
  for (let k = 0; k < 200; k++) sum += Number(await client.memory('USAGE', `rlfmem:${k}`, 'SAMPLES', '0')) || 0;
  return sum / 200;
}

// mulberry32: the trace's seeded generator
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function exactness() {
  const limiter = new RateLimiterRedis({ storeClient: client, points: 5, duration: 1, keyPrefix: `rlfx${runId++}` });
  const rand = rng(33);
  const keys = ['a', 'b', 'c'];
  const lines = [];
  const got = [];
  for (let i = 0; i < 150; i++) {
    await sleep(Math.floor(rand() * 40));
    const key = keys[Math.floor(rand() * 3)];
    const t = epochNs();
    let ok = 1;
    try {
      await limiter.consume(key);
    } catch (e) {
      if (e instanceof Error) throw e;
      ok = 0;
    }
    lines.push(`${t} ${key}`);
    got.push(ok);
  }
  const want = execFileSync(ratelab, ['replay', '--algo', 'fixed_window', '--limit', '5', '--window', '1s'], {
    input: lines.join('\n') + '\n',
  })
    .toString()
    .trim()
    .split('\n')
    .map(Number);
  let differ = 0;
  let example = '';
  for (let i = 0; i < got.length; i++) {
    if (got[i] !== want[i]) {
      differ++;
      if (!example) {
        example = `request ${i}, key ${lines[i].split(' ')[1]}, t=${lines[i].split(' ')[0]} ns, cost 1: got verdict ${got[i]}, in-process verdict ${want[i]}`;
      }
    }
  }
  return { requests: got.length, verdicts_differ: differ, answers_differ: differ, example };
}

async function main() {
  const version = require('rate-limiter-flexible/package.json').version;
  const ioredis = require('ioredis/package.json').version;
  const server = [];
  const cpu = [];
  for (let i = 0; i < 5; i++) {
    const r = await run(100, secs / 2);
    server.push(r.serverUs);
    cpu.push(r.cpuUs);
  }
  const out = {
    name: `rate-limiter-flexible ${version} RateLimiterRedis (ioredis ${ioredis})`,
    kind: 'peer',
    algo: 'fixed_window',
  };
  for (const k of [1, 10, 100]) out[`batch_${k}`] = (await run(k, secs)).json;
  const med = (v) => v.sort((a, b) => a - b)[Math.floor(v.length / 2)];
  out.server_us = med(server);
  out.server_cpu_us = med(cpu);
  out.bytes_per_key = await bytesPerKey();
  out.exact = await exactness();
  process.stdout.write(JSON.stringify(out) + '\n');
  client.disconnect();
}

main().catch((e) => {
  process.stderr.write(`redis.js: ${e.stack || e}\n`);
  process.exit(1);
});
