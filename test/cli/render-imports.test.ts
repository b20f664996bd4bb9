// `placard render` loads the renderer and nothing of the service (issue 21): the real command runs with a preload that
// records every module it imports, renders a 300x250 JPG, and the list is checked for the HTTP server, the database,
// the queues and the AWS SDK. The cold wall time is a benchmark figure (`npm run bench -- cli`), not asserted here.
// A build runs the renderer bundled (scripts/bundle-cli.mjs) through a V8 code cache (src/cli/bundle-loader.ts): the
// bundle is made from the sources here and must render the same JPG, with a cache made by its first run and taken by
// its second, while loading none of TypeBox's files, HarfBuzz or the Ajv compiler.
import assert from 'node:assert/strict';
import { isAscii } from 'node:buffer';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';

// @ts-expect-error: a plain ES module of the build, without types.
import { bundleRender } from '../../scripts/bundle-cli.mjs';

const MAIN = path.resolve('src/main.ts');
const RECORDER = path.resolve('test/cli/fixtures/record-imports.mjs');
const LOADER = path.resolve('src/cli/bundle-loader.ts');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-cli-imports-'));
// Inside the repository (and ignored by git): the bundle's external packages resolve from node_modules.
fs.mkdirSync('.tmp', { recursive: true });
const bundleDir = fs.mkdtempSync(path.resolve('.tmp/cli-bundle-'));
after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(bundleDir, { recursive: true, force: true });
});

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

function banner(): string {
  const document = JSON.parse(fs.readFileSync('test/render/fixtures/cli-set.json', 'utf8'));
  document.sizes = document.sizes.slice(0, 1); // the 300x250
  const input = path.join(dir, 'banner.json');
  fs.writeFileSync(input, JSON.stringify(document));
  return input;
}

/** The URLs (and `require:` requests) a process loaded, from the recorder's file. */
const recorded = (file: string) => [...new Set(fs.readFileSync(file, 'utf8').split('\n').filter(Boolean))];

test('placard render of a 300x250 JPG loads the renderer only, and writes the JPG', async () => {
  const input = banner();
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

  const loaded = recorded(record);
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
  // A JPG of shapes decodes no image and draws no SVG as vectors: libvips, canvg and its XML parser wait for first use.
  const unused = loaded.filter((url) => /node_modules\/(sharp|canvg|@xmldom\/xmldom)\//.test(url));
  assert.deepEqual(unused, [], 'sharp, canvg and @xmldom/xmldom are loaded on first use');

  const meta = await sharp(out).metadata();
  assert.equal(meta.format, 'jpeg');
  assert.equal(meta.width, 300);
  assert.equal(meta.height, 250);
});

test('the bundled renderer of a build writes the same JPG through its code cache, without loading TypeBox, HarfBuzz or the Ajv compiler', async () => {
  const bundle = await bundleRender({ entry: path.resolve('src/cli/render.ts'), outdir: bundleDir, sourcemap: false });
  // Its bytes are its characters (the loader copies instead of decoding): a non-ASCII character in a source's regular
  // expression or string would undo that, silently.
  const bytes = fs.readFileSync(bundle);
  assert.ok(isAscii(bytes), `the bundle is ASCII: ${/\P{ASCII}.{0,40}/su.exec(bytes.toString('utf8'))?.[0]}`);
  const input = banner();
  const fromSources = path.join(dir, 'sources.jpg');
  // What dist/main.js does with the bundle of a build: load it through the code cache, run the command's arguments,
  // then keep the cache.
  const driver = `const { loadBundle } = await import(${JSON.stringify(pathToFileURL(LOADER).href)});
    const loaded = loadBundle(${JSON.stringify(bundle)});
    const status = await loaded.exports.runRender(process.argv.slice(1));
    loaded.saveCache();
    process.exit(status);`;
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  const runBundle = (name: string) => {
    const out = path.join(dir, `${name}.jpg`);
    const record = path.join(dir, `${name}-imports.txt`);
    const run = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--import',
        RECORDER,
        '--input-type=module',
        '-e',
        driver,
        input,
        '--format',
        'jpg',
        '--out',
        out,
      ],
      { env: { ...env, PLACARD_RECORD_IMPORTS: record }, encoding: 'utf8', timeout: 120_000 },
    );
    assert.equal(run.status, 0, `the bundled render (${name}) failed: ${run.stderr}`);
    return { bytes: fs.readFileSync(out), loaded: recorded(record) };
  };
  const caches = () => fs.readdirSync(bundleDir).filter((name) => name.endsWith('.v8cache'));

  assert.deepEqual(caches(), [], 'a new bundle has no code cache');
  const first = runBundle('first');
  const [cache] = caches();
  assert.ok(cache, 'the first render left a code cache beside the bundle');
  const made = fs.statSync(path.join(bundleDir, cache));
  assert.ok(made.size > 100_000, `the cache holds the compiled bundle (${made.size} bytes)`);
  const second = runBundle('second');
  assert.deepEqual(caches(), [cache], 'the second render used the same cache');
  assert.equal(
    fs.statSync(path.join(bundleDir, cache)).mtimeMs,
    made.mtimeMs,
    'V8 took the cache: the second render did not write it again',
  );

  const sources = spawnSync(
    process.execPath,
    ['--import', 'tsx', MAIN, 'render', input, '--format', 'jpg', '--out', fromSources],
    { env, encoding: 'utf8', timeout: 120_000 },
  );
  assert.equal(sources.status, 0, `placard render failed: ${sources.stderr}`);
  const expected = fs.readFileSync(fromSources);
  assert.ok(first.bytes.equals(expected), 'the bundle writes the same bytes as the sources');
  assert.ok(second.bytes.equals(expected), 'the bundle from its code cache writes the same bytes');

  for (const { loaded } of [first, second]) {
    assert.ok(
      loaded.some((url) => /@napi-rs\/canvas/.test(url)),
      'the recorder works: the canvas was loaded',
    );
    const unexpected = loaded.filter(
      (url) =>
        FORBIDDEN.some((pattern) => pattern.test(url)) ||
        /node_modules\/typebox\//.test(url) ||
        (url.startsWith(`${pathToFileURL(path.resolve('src')).href}/`) && url !== pathToFileURL(LOADER).href) ||
        /node_modules\/(subset-font|ajv\/dist\/ajv\.js|sharp\/|canvg\/|@xmldom\/xmldom\/)/.test(url) ||
        /^require:(subset-font|sharp|canvg|@xmldom\/xmldom|ajv|typebox(\/.*)?|.*\/src\/.*)$/.test(url),
    );
    assert.deepEqual(
      unexpected,
      [],
      'the bundle loads its own modules, and neither HarfBuzz, the Ajv compiler, libvips nor canvg',
    );
  }
});
