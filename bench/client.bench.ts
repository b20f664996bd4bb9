// @placard/client's overhead per call against a bare fetch, on the same cheap route of a running service (one process,
// SQLite): blocks of calls alternate between the two so that drift of the machine's load hits both alike. A second
// table measures the client alone, with a fetch that answers at once, to show its own cost in microseconds.
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { createClient } from '../packages/client/src/index.js';
import { startService } from './service.js';
import { printTable } from './table.js';

const ROUNDS = Number(process.env.BENCH_CLIENT_ROUNDS ?? 10);
const BLOCK = Number(process.env.BENCH_CLIENT_BLOCK ?? 200);

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

function summary(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  return { mean, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
}

async function timeCalls(call: () => Promise<unknown>, n: number, into: number[]) {
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await call();
    into.push((performance.now() - start) * 1000);
  }
}

export async function benchClient() {
  const service = await startService();
  try {
    const token = await service.token();
    const url = `${service.url}/v1/roles`;
    const bare = async () => {
      const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      if (!res.ok) throw new Error(`bare fetch: ${res.status}`);
      return res.json();
    };
    const client = createClient({ baseUrl: service.url, ...service.credentials });
    const typed = () => client.GET('/v1/roles');
    // Warm both paths (connections, JIT, the client's token).
    await timeCalls(bare, 200, []);
    await timeCalls(typed, 200, []);
    const bareUs: number[] = [];
    const clientUs: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await timeCalls(bare, BLOCK, bareUs);
      await timeCalls(typed, BLOCK, clientUs);
    }
    const b = summary(bareUs);
    const c = summary(clientUs);
    const load = os.loadavg()[0].toFixed(2);
    printTable(`Client overhead per call, GET /v1/roles over HTTP (${bareUs.length} calls each, load ${load})`, [
      { caller: 'bare fetch + res.json()', 'mean µs': b.mean, 'p50 µs': b.p50, 'p99 µs': b.p99, overhead: '—' },
      {
        caller: '@placard/client GET',
        'mean µs': c.mean,
        'p50 µs': c.p50,
        'p99 µs': c.p99,
        overhead: `${(((c.mean - b.mean) / b.mean) * 100).toFixed(1)}% (${(c.mean - b.mean).toFixed(0)} µs)`,
      },
    ]);

    // The client alone: a fetch that answers at once, against the same canned answer built by hand.
    const body = JSON.stringify({ response: [{ id: 1, name: 'Owner' }] });
    const answer = () => new Response(body, { headers: { 'content-type': 'application/json' } });
    const offline = createClient({ baseUrl: 'http://placard.invalid', token: 't', fetch: async () => answer() });
    const handBare: number[] = [];
    const handClient: number[] = [];
    const handCall = async () => {
      const res = answer();
      if (!res.ok) throw new Error('bare');
      return res.json();
    };
    await timeCalls(handCall, 2000, []);
    await timeCalls(() => offline.GET('/v1/roles'), 2000, []);
    for (let round = 0; round < ROUNDS; round++) {
      await timeCalls(handCall, BLOCK * 5, handBare);
      await timeCalls(() => offline.GET('/v1/roles'), BLOCK * 5, handClient);
    }
    const hb = summary(handBare);
    const hc = summary(handClient);
    printTable(`Client cost alone, no network (${handBare.length} calls each, load ${os.loadavg()[0].toFixed(2)})`, [
      { caller: 'Response + res.json()', 'mean µs': hb.mean, 'p50 µs': hb.p50, 'p99 µs': hb.p99 },
      { caller: '@placard/client GET', 'mean µs': hc.mean, 'p50 µs': hc.p50, 'p99 µs': hc.p99 },
    ]);
  } finally {
    await service.stop();
  }
}
