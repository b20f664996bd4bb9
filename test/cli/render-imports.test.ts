// `placard render` loads the renderer and nothing of the service (issue 21): the real command runs with a preload that
// records every module it imports, renders a 300x250 JPG, and the list is checked for the HTTP server, the database,
// the queues and the AWS SDK. The cold wall time is a benchmark figure (`npm run bench -- cli`), not asserted here.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import sharp from 'sharp';

const MAIN = path.resolve('src/main.ts');
const RECORDER = path.resolve('test/cli/fixtures/record-imports.mjs');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-cli-imports-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Packages and source folders of the service that a local render has no use for. */
const FORBIDDEN = [
  /node_modules\/fastify\//,
  /node_modules\/@fastify\//,
  /node_modules\/kysely\//,
  /node_modules\/better-sqlite3\//,
  /node_modules\/pg\//,
  /node_modules\/pg-pool\//,
  /node_modules\/bullmq\//,
  /node_modules\/ioredis\//,
  /node_modules\/@aws-sdk\//,
  /node_modules\/@smithy\//,
  /node_modules\/prom-client\//,
  /\/src\/app\.ts$/,
  /\/src\/runtime\.ts$/,
  /\/src\/http\/(app|plugins|routes)\//,
  /\/src\/storage\/db\//,
  /\/src\/jobs\//,
  /\/src\/services\//,
  /^require:(fastify|kysely|better-sqlite3|pg|bullmq|ioredis|@aws-sdk\/.*)$/,
];

test('placard render of a 300x250 JPG loads the renderer only, and writes the JPG', async () => {
  const document = JSON.parse(fs.readFileSync('test/render/fixtures/cli-set.json', 'utf8'));
  document.sizes = document.sizes.slice(0, 1); // the 300x250
  const input = path.join(dir, 'banner.json');
  fs.writeFileSync(input, JSON.stringify(document));
  const out = path.join(dir, 'banner.jpg');
  const record = path.join(dir, 'imports.txt');
  const env: NodeJS.ProcessEnv = { ...process.env, PLACARD_RECORD_IMPORTS: record };
  delete env.NODE_TEST_CONTEXT;
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--import', RECORDER, MAIN, 'render', input, '--format', 'jpg', '--out', out],
    { env, encoding: 'utf8', timeout: 120_000 },
  );
  assert.equal(run.status, 0, `placard render failed: ${run.stderr}`);

  const loaded = [...new Set(fs.readFileSync(record, 'utf8').split('\n').filter(Boolean))];
  // The recorder works: the renderer's own modules are in the list.
  assert.ok(
    loaded.some((url) => url.endsWith('/src/formats/raster/index.ts')),
    'the raster format was loaded',
  );
  assert.ok(
    loaded.some((url) => /@napi-rs\/canvas/.test(url)),
    'the canvas was loaded',
  );
  const wrong = loaded.filter((url) => FORBIDDEN.some((pattern) => pattern.test(url)));
  assert.deepEqual(wrong, [], 'a render loads none of the service');

  const meta = await sharp(out).metadata();
  assert.equal(meta.format, 'jpeg');
  assert.equal(meta.width, 300);
  assert.equal(meta.height, 250);
});
