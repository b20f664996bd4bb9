// The code cache of `placard render`'s bundle (src/cli/bundle-loader.ts), on small CommonJS files of its own: a cache
// is written once and then taken, a damaged one is refused by V8 and written again, a changed bundle never runs the
// old one's code, and a cache that cannot be written only costs the cache. Each load runs in a process of its own.
// The real bundle through its cache is in render-imports.test.ts.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { pathToFileURL } from 'node:url';

const LOADER = pathToFileURL(path.resolve('src/cli/bundle-loader.ts')).href;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-bundle-loader-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

interface Loaded {
  answer: string;
  filename: string;
  answerFrom: string;
}

/**
 * Loads `file` through the loader in a process of its own, as each `placard render` does (within one process V8
 * finds a script it compiled before in its own cache and never reads the code cache), then saves the cache.
 */
function load(file: string): Loaded {
  const driver = `const { loadBundle } = await import(${JSON.stringify(LOADER)});
    const loaded = loadBundle(${JSON.stringify(file)});
    const { answer, filename, answerFrom } = loaded.exports;
    loaded.saveCache();
    console.log(JSON.stringify({ answer: answer(), filename, answerFrom }));`;
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', driver], {
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(run.status, 0, `the load failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** A bundle that answers `text`, requires a Node module and a file beside it, and knows its own name. */
function writeBundle(name: string, text: string): string {
  const folder = path.join(dir, name);
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, 'beside.js'), `module.exports = ${JSON.stringify(`beside ${name}`)};`);
  const file = path.join(folder, 'render.cjs');
  fs.writeFileSync(
    file,
    `const path = require('node:path');
     exports.answer = function answer() { return ${JSON.stringify(text)}; };
     exports.filename = path.basename(__filename);
     exports.answerFrom = require('./beside.js');`,
  );
  return file;
}

const caches = (file: string) =>
  fs.readdirSync(path.dirname(file)).filter((name) => name.startsWith('render.cjs.') && name.endsWith('.v8cache'));

test('the first load writes the cache once its work is done, and the next load takes it', () => {
  const file = writeBundle('first', 'one');
  assert.deepEqual(load(file), { answer: 'one', filename: 'render.cjs', answerFrom: 'beside first' });
  const [cache] = caches(file);
  assert.ok(cache, 'the first load wrote the cache');
  const cacheFile = path.join(path.dirname(file), cache);
  const written = fs.statSync(cacheFile);
  assert.ok(written.size > 0);

  assert.equal(load(file).answer, 'one');
  assert.deepEqual(caches(file), [cache]);
  assert.equal(fs.statSync(cacheFile).mtimeMs, written.mtimeMs, 'V8 took the cache, so it was not written again');
});

test('a damaged cache is refused, the bundle runs from its source, and the cache is written again', () => {
  const file = writeBundle('damaged', 'two');
  load(file);
  const [cache] = caches(file);
  const cacheFile = path.join(path.dirname(file), cache);
  const damaged = Buffer.alloc(fs.statSync(cacheFile).size, 0x5a);
  fs.writeFileSync(cacheFile, damaged);

  assert.equal(load(file).answer, 'two');
  assert.ok(!fs.readFileSync(cacheFile).equals(damaged), 'the damaged cache was replaced');
  assert.deepEqual(
    fs.readdirSync(path.dirname(file)).filter((name) => name.endsWith('.tmp')),
    [],
    'no partial file is left',
  );
  const replaced = fs.statSync(cacheFile).mtimeMs;
  assert.equal(load(file).answer, 'two');
  assert.equal(fs.statSync(cacheFile).mtimeMs, replaced, 'the new cache is taken');
});

test('a changed bundle of the same length runs its own code, never the old cache', () => {
  const file = writeBundle('changed', 'aaa');
  load(file);
  const before = fs.statSync(file).size;
  writeBundle('changed', 'bbb');
  assert.equal(fs.statSync(file).size, before, 'same length, which is all V8 checks of the source');
  assert.equal(load(file).answer, 'bbb');
  assert.equal(caches(file).length, 2, "each bundle's bytes have a cache of their own");
});

test('a cache that cannot be written costs the cache, not the render', () => {
  const file = writeBundle('unwritable', 'three');
  load(file);
  const [cache] = caches(file);
  const cacheFile = path.join(path.dirname(file), cache);
  // Where the cache goes stands a folder (as root, a read-only folder would not stop the write): reading it fails,
  // and so does putting the new cache in its place.
  fs.rmSync(cacheFile);
  fs.mkdirSync(cacheFile);
  fs.writeFileSync(path.join(cacheFile, 'keep'), '');
  assert.equal(load(file).answer, 'three');
  assert.ok(fs.statSync(cacheFile).isDirectory(), 'nothing replaced what stood there');
  assert.deepEqual(
    fs.readdirSync(path.dirname(file)).filter((name) => name.endsWith('.tmp')),
    [],
    'the partial write was removed',
  );
});
