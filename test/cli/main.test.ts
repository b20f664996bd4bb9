// The `placard` command as a user runs it: real processes, real ports, real signals.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { deleteKeysWithPrefix, openRedis } from '../../src/storage/redis.js';

const MAIN = path.resolve('src/main.ts');

interface Env {
  env: NodeJS.ProcessEnv;
  dataDir: string;
  cleanup(): Promise<void>;
}

/** A data dir, and on PostgreSQL runs a database of its own (the CLI works on the public schema). */
async function freshEnv(): Promise<Env> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-cli-'));
  const env: NodeJS.ProcessEnv = { ...process.env, PLACARD_DATA_DIR: dataDir, LOG_LEVEL: 'info' };
  // Node's test runner marks its children with this; a spawned service must not think it is a test file.
  delete env.NODE_TEST_CONTEXT;
  // Scaled out (REDIS_URL): Redis keys of its own, so that parallel test files never take each other's jobs.
  const redisPrefix = `placard-cli-${randomBytes(4).toString('hex')}`;
  if (process.env.REDIS_URL) env.PLACARD_REDIS_PREFIX = redisPrefix;
  let dropDb: (() => Promise<void>) | null = null;
  if (process.env.DATABASE_URL) {
    const name = `placard_cli_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = new URL(process.env.DATABASE_URL);
    url.pathname = `/${name}`;
    env.DATABASE_URL = url.toString();
    dropDb = async () => {
      const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    };
  }
  return {
    env,
    dataDir,
    async cleanup() {
      await dropDb?.();
      if (process.env.REDIS_URL) {
        const redis = openRedis(process.env.REDIS_URL);
        await deleteKeysWithPrefix(redis, redisPrefix);
        await redis.quit();
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function placard(env: NodeJS.ProcessEnv, ...args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', MAIN, ...args], { env, encoding: 'utf8' });
}

/** Starts `placard serve` on a free port and resolves once it listens. */
function serve(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string; stdout: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'serve'], {
    env: { ...env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stderr?.on('data', (chunk) => {
    out += chunk;
  });
  return new Promise((resolve, reject) => {
    const early = (code: number | null) => reject(new Error(`serve exited with ${code}: ${out}`));
    child.once('exit', early);
    child.stdout?.on('data', (chunk) => {
      out += chunk;
      const listening = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (listening) {
        child.off('exit', early);
        resolve({ child, url: listening[1], stdout: () => out });
      }
    });
  });
}

function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('placard serve', () => {
  let e: Env;
  before(async () => {
    e = await freshEnv();
  });
  after(() => e.cleanup());

  test('first start creates the demo team, project and designs, prints the credential once and writes demo-credentials.json', async () => {
    const { child, url, stdout } = await serve(e.env);
    const file = path.join(e.dataDir, 'demo-credentials.json');
    const demo = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.match(demo.clientId, /^[0-9a-f-]{36}$/);
    assert.ok(stdout().includes(demo.clientSecret), 'the secret is printed');

    const token = await fetch(`${url}/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId: demo.clientId, clientSecret: demo.clientSecret }),
    }).then((r) => r.json() as Promise<{ token: string }>);
    // The studio sign-in of the demo Owner is in the same file, and printed once.
    assert.equal(demo.email, 'owner@demo.local');
    assert.ok(stdout().includes(demo.password), 'the password is printed');
    const login = await fetch(`${url}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: demo.email, password: demo.password }),
    });
    assert.equal(login.status, 200);
    assert.match(login.headers.get('set-cookie') ?? '', /placard_session=.*HttpOnly/);
    const users = await fetch(`${url}/v1/users`, { headers: { authorization: `Bearer ${token.token}` } }).then(
      (r) => r.json() as Promise<{ response: { nodes: Array<{ email: string; role: { name: string } }> } }>,
    );
    assert.equal(users.response.nodes[0].email, 'owner@demo.local');
    assert.equal(users.response.nodes[0].role.name, 'Owner');

    const auth = { authorization: `Bearer ${token.token}` };
    // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field below.
    const get = (route: string) => fetch(`${url}${route}`, { headers: auth }).then((r) => r.json() as Promise<any>);
    const projects = await get('/v1/projects');
    assert.deepEqual(
      projects.response.nodes.map((p: { name: string }) => p.name),
      ['Spring campaign'],
    );
    const designs = await get('/v1/templates?orderBy=NAME&orderDirection=ASC');
    assert.deepEqual(
      designs.response.nodes.map((d: { name: string }) => d.name),
      ['Spring sale — IAB set', 'Spring sale — Medium Rectangle', 'Spring sale — Story'],
    );
    const set = designs.response.nodes[0];
    const sizes = await get(`/v1/templates/${set.id}/design-sizes`);
    assert.deepEqual(
      sizes.response.map((z: { width: number; height: number; kind: string }) => `${z.width}x${z.height} ${z.kind}`),
      ['300x250 system_design', '728x90 system_design', '160x600 system_design', '300x600 system_design'],
    );

    child.kill('SIGTERM');
    assert.equal(await exitOf(child), 0, 'SIGTERM stops the service cleanly');
  });

  test('a restart on the same data dir keeps the data and does not create the demo again', async () => {
    const before = fs.readFileSync(path.join(e.dataDir, 'demo-credentials.json'), 'utf8');
    const { child, url, stdout } = await serve(e.env);
    assert.equal((await fetch(`${url}/readyz`)).status, 200);
    assert.ok(!stdout().includes('Demo team created'));
    assert.equal(fs.readFileSync(path.join(e.dataDir, 'demo-credentials.json'), 'utf8'), before);
    const { clientId, clientSecret } = JSON.parse(before);
    const token = await fetch(`${url}/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId, clientSecret }),
    });
    assert.equal(token.status, 200, 'the credential of the first start still works');
    child.kill('SIGTERM');
    assert.equal(await exitOf(child), 0);
  });
});

describe('placard serve stopping with a response under way', () => {
  let e: Env;
  before(async () => {
    e = await freshEnv();
    e.env.PLACARD_ALLOW_PRIVATE_URLS = 'true';
  });
  after(() => e.cleanup());

  test('SIGTERM while a keep-alive request is in flight answers it, then exits 0', async () => {
    // An image that takes 1.5 s to arrive keeps the import (which draws the thumbnail) in flight.
    const slow = http.createServer((_req, res) => {
      setTimeout(() => res.writeHead(404).end(), 1_500);
    });
    slow.listen(0, '127.0.0.1');
    await once(slow, 'listening');
    const media = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
    try {
      const { child, url } = await serve(e.env);
      const { clientId, clientSecret } = JSON.parse(
        fs.readFileSync(path.join(e.dataDir, 'demo-credentials.json'), 'utf8'),
      );
      const credential = JSON.stringify({ clientId, clientSecret });
      const { token } = (await (
        await fetch(`${url}/v1/auth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: credential,
        })
      ).json()) as { token: string };
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const projects = (await (await fetch(`${url}/v1/projects`, { headers })).json()) as {
        response: { nodes: { id: number }[] };
      };
      const document = {
        name: 'Slow',
        sizes: [
          {
            name: 'S',
            width: 100,
            height: 100,
            slides: [
              {
                duration: 1,
                elements: [{ name: 'p', type: 'image', x: 0, y: 0, width: 50, height: 50, src: `${media}/p.png` }],
              },
            ],
          },
        ],
      };
      // fetch keeps its connections alive: the import's connection is the one that used to hold the stop open.
      const inFlight = fetch(`${url}/v1/templates/import`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ projectId: projects.response.nodes[0].id, name: 'Slow', document }),
      });
      await new Promise((resolve) => setTimeout(resolve, 400));
      child.kill('SIGTERM');
      const answered = await inFlight;
      assert.equal(answered.status, 200, 'the request in flight is finished');
      assert.equal(answered.headers.get('connection'), 'close');
      assert.equal(await exitOf(child), 0, 'and the process stops cleanly');
    } finally {
      slow.close();
    }
  });
});

describe('placard admin and migrate', () => {
  let e: Env;
  before(async () => {
    e = await freshEnv();
    e.env.PLACARD_DEMO = 'false';
  });
  after(() => e.cleanup());

  test('migrate applies the migrations and exits 0', () => {
    const run = placard(e.env, 'migrate');
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /migrations applied/);
  });

  test('admin create-team prints the team, its Owner and a working credential as JSON', async () => {
    const run = placard(e.env, 'admin', 'create-team', '--name', 'Globex', '--owner-email', 'hank@globex.test');
    assert.equal(run.status, 0, run.stderr);
    const created = JSON.parse(run.stdout);
    assert.deepEqual(Object.keys(created).sort(), ['clientId', 'clientSecret', 'teamId', 'userId']);

    const again = placard(e.env, 'admin', 'create-credential', '--email', 'HANK@globex.test');
    assert.equal(again.status, 0, again.stderr);
    const credential = JSON.parse(again.stdout);
    assert.deepEqual(Object.keys(credential).sort(), ['clientId', 'clientSecret']);
    assert.notEqual(credential.clientId, created.clientId);

    const { child, url } = await serve(e.env);
    for (const pair of [created, credential]) {
      const res = await fetch(`${url}/v1/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ clientId: pair.clientId, clientSecret: pair.clientSecret }),
      });
      assert.equal(res.status, 200);
    }
    child.kill('SIGTERM');
    assert.equal(await exitOf(child), 0);
  });

  test('bad usage exits 2 with a message', () => {
    const missing = placard(e.env, 'admin', 'create-team', '--name', 'X');
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /--owner-email/);
    const unknown = placard(e.env, 'frobnicate');
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /unknown command 'frobnicate'/);
    const noUser = placard(e.env, 'admin', 'create-credential', '--email', 'nobody@x.test');
    assert.equal(noUser.status, 1);
    assert.match(noUser.stderr, /no user has the email nobody@x.test/);
    const badEnv = spawnSync(process.execPath, ['--import', 'tsx', MAIN, 'migrate'], {
      env: { ...e.env, PORT: 'eighty' },
      encoding: 'utf8',
    });
    assert.equal(badEnv.status, 2);
    assert.match(badEnv.stderr, /PORT must be a whole number, received 'eighty'/);
  });
});
