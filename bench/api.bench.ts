// HTTP API throughput: autocannon against a running service (one process, SQLite, the embedded default).
import autocannon from 'autocannon';
import { startService } from './service.js';
import { printTable } from './table.js';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);

async function load(opts: autocannon.Options) {
  const result = await autocannon({ duration: DURATION_S, connections: 10, ...opts });
  return {
    'req/s': result.requests.average,
    'p50 ms': result.latency.p50,
    'p99 ms': result.latency.p99,
    requests: result.requests.total,
    'non-2xx': result.non2xx,
    errors: result.errors,
  };
}

export async function benchApi() {
  const service = await startService();
  try {
    const token = await service.token();
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    // A full first page: the demo Owner plus 24 users.
    for (let i = 0; i < 24; i++) {
      await fetch(`${service.url}/v1/users`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: `Bench User ${i}`, email: `bench${i}@demo.local`, role: 'Editor' }),
      });
    }
    const users = await load({ url: `${service.url}/v1/users?limit=20`, headers });
    const tokens = await load({
      url: `${service.url}/v1/auth/token`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(service.credentials),
    });
    printTable(`HTTP API (autocannon, 10 connections, ${DURATION_S} s each, SQLite)`, [
      { route: 'GET /v1/users?limit=20', ...users },
      { route: 'POST /v1/auth/token', ...tokens },
    ]);
  } finally {
    await service.stop();
  }
}
