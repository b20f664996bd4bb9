// Batches survive a crash (issue 22), from the outside. Embedded shape: a real `placard serve` is SIGKILLed while a
// 200-row batch renders and a second `placard serve` on the same data dir and database completes it. Scaled out
// (DATABASE_URL and REDIS_URL): one API and two workers, one worker SIGKILLed midway; the other finishes. Either way
// every row ends exactly once (each key once in the rows, the results CSV and the zip, 400 files), and one
// batch/completed webhook is received.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { deleteKeysWithPrefix, openRedis } from '../../src/storage/redis.js';
import { cssOf, pairDocument } from '../helpers/batches.js';
import { freePort } from '../helpers/ports.js';
import { adminQuery, dropDatabase } from '../helpers/postgres.js';
import { createTestBucket } from '../helpers/s3-server.js';
import { readZip } from '../helpers/zip.js';
import { png } from '../render/media-fixtures.js';

const MAIN = path.resolve('src/main.ts');
const ROWS = 200;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field.
type Json = any;

interface Proc {
  child: ChildProcess;
  url: string;
  output(): string;
}

async function start(command: 'serve' | 'worker', env: NodeJS.ProcessEnv, dirs: string[], api?: string): Promise<Proc> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let dataDir = env.PLACARD_DATA_DIR;
  if (!dataDir) {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `placard-batch-${command}-`));
    dirs.push(dataDir);
  }
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, command], {
    env: { ...env, PORT: String(port), PLACARD_PUBLIC_URL: api ?? url, PLACARD_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    out += chunk;
  });
  for (let i = 0; !(await fetch(`${url}/readyz`).catch(() => null))?.ok; i++) {
    if (child.exitCode !== null || i > 1200) {
      child.kill('SIGKILL');
      throw new Error(`placard ${command} did not become ready (exit ${child.exitCode}): ${out}`);
    }
    await sleep(50);
  }
  return { child, url, output: () => out };
}

function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

async function listen(server: http.Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}`));
  });
}

/** The photo of the template, and a receiver keeping every webhook body. */
async function servers() {
  const photo = png(10, 10, [0, 0, 255]);
  const hooks: Json[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      if (req.url === '/photo.png') {
        res.writeHead(200, { 'content-type': 'image/png' }).end(photo);
        return;
      }
      hooks.push(JSON.parse(body));
      res.writeHead(204).end();
    });
  });
  const url = await listen(server);
  return {
    url,
    hooks,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function login(env: NodeJS.ProcessEnv) {
  const created = spawnSync(
    process.execPath,
    ['--import', 'tsx', MAIN, 'admin', 'create-team', '--name', 'Batch', '--owner-email', 'owner@batch.test'],
    { env, encoding: 'utf8' },
  );
  assert.equal(created.status, 0, created.stderr);
  return JSON.parse(created.stdout) as { clientId: string; clientSecret: string };
}

function client(baseUrl: () => string, credential: { clientId: string; clientSecret: string }) {
  // A token names the service that issued it (its public URL): a restarted service on another port wants a new one.
  let token = '';
  let issuer = '';
  return async (method: string, route: string, body?: unknown, raw = false): Promise<Json> => {
    if (issuer !== baseUrl()) {
      issuer = baseUrl();
      const res = await fetch(`${issuer}/v1/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ clientId: credential.clientId, clientSecret: credential.clientSecret }),
      });
      assert.equal(res.status, 200, await res.clone().text());
      token = ((await res.json()) as { token: string }).token;
    }
    const res = await fetch(`${baseUrl()}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (raw) return res;
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${method} ${route}: ${res.status} ${text}`);
    return JSON.parse(text);
  };
}

/** Sets up a template and submits the batch; resolves with its id. */
async function submit(api: ReturnType<typeof client>, media: string, hook: string): Promise<number> {
  const kit = await api('POST', '/v1/brandkits/create', { name: 'Kit' });
  const project = await api('POST', '/v1/projects', { name: 'Batch', brandKitId: kit.response.brandKit.id });
  const template = await api('POST', '/v1/templates/import', {
    projectId: project.response.project.id,
    name: 'Pair',
    document: pairDocument(`${media}/photo.png`),
  });
  const csv = ['sku,title,color', ...Array.from({ length: ROWS }, (_, i) => `k${i},Crash ${i},${cssOf(i)}`)].join('\n');
  const answer = await api('POST', '/v1/batches', {
    templateHash: template.response.template.id,
    type: 'png',
    rowKey: 'sku',
    csv,
    webhookUrl: `${hook}/hook`,
    mapping: [
      { elementName: 'panel', attribute: 'BGCOLOR', value: '{color}' },
      { elementName: 'headline', attribute: 'LABEL', value: '{title}' },
    ],
  });
  return answer.response.batch.id as number;
}

/** Polls until some rows have succeeded and others are still to do: the moment to kill. */
async function untilMidway(api: ReturnType<typeof client>, id: number): Promise<Json> {
  for (let i = 0; ; i++) {
    const batch = (await api('GET', `/v1/batches/${id}`)).response;
    if (batch.counts.succeeded >= 10) {
      assert.ok(batch.counts.succeeded < ROWS - 20, `the batch is midway when killed: ${JSON.stringify(batch.counts)}`);
      return batch;
    }
    assert.ok(i < 2400, 'no row finished within 120 s');
    await sleep(50);
  }
}

async function assertCompleteOnce(api: ReturnType<typeof client>, id: number, hooks: Json[], timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  let batch: Json;
  for (;;) {
    batch = (await api('GET', `/v1/batches/${id}`)).response;
    if (batch.finishedAt) break;
    assert.ok(Date.now() < deadline, `batch still ${batch.status}: ${JSON.stringify(batch.counts)}`);
    await sleep(200);
  }
  assert.equal(batch.status, 'complete');
  assert.deepEqual(batch.counts, { pending: 0, running: 0, succeeded: ROWS, failed: 0, skipped: 0, cancelled: 0 });
  // Every key once in the rows, once in the results CSV, twice (two sizes) in the zip.
  const keys: string[] = [];
  let cursor = '';
  for (;;) {
    const page = (await api('GET', `/v1/batches/${id}/rows?limit=100${cursor ? `&cursor=${cursor}` : ''}`)).response;
    keys.push(...page.nodes.map((r: Json) => r.key));
    if (!page.pageInfo.hasNextPage) break;
    cursor = page.pageInfo.endCursor;
  }
  const expected = Array.from({ length: ROWS }, (_, i) => `k${i}`);
  assert.deepEqual(keys, expected);
  const csv = await (await api('GET', `/v1/batches/${id}/results.csv`, undefined, true)).text();
  assert.deepEqual(
    (parse(csv, { columns: true }) as Json[]).map((r) => r.key),
    expected,
  );
  const zip = await readZip(Buffer.from(await (await fetch(batch.zipUrl)).arrayBuffer()));
  assert.equal(zip.size, ROWS * 2);
  assert.deepEqual(new Set([...zip.keys()].map((name) => name.split('/')[0])), new Set(expected));
  // One batch/completed (give a duplicate time to show up).
  for (let i = 0; hooks.length === 0 && i < 200; i++) await sleep(50);
  await sleep(1000);
  assert.deepEqual(
    hooks.map((h) => [h.action, h.data.batch.id]),
    [['batch/completed', id]],
  );
}

test('embedded: a batch accepted before a SIGKILL is completed by the next start, every row exactly once', {
  timeout: 400_000,
}, async () => {
  const dirs: string[] = [];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-batch-crash-'));
  dirs.push(dataDir);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PLACARD_DATA_DIR: dataDir,
    PLACARD_DEMO: 'false',
    PLACARD_ALLOW_PRIVATE_URLS: 'true',
    PLACARD_RATE_LIMIT: 'false',
    PLACARD_RENDER_THREADS: '1',
    LOG_LEVEL: 'warn',
  };
  delete env.NODE_TEST_CONTEXT;
  const redisPrefix = `placard-batch-${randomBytes(4).toString('hex')}`;
  if (process.env.REDIS_URL) env.PLACARD_REDIS_PREFIX = redisPrefix;
  let database: string | null = null;
  if (process.env.DATABASE_URL) {
    database = `placard_batch_${randomBytes(4).toString('hex')}`;
    await adminQuery(process.env.DATABASE_URL, `create database ${database}`);
    const url = new URL(process.env.DATABASE_URL);
    url.pathname = `/${database}`;
    env.DATABASE_URL = url.toString();
  }
  const s = await servers();
  const procs: Proc[] = [];
  try {
    const credential = await login(env);
    const first = await start('serve', env, dirs);
    procs.push(first);
    let base = first.url;
    const api = client(() => base, credential);
    const id = await submit(api, s.url, s.url);
    await untilMidway(api, id);
    first.child.kill('SIGKILL');
    await exitOf(first.child);
    const second = await start('serve', env, dirs);
    procs.push(second);
    base = second.url;
    // The links of the second process name its own port.
    await assertCompleteOnce(api, id, s.hooks, process.env.DATABASE_URL ? 300_000 : 200_000);
  } finally {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.all(procs.map((p) => exitOf(p.child)));
    await s.close();
    if (database && process.env.DATABASE_URL) await dropDatabase(process.env.DATABASE_URL, database);
    if (process.env.REDIS_URL) {
      const redis = openRedis(process.env.REDIS_URL);
      await deleteKeysWithPrefix(redis, redisPrefix);
      await redis.quit();
    }
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('scaled out: one API and two workers, a worker SIGKILLed midway; the batch completes, every row once', {
  skip: process.env.DATABASE_URL && process.env.REDIS_URL ? false : 'needs DATABASE_URL and REDIS_URL',
  timeout: 400_000,
}, async () => {
  const serverUrl = process.env.DATABASE_URL as string;
  const database = `placard_bscale_${randomBytes(4).toString('hex')}`;
  await adminQuery(serverUrl, `create database ${database}`);
  const dbUrl = new URL(serverUrl);
  dbUrl.pathname = `/${database}`;
  const prefix = `placard-bscale-${process.pid}-${randomBytes(4).toString('hex')}`;
  const bucket = await createTestBucket();
  const s = await servers();
  const dirs: string[] = [];
  const procs: Proc[] = [];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: dbUrl.toString(),
    REDIS_URL: process.env.REDIS_URL,
    PLACARD_REDIS_PREFIX: prefix,
    S3_ENDPOINT: bucket.settings.endpoint,
    S3_BUCKET: bucket.settings.bucket,
    S3_REGION: bucket.settings.region,
    S3_ACCESS_KEY_ID: bucket.settings.accessKeyId,
    S3_SECRET_ACCESS_KEY: bucket.settings.secretAccessKey,
    PLACARD_JWT_SECRET: randomBytes(24).toString('hex'),
    PLACARD_DEMO: 'false',
    PLACARD_ALLOW_PRIVATE_URLS: 'true',
    PLACARD_RATE_LIMIT: 'false',
    PLACARD_RENDER_THREADS: '1',
    PLACARD_JOB_LEASE_SECONDS: '10',
    LOG_LEVEL: 'warn',
  };
  delete env.NODE_TEST_CONTEXT;
  try {
    const apiEnv = { ...env, PLACARD_ROLE: 'api' };
    const credential = await login({
      ...apiEnv,
      PLACARD_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'placard-bscale-admin-')),
    });
    const apiProc = await start('serve', apiEnv, dirs);
    procs.push(apiProc);
    const [doomed, survivor] = await Promise.all([
      start('worker', env, dirs, apiProc.url),
      start('worker', env, dirs, apiProc.url),
    ]);
    procs.push(doomed, survivor);
    const api = client(() => apiProc.url, credential);
    const id = await submit(api, s.url, s.url);
    await untilMidway(api, id);
    doomed.child.kill('SIGKILL');
    await exitOf(doomed.child);
    await assertCompleteOnce(api, id, s.hooks, 300_000);
  } finally {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.all(procs.map((p) => exitOf(p.child)));
    await s.close();
    await bucket.remove();
    await dropDatabase(serverUrl, database);
    const redis = openRedis(process.env.REDIS_URL as string);
    await deleteKeysWithPrefix(redis, prefix);
    await redis.quit();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  }
});
