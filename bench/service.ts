// Starts the service the benchmarks measure from the outside, as users run it (compiled dist/, `bin/placard.js`), in
// either deployment shape:
// - `startService`: one `placard serve` (the embedded shape: SQLite in a throwaway data dir, render threads = cores),
//   with the demo seeded (its credential) or, with `team`, without it (a team made by `placard admin create-team`);
// - `startScaledOut`: one `placard serve` with PLACARD_ROLE=api and N `placard worker` processes over PostgreSQL,
//   Redis (BullMQ) and an S3-protocol server (s3rver), each in a database, key prefix and bucket of its own that
//   `stop` removes.
// BENCH_SERVICE_ARGS: node flags for every process started (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import pg from 'pg';
import { deleteKeysWithPrefix, openRedis } from '../src/storage/redis.js';
import { freePort } from '../test/helpers/ports.js';
import { createTestBucket } from '../test/helpers/s3-server.js';
import { scratchDir } from './scratch.js';

// biome-ignore lint/suspicious/noExplicitAny: API answers are read field by field.
type Json = any;

export interface ApiAnswer {
  status: number;
  /** The x-cache header (the export cache's hit or miss). */
  cache: string | null;
  json: Json;
}

export interface RunningService {
  url: string;
  dataDir: string;
  /** The process id of the API process (its main thread's CPU time is read from /proc). */
  pid: number;
  credentials: { clientId: string; clientSecret: string };
  token(): Promise<string>;
  /** A call with the team's bearer token; anything but 200 throws with the answer. */
  api(method: string, route: string, body?: unknown): Promise<ApiAnswer>;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  /** No demo: a team of its own made with `placard admin create-team` first (its credential). Default false. */
  team?: boolean;
  /** The checkout whose built `bin/placard.js` runs (the paired bench's other build). Default: this one. */
  checkout?: string;
}

/** Environment a process must not inherit for the embedded shape (the bench may run with a scaled-out env). */
const SCALED_OUT_ENV = ['DATABASE_URL', 'REDIS_URL', 'S3_ENDPOINT', 'PLACARD_RENDER_THREADS', 'PLACARD_ROLE'];

function nodeArgs(): string[] {
  return process.env.BENCH_SERVICE_ARGS?.split(' ').filter(Boolean) ?? [];
}

/** Spawns `placard <command>` on a free port and waits for its /readyz (60 s: a loaded 2-core machine is slow). */
async function startProcess(command: 'serve' | 'worker', env: NodeJS.ProcessEnv, dataDir: string, checkout?: string) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs(), 'bin/placard.js', command], {
    cwd: checkout,
    env: { ...env, PORT: String(port), PLACARD_PUBLIC_URL: env.PLACARD_PUBLIC_URL || url, PLACARD_DATA_DIR: dataDir },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  for (let i = 0; !(await fetch(`${url}/readyz`).catch(() => null))?.ok; i++) {
    if (exited || i > 1200) throw new Error(`placard ${command} did not start within a minute`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    pid: child.pid as number,
    async stop() {
      if (exited) return;
      const done = once(child, 'exit');
      child.kill('SIGTERM');
      await done;
    },
  };
}

function createTeam(env: NodeJS.ProcessEnv, checkout?: string): { clientId: string; clientSecret: string } {
  // It prints the team and user ids too; the token wants the credential alone.
  const { clientId, clientSecret } = JSON.parse(
    execFileSync(
      process.execPath,
      ['bin/placard.js', 'admin', 'create-team', '--name', 'Bench', '--owner-email', 'owner@bench.local'],
      { env, encoding: 'utf8', cwd: checkout },
    ),
  );
  return { clientId, clientSecret };
}

function client(url: string, credentials: { clientId: string; clientSecret: string }) {
  let bearer: string | null = null;
  async function token(): Promise<string> {
    const res = await fetch(`${url}/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(credentials),
    });
    const answer = (await res.json()) as { token?: string };
    if (!answer.token) throw new Error(`POST /v1/auth/token: ${res.status} ${JSON.stringify(answer)}`);
    return answer.token;
  }
  return {
    token,
    async api(method: string, route: string, body?: unknown): Promise<ApiAnswer> {
      bearer ??= await token();
      const answer = await send(`${url}${route}`, method, { authorization: `Bearer ${bearer}` }, body);
      if (answer.status !== 200) throw new Error(`${method} ${route}: ${answer.status} ${JSON.stringify(answer.json)}`);
      return answer;
    },
  };
}

/**
 * The bench's HTTP client: node:http over kept-alive sockets. The client runs on the same two cores as the service,
 * and fetch (undici) cost it about twice the CPU per export (3.3–5.0 against 1.7–2.3 ms with the webhook receiver),
 * which the service's exports/s then paid for (issue 21, stop 15).
 */
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function send(url: string, method: string, headers: Record<string, string>, body?: unknown): Promise<ApiAnswer> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method,
        agent,
        headers: payload
          ? { ...headers, 'content-type': 'application/json', 'content-length': String(payload.length) }
          : headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: Json = null;
          try {
            json = text ? JSON.parse(text) : null;
          } catch {
            json = text;
          }
          const cache = res.headers['x-cache'];
          resolve({ status: res.statusCode ?? 0, cache: typeof cache === 'string' ? cache : null, json });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** One `placard serve`, the embedded shape (SQLite, the job table, blobs on disk, render threads = cores). */
export async function startService(
  env: Record<string, string> = {},
  options: ServiceOptions = {},
): Promise<RunningService> {
  const dataDir = scratchDir();
  const full: NodeJS.ProcessEnv = {
    ...process.env,
    LOG_LEVEL: 'warn',
    // A benchmark measures the service, not the rate limiter's refusals.
    PLACARD_RATE_LIMIT: 'false',
    ...(options.team
      ? // Media and webhook receivers of the benches live on 127.0.0.1.
        { PLACARD_DEMO: 'false', PLACARD_ALLOW_PRIVATE_URLS: 'true' }
      : {}),
    ...env,
  };
  for (const name of SCALED_OUT_ENV) if (!(name in env)) delete full[name];
  let credentials: { clientId: string; clientSecret: string } | null = null;
  if (options.team) credentials = createTeam({ ...full, PLACARD_DATA_DIR: dataDir }, options.checkout);
  const service = await startProcess('serve', full, dataDir, options.checkout);
  if (!credentials) {
    // The file also holds the demo Owner's studio sign-in (email, password); the token wants the credential alone.
    const { clientId, clientSecret } = JSON.parse(fs.readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8'));
    credentials = { clientId, clientSecret };
  }
  return {
    url: service.url,
    dataDir,
    pid: service.pid,
    credentials,
    ...client(service.url, credentials),
    async stop() {
      await service.stop();
    },
  };
}

async function pgAdmin(connectionString: string, text: string) {
  const admin = new pg.Client({ connectionString });
  await admin.connect();
  try {
    await admin.query(text);
  } finally {
    await admin.end();
  }
}

/** Why the scaled-out shape cannot run here (no PostgreSQL or Redis answering), or null when it can. */
export async function scaledOutUnavailable(): Promise<string | null> {
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
    return null;
  } catch (error) {
    return `needs PostgreSQL and Redis (${(error as Error).message})`;
  }
}

/** CPU seconds (user + system, every thread) a process has used so far, from /proc (Linux). */
export function cpuSecondsOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces, in parentheses): utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export interface ScaledOutService {
  /** The API process (PLACARD_ROLE=api): it renders nothing. */
  api: Omit<RunningService, 'stop'>;
  /** The API's and the running workers' process ids. */
  pids(): number[];
  /** Starts `count` more worker processes; each stops with `stopWorkers` or `stop`. */
  addWorkers(count: number): Promise<void>;
  stopWorkers(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The scaled-out shape on this machine: an API process and `workers` worker processes over PostgreSQL (a database of
 * its own on DATABASE_URL's server, or 127.0.0.1:5432 user postgres), Redis (REDIS_URL or 127.0.0.1:6379, a key
 * prefix of its own) and an s3rver bucket. Check `scaledOutUnavailable()` first.
 */
export async function startScaledOut(
  workers: number,
  env: Record<string, string> = {},
  options: ServiceOptions = {},
): Promise<ScaledOutService> {
  const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  const database = `placard_bench_${randomBytes(4).toString('hex')}`;
  const dbUrl = new URL(serverUrl);
  dbUrl.pathname = `/${database}`;
  const prefix = `placard-bench-${randomBytes(4).toString('hex')}`;
  // Removed when the bench process ends (bench/scratch.ts).
  const dataDir = () => scratchDir();
  const stops: Array<() => Promise<void>> = [];
  const workerStops: Array<() => Promise<void>> = [];
  const workerPids: number[] = [];
  let bucket: Awaited<ReturnType<typeof createTestBucket>> | null = null;
  async function stop() {
    for (const s of workerStops.splice(0).reverse()) await s().catch(() => undefined);
    for (const s of stops.splice(0).reverse()) await s().catch(() => undefined);
    const redis = openRedis(redisUrl);
    await deleteKeysWithPrefix(redis, prefix).catch(() => undefined);
    await redis.quit();
    await bucket?.remove().catch(() => undefined);
    await pgAdmin(serverUrl, `drop database if exists ${database} with (force)`);
  }
  await pgAdmin(serverUrl, `create database ${database}`);
  try {
    bucket = await createTestBucket();
    const shared: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: dbUrl.toString(),
      REDIS_URL: redisUrl,
      PLACARD_REDIS_PREFIX: prefix,
      S3_ENDPOINT: bucket.settings.endpoint,
      S3_BUCKET: bucket.settings.bucket,
      S3_ACCESS_KEY_ID: bucket.settings.accessKeyId,
      S3_SECRET_ACCESS_KEY: bucket.settings.secretAccessKey,
      PLACARD_JWT_SECRET: randomBytes(24).toString('hex'),
      PLACARD_RATE_LIMIT: 'false',
      PLACARD_ALLOW_PRIVATE_URLS: 'true',
      PLACARD_RENDER_THREADS: '1',
      LOG_LEVEL: 'warn',
      ...(options.team ? { PLACARD_DEMO: 'false' } : {}),
      ...env,
    };
    const apiDir = dataDir();
    const credentials = options.team ? createTeam({ ...shared, PLACARD_DATA_DIR: apiDir }) : null;
    const api = await startProcess('serve', { ...shared, PLACARD_ROLE: 'api' }, apiDir);
    stops.push(api.stop);
    const creds =
      credentials ??
      (({ clientId, clientSecret }) => ({ clientId, clientSecret }))(
        JSON.parse(fs.readFileSync(path.join(apiDir, 'demo-credentials.json'), 'utf8')),
      );
    const service: ScaledOutService = {
      api: { url: api.url, dataDir: apiDir, pid: api.pid, credentials: creds, ...client(api.url, creds) },
      async addWorkers(count) {
        const started = await Promise.all(
          Array.from({ length: count }, () =>
            startProcess('worker', { ...shared, PLACARD_PUBLIC_URL: api.url }, dataDir()),
          ),
        );
        for (const w of started) {
          workerStops.push(w.stop);
          workerPids.push(w.pid);
        }
      },
      async stopWorkers() {
        workerPids.splice(0);
        await Promise.all(workerStops.splice(0).map((s) => s()));
      },
      pids: () => [api.pid, ...workerPids],
      stop,
    };
    if (workers > 0) await service.addWorkers(workers);
    return service;
  } catch (error) {
    await stop();
    throw error;
  }
}
