// The scaled-out shape (dist/): one `placard serve` with PLACARD_ROLE=api and 1, then 2 `placard worker` processes
// (one render thread each) over PostgreSQL, Redis (BullMQ) and an S3-protocol server (s3rver, started here). Each
// run submits export-with-changes PNG exports, 16 in flight, each with a headline of its own (no cache hits), and
// waits for every webhook: exports per second = exports ÷ (first POST → last webhook).
// Needs PostgreSQL and Redis: DATABASE_URL and REDIS_URL, or the machine's defaults (127.0.0.1:5432 user postgres,
// 127.0.0.1:6379). A database and a Redis key prefix of its own, removed afterwards.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { DESIGN_DOCUMENT_EXAMPLE } from '../src/domain/design-document-doc.js';
import { deleteKeysWithPrefix, openRedis } from '../src/storage/redis.js';
import { freePort } from '../test/helpers/ports.js';
import { createTestBucket } from '../test/helpers/s3-server.js';
import { printTable } from './table.js';

const EXPORTS = Number(process.env.BENCH_EXPORTS ?? 100);
const CONCURRENCY = 16;
const WORKER_COUNTS = [1, 2];

// biome-ignore lint/suspicious/noExplicitAny: API answers are read field by field.
type Json = any;

async function pgAdmin(connectionString: string, text: string) {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** Resolves each export's webhook arrival time (performance.now()). */
async function webhookReceiver() {
  const arrived = new Map<string, number>();
  const waiting = new Map<string, (at: number) => void>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      res.writeHead(204).end();
      const id = JSON.parse(Buffer.concat(chunks).toString('utf8')).data?.export?.id as string;
      if (arrived.has(id)) return;
      arrived.set(id, at);
      waiting.get(id)?.(at);
      waiting.delete(id);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`,
    wait(id: string): Promise<number> {
      const at = arrived.get(id);
      if (at !== undefined) return Promise.resolve(at);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no webhook for export ${id} within 120 s`)), 120_000);
        waiting.set(id, (t) => {
          clearTimeout(timer);
          resolve(t);
        });
      });
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function startProcess(command: 'serve' | 'worker', env: NodeJS.ProcessEnv, publicUrl: string) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `placard-bench-${command}-`));
  const child: ChildProcess = spawn(process.execPath, ['bin/placard.js', command], {
    env: { ...env, PORT: String(port), PLACARD_PUBLIC_URL: publicUrl || url, PLACARD_DATA_DIR: dataDir },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; !(await fetch(`${url}/readyz`).catch(() => null))?.ok; i++) {
    if (child.exitCode !== null || i > 600) throw new Error(`placard ${command} did not start`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    async stop() {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function benchScale() {
  const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  try {
    await pgAdmin(serverUrl, 'select 1');
    const probe = openRedis(redisUrl);
    probe.on('error', () => {});
    await Promise.race([
      probe.ping(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('no answer')), 3_000)),
    ]).finally(() => probe.disconnect());
  } catch (error) {
    console.log(`\n### Scaled out: skipped — needs PostgreSQL and Redis (${(error as Error).message})`);
    return;
  }
  const database = `placard_bench_${randomBytes(4).toString('hex')}`;
  await pgAdmin(serverUrl, `create database ${database}`);
  const dbUrl = new URL(serverUrl);
  dbUrl.pathname = `/${database}`;
  const prefix = `placard-bench-${randomBytes(4).toString('hex')}`;
  const bucket = await createTestBucket();
  const hooks = await webhookReceiver();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: dbUrl.toString(),
    REDIS_URL: redisUrl,
    PLACARD_REDIS_PREFIX: prefix,
    S3_ENDPOINT: bucket.settings.endpoint,
    S3_BUCKET: bucket.settings.bucket,
    S3_ACCESS_KEY_ID: bucket.settings.accessKeyId,
    S3_SECRET_ACCESS_KEY: bucket.settings.secretAccessKey,
    PLACARD_JWT_SECRET: randomBytes(24).toString('hex'),
    PLACARD_DEMO: 'false',
    PLACARD_RATE_LIMIT: 'false',
    PLACARD_ALLOW_PRIVATE_URLS: 'true',
    PLACARD_RENDER_THREADS: '1',
    LOG_LEVEL: 'warn',
  };
  const stops: Array<() => Promise<void>> = [];
  try {
    const credential = JSON.parse(
      execFileSync(
        process.execPath,
        ['bin/placard.js', 'admin', 'create-team', '--name', 'Bench', '--owner-email', 'owner@bench.local'],
        { env: { ...env, PLACARD_DATA_DIR: os.tmpdir() }, encoding: 'utf8' },
      ),
    ) as { clientId: string; clientSecret: string };
    const api = await startProcess('serve', { ...env, PLACARD_ROLE: 'api' }, '');
    stops.push(api.stop);
    const { token } = (await (
      await fetch(`${api.url}/v1/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ clientId: credential.clientId, clientSecret: credential.clientSecret }),
      })
    ).json()) as { token: string };
    const call = async (method: string, route: string, body?: unknown): Promise<Json> => {
      const res = await fetch(`${api.url}${route}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const json = await res.json();
      if (res.status !== 200) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const kit = await call('POST', '/v1/brandkits/create', { name: 'Bench kit' });
    const project = await call('POST', '/v1/projects', { name: 'Bench', brandKitId: kit.response.brandKit.id });
    const banner = structuredClone(DESIGN_DOCUMENT_EXAMPLE) as Json;
    // No remote photo: the bench measures rendering and the pipeline, not a media server.
    const elements = banner.sizes[0].slides[0].elements as Json[];
    elements.splice(0, elements.length, ...elements.filter((e) => e.type !== 'image'));
    const template = (
      await call('POST', '/v1/templates/import', {
        projectId: project.response.project.id,
        name: 'Bench banner',
        document: banner,
      })
    ).response.template.id as string;

    let labels = 0;
    async function run(count: number, exportSettings?: object) {
      const latencies: number[] = [];
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: Math.min(CONCURRENCY, count) }, async () => {
          while (next < count) {
            next += 1;
            const submitted = performance.now();
            const accepted = await call('POST', '/v1/export-with-changes', {
              templateHash: template,
              type: 'png',
              webhookUrl: hooks.url,
              elementsChanges: [
                { elementName: 'headline', changes: [{ attribute: 'LABEL', value: `Scale ${++labels}` }] },
              ],
              ...(exportSettings ? { exportSettings } : {}),
            });
            latencies.push((await hooks.wait(accepted.response.export.id)) - submitted);
          }
        }),
      );
      return { wallMs: performance.now() - started, latencies: latencies.sort((a, b) => a - b) };
    }

    // The plain banner is cheap to draw, so the shared pipeline dominates; at scale 4 (1200x1000) the render does.
    const scenarios = [
      { name: 'PNG 300x250', settings: undefined },
      { name: 'PNG 300x250 at scale 4 (1200x1000)', settings: { scale: 4 } },
    ];
    const rows = [];
    for (const workers of WORKER_COUNTS) {
      const started = await Promise.all(Array.from({ length: workers }, () => startProcess('worker', env, api.url)));
      await run(4 * workers); // warm-up: render threads started, fonts loaded
      for (const scenario of scenarios) {
        const result = await run(EXPORTS, scenario.settings);
        rows.push({
          export: scenario.name,
          'worker processes': workers,
          'render threads': workers,
          exports: EXPORTS,
          'wall s': result.wallMs / 1000,
          'exports/s': EXPORTS / (result.wallMs / 1000),
          'p50 submit → webhook ms': Math.round(result.latencies[Math.floor(result.latencies.length / 2)]),
        });
      }
      await Promise.all(started.map((w) => w.stop()));
    }
    rows.sort((a, b) => a.export.localeCompare(b.export) || a['worker processes'] - b['worker processes']);
    printTable(
      `Scaled out: 1 API + N workers (PostgreSQL, Redis/BullMQ, s3rver) on this machine, ${os.availableParallelism()} cores, export-with-changes, ${CONCURRENCY} in flight`,
      rows,
    );
    console.log(
      [
        '',
        '- every process runs on this one machine: the API, the workers, PostgreSQL, Redis and s3rver share its cores,',
        '  so the second worker adds a render thread but competes with the rest for CPU; the load average at the end',
        `  of this run was ${os.loadavg()[0].toFixed(1)} (other work on the machine skews the figures).`,
      ].join('\n'),
    );
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    await hooks.close();
    const redis = openRedis(redisUrl);
    await deleteKeysWithPrefix(redis, prefix);
    await redis.quit();
    await bucket.remove();
    await pgAdmin(serverUrl, `drop database if exists ${database} with (force)`);
  }
}
