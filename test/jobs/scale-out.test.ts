// The scaled-out shape from the outside (SPEC "two deployment shapes"): one `placard serve` with PLACARD_ROLE=api and
// two `placard worker` processes share PostgreSQL, Redis (BullMQ) and an S3-protocol server, each with a data dir of
// its own. 60 PNG exports are submitted, one worker is killed with SIGKILL while it renders (a quarter of the files
// stored), and the other worker picks up its jobs (BullMQ stalled-job detection): every export completes exactly
// once — one webhook call each, one delivery row each, its file in the bucket — and the survivor drains and exits 0
// on SIGTERM. Webhooks are at least once (a sender killed between the receiver's 2xx and recording it sends again),
// so the receiver holds its answers around the kill and counts only calls whose sender was alive to get the answer.
// Needs DATABASE_URL and REDIS_URL (the scaled-out run of .ci/run); skipped otherwise.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { Queue } from 'bullmq';
import pg from 'pg';
import { deleteKeysWithPrefix, openRedis } from '../../src/storage/redis.js';
import { springSale } from '../domain/design-fixtures.js';
import { freePort } from '../helpers/ports.js';
import { adminQuery, dropDatabase } from '../helpers/postgres.js';
import { createTestBucket } from '../helpers/s3-server.js';

const MAIN = path.resolve('src/main.ts');
const EXPORTS = 60;
const skip =
  process.env.DATABASE_URL && process.env.REDIS_URL
    ? false
    : 'needs DATABASE_URL and REDIS_URL: the scaled-out shape runs on PostgreSQL and Redis';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field.
type Json = any;

interface Proc {
  child: ChildProcess;
  url: string;
  output(): string;
}

/**
 * Starts `placard <command>` with a data dir of its own and resolves once its /readyz answers 200. Every process has
 * the PLACARD_PUBLIC_URL of the API (as behind a load balancer): it is the issuer of the access tokens.
 */
async function start(command: 'serve' | 'worker', env: NodeJS.ProcessEnv, dirs: string[], api?: string): Promise<Proc> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `placard-scale-${command}-`));
  dirs.push(dataDir);
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

/**
 * Records every webhook call by export id and answers 204. A call counts once the sender can have had the answer:
 * webhooks are delivered at least once, and a sender killed after the receiver's 2xx but before recording it sends
 * again. So around the kill the receiver holds its answers (hold()), and on release() drops the calls whose sender
 * died meanwhile (their connection is gone: that sender never saw a 2xx, and its retry is the call that counts).
 */
async function webhookReceiver() {
  const calls = new Map<string, Json[]>();
  const held: Array<() => void> = [];
  let holding = false;
  let dropped = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const answer = () => {
        if (req.socket.destroyed || res.destroyed) {
          dropped += 1;
          return;
        }
        try {
          const payload = JSON.parse(body);
          const id = payload?.data?.export?.id;
          if (typeof id === 'string') calls.set(id, [...(calls.get(id) ?? []), payload]);
        } catch {
          // Recorded nowhere: the assertions then miss it.
        }
        res.writeHead(204).end();
      };
      if (holding) held.push(answer);
      else answer();
    });
  });
  const url = await new Promise<string>((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}`));
  });
  return {
    url: `${url}/hook`,
    calls,
    total: () => [...calls.values()].reduce((n, list) => n + list.length, 0),
    dropped: () => dropped,
    hold() {
      holding = true;
    },
    release() {
      holding = false;
      for (const answer of held.splice(0)) answer();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function client(baseUrl: string, token: string) {
  return async (method: string, route: string, body?: unknown): Promise<Json> => {
    const res = await fetch(`${baseUrl}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${method} ${route}: ${res.status} ${text}`);
    return JSON.parse(text);
  };
}

/** The 300x250 example of SPEC §5 without its photo: shapes and text only, so nothing is fetched. */
function smallDesign() {
  const doc = springSale();
  const elements = (doc.sizes[0] as { slides: Array<{ elements: Array<{ type: string }> }> }).slides[0].elements;
  elements.splice(0, elements.length, ...elements.filter((e) => e.type !== 'image'));
  return doc;
}

test('one API and two workers: 60 exports, one worker SIGKILLed midway, each export completes exactly once', {
  skip,
  timeout: 300_000,
}, async () => {
  const serverUrl = process.env.DATABASE_URL as string;
  const database = `placard_scale_${randomBytes(4).toString('hex')}`;
  await adminQuery(serverUrl, `create database ${database}`);
  const dbUrl = new URL(serverUrl);
  dbUrl.pathname = `/${database}`;
  const prefix = `placard-scale-${process.pid}-${randomBytes(4).toString('hex')}`;
  const bucket = await createTestBucket();
  const hooks = await webhookReceiver();
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
    // Shared by every process: tokens and signed links made by one are valid in all (no data dir is shared).
    PLACARD_JWT_SECRET: randomBytes(24).toString('hex'),
    PLACARD_DEMO: 'false',
    PLACARD_ALLOW_PRIVATE_URLS: 'true',
    PLACARD_RATE_LIMIT: 'false',
    PLACARD_RENDER_THREADS: '1',
    // A dead worker's jobs are taken back after about this long (BullMQ lock, stalled check every half of it); long
    // enough that a live worker on a busy machine keeps its locks.
    PLACARD_JOB_LEASE_SECONDS: '10',
    LOG_LEVEL: 'warn',
  };
  // Node's test runner marks its children with this; a spawned service must not think it is a test file.
  delete env.NODE_TEST_CONTEXT;
  try {
    const apiEnv = { ...env, PLACARD_ROLE: 'api' };
    const created = spawnSync(
      process.execPath,
      ['--import', 'tsx', MAIN, 'admin', 'create-team', '--name', 'Scale', '--owner-email', 'owner@scale.test'],
      {
        env: { ...apiEnv, PLACARD_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'placard-scale-admin-')) },
        encoding: 'utf8',
      },
    );
    assert.equal(created.status, 0, created.stderr);
    const credential = JSON.parse(created.stdout) as { clientId: string; clientSecret: string };

    const apiProc = await start('serve', apiEnv, dirs);
    procs.push(apiProc);
    const [doomed, survivor] = await Promise.all([
      start('worker', env, dirs, apiProc.url),
      start('worker', env, dirs, apiProc.url),
    ]);
    procs.push(doomed, survivor);

    const tokenRes = await fetch(`${apiProc.url}/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId: credential.clientId, clientSecret: credential.clientSecret }),
    });
    assert.equal(tokenRes.status, 200, await tokenRes.clone().text());
    const token = ((await tokenRes.json()) as { token: string }).token;
    const api = client(apiProc.url, token);
    // A worker serves health and metrics, never the API.
    const onWorker = await fetch(`${survivor.url}/v1/users`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(onWorker.status, 404);
    assert.match(await (await fetch(`${survivor.url}/metrics`)).text(), /placard_/);
    const brandKit = await api('POST', '/v1/brandkits/create', { name: 'Scale kit' });
    const project = await api('POST', '/v1/projects', { name: 'Scale', brandKitId: brandKit.response.brandKit.id });
    const template = (
      await api('POST', '/v1/templates/import', {
        projectId: project.response.project.id,
        name: 'Scale banner',
        document: smallDesign(),
      })
    ).response.template.id as string;

    // Each export changes the headline: 60 different renders, none answered from the export cache.
    const ids: string[] = [];
    for (let i = 0; i < EXPORTS; i++) {
      const accepted = await api('POST', '/v1/export-with-changes', {
        templateHash: template,
        type: 'png',
        // 1200x1000: renders long enough that the kill finds the doomed worker rendering.
        exportSettings: { scale: 4 },
        elementsChanges: [{ elementName: 'headline', changes: [{ attribute: 'LABEL', value: `Export ${i}` }] }],
        webhookUrl: hooks.url,
      });
      ids.push(accepted.response.export.id);
    }
    assert.equal(new Set(ids).size, EXPORTS);

    // Midway, by the files in the bucket: a quarter rendered, the rest queued or rendering on both workers; then
    // the doomed worker dies without a word.
    const rendered = async () => (await bucket.keys()).filter((key) => key.startsWith('exports/')).length;
    for (let i = 0; (await rendered()) < EXPORTS / 4; i++) {
      assert.ok(i < 1200, `no export rendered within 120 s: ${doomed.output()}${survivor.output()}`);
      await sleep(100);
    }
    // Answers held for a moment first: a delivery answered just before has time to record its success.
    hooks.hold();
    await sleep(500);
    const beforeKill = await rendered();
    doomed.child.kill('SIGKILL');
    await exitOf(doomed.child);
    await sleep(500); // the dead sender's connections close
    hooks.release();
    assert.ok(beforeKill < EXPORTS, `the kill came after every export had finished (${beforeKill})`);

    for (let i = 0; hooks.calls.size < EXPORTS; i++) {
      assert.ok(i < 3600, `only ${hooks.calls.size} of ${EXPORTS} exports called back: ${survivor.output()}`);
      await sleep(50);
    }
    // Room for a duplicate to arrive, were there one: the takeover has happened and the queue is empty.
    await sleep(2_000);

    // Exactly once: one webhook call, one delivery row, one complete export with its file in the bucket.
    assert.deepEqual(
      ids.filter((id) => hooks.calls.get(id)?.length !== 1),
      [],
      'every export called its webhookUrl exactly once',
    );
    assert.equal(hooks.total(), EXPORTS);
    for (const id of ids) {
      const [call] = hooks.calls.get(id) as Json[];
      assert.equal(call.action, 'export/complete');
      assert.equal(call.data.export.status, 'complete');
    }
    const db = new pg.Client({ connectionString: dbUrl.toString() });
    await db.connect();
    try {
      const exportsRows = await db.query(
        'select status, count(*)::int as n from exports where id = any($1) group by status',
        [ids],
      );
      assert.deepEqual(exportsRows.rows, [{ status: 'complete', n: EXPORTS }]);
      const deliveries = await db.query(
        `select export_id, count(*)::int as n, min(status) as status from webhook_deliveries
           where export_id = any($1) group by export_id`,
        [ids],
      );
      assert.equal(deliveries.rows.length, EXPORTS);
      assert.deepEqual(
        deliveries.rows.filter((r) => r.n !== 1 || r.status !== 'succeeded'),
        [],
        'one delivery per export, succeeded',
      );
      const creatives = await db.query(
        'select blob_key from export_creatives where export_id = any($1) and status = $2',
        [ids, 'complete'],
      );
      assert.equal(creatives.rows.length, EXPORTS);
      const inBucket = new Set(await bucket.keys());
      assert.deepEqual(
        creatives.rows.filter((r) => !inBucket.has(r.blob_key)),
        [],
        'every file is in the bucket',
      );
    } finally {
      await db.end();
    }
    // The kill interrupted renders: BullMQ started some creative jobs twice, and they still completed once.
    const redis = openRedis(process.env.REDIS_URL as string);
    const creativeJobs = new Queue('export.creative', { connection: redis, prefix });
    try {
      const completed = await creativeJobs.getJobs(['completed'], 0, -1);
      assert.equal(completed.length, EXPORTS);
      assert.ok(
        completed.some((job) => job.attemptsStarted > 1),
        'a job of the killed worker was taken over by the other one',
      );
    } finally {
      await creativeJobs.close();
      await redis.quit();
    }

    // A file downloads from S3 through the link the API hands out.
    const view = await api('GET', `/v1/export/${ids[0]}`);
    const file = await fetch(view.response.creatives[0].url);
    assert.equal(file.status, 200);
    assert.equal(file.headers.get('content-type'), 'image/png');

    // Draining: the survivor and the API stop on SIGTERM with exit code 0.
    survivor.child.kill('SIGTERM');
    apiProc.child.kill('SIGTERM');
    assert.deepEqual(await Promise.all([exitOf(survivor.child), exitOf(apiProc.child)]), [0, 0]);
  } finally {
    for (const proc of procs)
      if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
    await Promise.all(procs.map((proc) => exitOf(proc.child)));
    await hooks.close();
    const redis = openRedis(process.env.REDIS_URL as string);
    await deleteKeysWithPrefix(redis, prefix);
    await redis.quit();
    await bucket.remove();
    await dropDatabase(serverUrl, database);
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  }
});
