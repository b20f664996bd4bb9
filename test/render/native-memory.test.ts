// Skia's allocator reads MIMALLOC_ARENA_PURGE_MULT once, as the native library loads (render/native-memory.ts): each
// entry point must have set it by then. A preload (fixtures/skia-load-env.cjs) reports the value at the moment the
// library is loaded, in a process of its own, for the render pool's module, for `placard render` and for a value the
// operator set. What the setting buys is measured by test/formats/large-render-memory.test.ts. The same module turns
// off @napi-rs/canvas's scan of the host's fonts, which are never drawn (test/render/host-fonts.test.ts).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { pathToFileURL } from 'node:url';

const HOOK = path.resolve('test/render/fixtures/skia-load-env.cjs');
const MAIN = path.resolve('src/main.ts');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-native-memory-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const moduleUrl = (file: string) => JSON.stringify(pathToFileURL(path.resolve(file)).href);

/** Runs node with the preload and tsx; answers what it printed of Skia's load and its standard output. */
function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete childEnv.NODE_TEST_CONTEXT;
  if (!('MIMALLOC_ARENA_PURGE_MULT' in env)) delete childEnv.MIMALLOC_ARENA_PURGE_MULT;
  if (!('DISABLE_SYSTEM_FONTS_LOAD' in env)) delete childEnv.DISABLE_SYSTEM_FONTS_LOAD;
  const child = spawnSync(process.execPath, ['--require', HOOK, '--import', 'tsx', ...args], {
    env: childEnv,
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(child.status, 0, `the process failed: ${child.stderr}`);
  const lines = (prefix: string) =>
    child.stderr
      .split('\n')
      .filter((line) => line.startsWith(prefix))
      .map((line) => line.slice(prefix.length));
  return { loads: lines('skia-env:'), fonts: lines('skia-fonts:'), stdout: child.stdout.trim() };
}

test('the render pool module sets the arena purge and no host fonts before Skia loads', () => {
  // A host font Skia would find: without it, a scan and no scan look alike.
  const dejavu = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';
  assert.ok(fs.existsSync(dejavu), 'this test needs a host font: apt-get install fonts-dejavu-core');
  const script = `const m = await import(${moduleUrl('src/formats/pool.ts')});
    const { nativeMemoryTuned } = await import(${moduleUrl('src/render/native-memory.ts')});
    const { GlobalFonts } = await import('@napi-rs/canvas');
    const host = GlobalFonts.families.filter((f) => /dejavu/i.test(f.family)).length;
    console.log(typeof m.createRenderPool, nativeMemoryTuned, host);`;
  const { loads, fonts, stdout } = run(['--input-type=module', '-e', script]);
  assert.deepEqual(loads, ['0']);
  assert.deepEqual(fonts, ['1']);
  assert.equal(stdout, 'function true 0', 'Skia knows no host font');
  const plain = run([
    '--input-type=module',
    '-e',
    `const { GlobalFonts } = await import('@napi-rs/canvas');
    console.log(GlobalFonts.families.filter((f) => /dejavu/i.test(f.family)).length > 0);`,
  ]);
  assert.equal(plain.stdout, 'true', 'Skia loaded on its own scans the host and finds DejaVu');
});

test('placard render has set it when Skia loads', () => {
  const document = JSON.parse(fs.readFileSync('test/render/fixtures/cli-set.json', 'utf8'));
  document.sizes = document.sizes.slice(0, 1);
  const input = path.join(dir, 'banner.json');
  fs.writeFileSync(input, JSON.stringify(document));
  const out = path.join(dir, 'banner.jpg');
  const { loads, fonts } = run([MAIN, 'render', input, '--format', 'jpg', '--out', out]);
  assert.deepEqual(loads, ['0']);
  assert.deepEqual(fonts, ['1']);
  assert.ok(fs.statSync(out).size > 0, 'the JPG was written');
});

test("an operator's own values are kept", () => {
  const script = `await import(${moduleUrl('src/formats/pool.ts')});`;
  const { loads, fonts } = run(['--input-type=module', '-e', script], {
    MIMALLOC_ARENA_PURGE_MULT: '5',
    DISABLE_SYSTEM_FONTS_LOAD: '',
  });
  assert.deepEqual(loads, ['5']);
  assert.deepEqual(fonts, [''], 'an empty value (scan the host) stays');
});

test('loaded after Skia, the module says that the setting came too late', () => {
  const script = `await import('@napi-rs/canvas');
    const { nativeMemoryTuned } = await import(${moduleUrl('src/render/native-memory.ts')});
    console.log(nativeMemoryTuned);`;
  const { loads, stdout } = run(['--input-type=module', '-e', script]);
  assert.deepEqual(loads, ['(unset)']);
  assert.equal(stdout, 'false');
});
