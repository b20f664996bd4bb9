// Test harness: a fresh service per test file, on SQLite in a temporary data dir, or on PostgreSQL in a database of
// its own when DATABASE_URL is set (the same suite runs on both). Requests go through app.inject, the full stack.
// With REDIS_URL as well, the service runs in the scaled-out shape: BullMQ, rate limits and idempotency records in
// Redis under a key prefix of its own (test files run in parallel), files in a bucket of its own on an S3-protocol
// server (S3_ENDPOINT, or an s3rver this process starts); keys and bucket are removed by close().
// A database rather than a schema: Kysely's Migrator looks for its bookkeeping tables in every schema it can see, so
// a file migrating while another file's schema exists skipped creating them and failed.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import type { RenderPool } from '../../src/formats/pool.js';
import type { App } from '../../src/http/types.js';
import type { JobQueue } from '../../src/jobs/job-queue.js';
import { openRuntime, type Runtime } from '../../src/runtime.js';
import { createTeamService, type NewTeam } from '../../src/services/team.service.js';
import { deleteKeysWithPrefix, openRedis } from '../../src/storage/redis.js';
import { adminQuery, dropDatabase } from './postgres.js';
import { createTestBucket, type TestBucket } from './s3-server.js';

export type RoleName = 'Owner' | 'Admin' | 'Editor' | 'Viewer';

export interface Caller {
  userId: number;
  email: string;
  token: string;
  clientId: string;
  clientSecret: string;
  headers: { authorization: string };
}

export interface TestApp {
  app: App;
  runtime: Runtime;
  config: Readonly<Config>;
  /** The Owner of the first team. */
  owner: Caller & { teamId: number };
  /** A new user of the owner's team (or `teamOwner`'s) with this role, with a credential and a token. */
  userWith(role: RoleName, teamOwner?: Caller): Promise<Caller>;
  /** Another team with its own Owner: its objects must not exist for the first team. */
  newTeam(name?: string): Promise<Caller & { teamId: number }>;
  /** Whether this run uses PostgreSQL. */
  postgres: boolean;
  /** The bucket of this app in the scaled-out shape (files in S3); null on local disk. */
  bucket: TestBucket | null;
  /** Where download links of stored files start: `<publicUrl>/files` on local disk, `<endpoint>/<bucket>` on S3. */
  filesBase: string;
  /** Downloads a link the service handed out: through the app (local disk) or from the S3 server. */
  download(url: string): Promise<{ status: number; body: Buffer; headers: Record<string, string> }>;
  close(): Promise<void>;
}

export type TestConfig = Partial<Omit<Config, 'rateLimit'>> & { rateLimit?: Partial<Config['rateLimit']> };

export interface TestOptions extends TestConfig {
  /** Replaces the render threads (a test that needs renders to crash, hang or wait). */
  renderPool?: RenderPool;
  /** Waits between webhook delivery attempts (the service's default is 10 s … 6 h). Default [50, 100, 200]. */
  webhookRetryDelaysMs?: readonly number[];
  /** Wraps the runtime's job queue for the app (a test that stubs what the queue reports, e.g. finishedSince). */
  wrapJobs?: (jobs: JobQueue) => JobQueue;
  /** Called with the built app before `app.ready()`, e.g. to register a route that only a test needs. */
  beforeReady?: (app: App) => void;
}

let counter = 0;

/** When a download link expires, Unix seconds: `exp` of a link of the service, or X-Amz-Date + X-Amz-Expires of S3's. */
export function linkExpiry(url: string): number {
  const params = new URL(url).searchParams;
  if (params.has('exp')) return Number(params.get('exp'));
  const signedAt = (params.get('X-Amz-Date') ?? '').replace(
    /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/,
    '$1-$2-$3T$4:$5:$6Z',
  );
  return Date.parse(signedAt) / 1000 + Number(params.get('X-Amz-Expires'));
}

export async function startTestApp(options: TestOptions = {}): Promise<TestApp> {
  const { beforeReady, renderPool, wrapJobs, webhookRetryDelaysMs = [50, 100, 200], ...overrides } = options;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-test-'));
  const serverUrl = process.env.DATABASE_URL || null;
  let databaseUrl: string | null = null;
  let pgDatabase: string | undefined;
  if (serverUrl) {
    pgDatabase = `placard_t_${process.pid}_${randomBytes(4).toString('hex')}`;
    await adminQuery(serverUrl, `create database ${pgDatabase}`);
    const url = new URL(serverUrl);
    url.pathname = `/${pgDatabase}`;
    databaseUrl = url.toString();
  }
  const redisUrl = process.env.REDIS_URL || null;
  const redisPrefix = `placard-t-${process.pid}-${randomBytes(4).toString('hex')}`;
  // Files in S3 in the scaled-out shape, unless the test pins local disk (s3: null) to test the /files route.
  const bucket = redisUrl && overrides.s3 === undefined ? await createTestBucket() : null;
  const base = loadConfig({});
  const config = Object.freeze({
    ...base,
    dataDir,
    databaseUrl,
    demo: false,
    logLevel: 'silent',
    publicUrl: 'http://placard.test',
    allowPrivateUrls: true,
    redisUrl,
    redisPrefix,
    s3: bucket?.settings ?? null,
    ...overrides,
    rateLimit: { ...base.rateLimit, exports: 10_000, other: 10_000, invalidExports: 10_000, ...overrides.rateLimit },
  });
  const runtime = await openRuntime(config);
  const app = await buildApp({
    ...runtime,
    renderPool: renderPool ?? runtime.renderPool,
    jobs: wrapJobs ? wrapJobs(runtime.jobs) : runtime.jobs,
    logger: false,
    webhookRetryDelaysMs,
  });
  beforeReady?.(app);
  await app.ready();

  async function tokenFor(clientId: string, clientSecret: string): Promise<string> {
    const res = await app.inject({ method: 'POST', url: '/v1/auth/token', payload: { clientId, clientSecret } });
    if (res.statusCode !== 200) throw new Error(`token: ${res.statusCode} ${res.body}`);
    return res.json().token;
  }

  async function asCaller(team: NewTeam, email: string): Promise<Caller & { teamId: number }> {
    const token = await tokenFor(team.clientId, team.clientSecret);
    return { ...team, email, token, headers: { authorization: `Bearer ${token}` } };
  }

  const teams = createTeamService(runtime.db.kysely);
  async function newTeam(name = 'Team') {
    const email = `owner${++counter}@${name.toLowerCase().replace(/\W/g, '')}.test`;
    return asCaller(await teams.createTeam({ name, ownerEmail: email, ownerName: `${name} Owner` }), email);
  }

  const owner = await newTeam('Acme');

  async function userWith(role: RoleName, teamOwner: Caller = owner): Promise<Caller> {
    const email = `${role.toLowerCase()}${++counter}@acme.test`;
    const created = await app.inject({
      method: 'POST',
      url: '/v1/users',
      headers: teamOwner.headers,
      payload: { name: `${role} ${counter}`, email, role },
    });
    if (created.statusCode !== 200) throw new Error(`user: ${created.statusCode} ${created.body}`);
    const userId = created.json().response.id as number;
    const cred = await app.inject({
      method: 'POST',
      url: '/v1/apiCredentials',
      headers: teamOwner.headers,
      payload: { userId, name: `${role} key` },
    });
    if (cred.statusCode !== 200) throw new Error(`credential: ${cred.statusCode} ${cred.body}`);
    const { clientId, clientSecret } = cred.json().response;
    const token = await tokenFor(clientId, clientSecret);
    return { userId, email, token, clientId, clientSecret, headers: { authorization: `Bearer ${token}` } };
  }

  return {
    app,
    runtime,
    config,
    owner,
    userWith,
    newTeam,
    postgres: Boolean(databaseUrl),
    bucket,
    filesBase: bucket ? `${bucket.settings.endpoint}/${bucket.settings.bucket}` : `${config.publicUrl}/files`,
    async download(url: string) {
      if (url.startsWith(`${config.publicUrl}/`)) {
        const res = await app.inject({ method: 'GET', url: url.slice(config.publicUrl.length) });
        return { status: res.statusCode, body: res.rawPayload, headers: res.headers as Record<string, string> };
      }
      const res = await fetch(url);
      return {
        status: res.status,
        body: Buffer.from(await res.arrayBuffer()),
        headers: Object.fromEntries(res.headers),
      };
    },
    async close() {
      await app.close();
      await runtime.close();
      if (redisUrl) {
        const redis = openRedis(redisUrl);
        await deleteKeysWithPrefix(redis, redisPrefix);
        await redis.quit();
      }
      await bucket?.remove();
      if (serverUrl && pgDatabase) await dropDatabase(serverUrl, pgDatabase);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
