// Test harness: a fresh service per test file, on SQLite in a temporary data dir, or on PostgreSQL in a schema of
// its own when DATABASE_URL is set (the same suite runs on both). Requests go through app.inject, the full stack.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import type { App } from '../../src/http/types.js';
import { openRuntime, type Runtime } from '../../src/runtime.js';
import { createTeamService, type NewTeam } from '../../src/services/team.service.js';

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
  close(): Promise<void>;
}

export type TestConfig = Partial<Omit<Config, 'rateLimit'>> & { rateLimit?: Partial<Config['rateLimit']> };

let counter = 0;

export async function startTestApp(overrides: TestConfig = {}): Promise<TestApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-test-'));
  const databaseUrl = process.env.DATABASE_URL || null;
  let pgSchema: string | undefined;
  if (databaseUrl) {
    pgSchema = `t_${process.pid}_${randomBytes(4).toString('hex')}`;
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(`create schema ${pgSchema}`);
    await client.end();
  }
  const base = loadConfig({});
  const config = Object.freeze({
    ...base,
    dataDir,
    databaseUrl,
    demo: false,
    logLevel: 'silent',
    publicUrl: 'http://placard.test',
    allowPrivateUrls: true,
    ...overrides,
    rateLimit: { ...base.rateLimit, exports: 10_000, other: 10_000, ...overrides.rateLimit },
  });
  const runtime = await openRuntime(config, { pgSchema });
  const app = await buildApp({ ...runtime, logger: false });
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
    async close() {
      await app.close();
      await runtime.close();
      if (databaseUrl && pgSchema) {
        const client = new pg.Client({ connectionString: databaseUrl });
        await client.connect();
        await client.query(`drop schema ${pgSchema} cascade`);
        await client.end();
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
