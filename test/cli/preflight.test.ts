// `placard preflight`: the table and the JSON of the API, exit 1 when a finding is an error, 0 otherwise, 2 for invalid
// input; and the real command line (bin/placard.js through tsx) exits with those codes.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runPreflight } from '../../src/cli/preflight.js';
import { FIXTURES, type FixtureMedia, startFixtureMedia } from '../formats/preflight/fixtures.js';

let media: FixtureMedia;
let dir: string;
before(async () => {
  media = await startFixtureMedia();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-preflight-cli-'));
});
after(async () => {
  await media.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function write(name: string, raw: unknown): string {
  const file = path.join(dir, name);
  const json = JSON.stringify(raw)
    .replaceAll('{{media}}', media.server.origin)
    .replaceAll('{{closed}}', String(media.closedPort));
  fs.writeFileSync(file, json);
  return file;
}

async function run(argv: string[]) {
  let out = '';
  let err = '';
  const status = await runPreflight(argv, {
    fetcher: media.fetcher,
    stdout: (t) => {
      out += t;
    },
    stderr: (t) => {
      err += t;
    },
  });
  return { status, out, err };
}

describe('placard preflight', () => {
  test('an error finding exits 1 and prints a table naming the code, size, element and message', async () => {
    const file = write('overflow.json', FIXTURES.TEXT_OVERFLOW.trigger);
    const { status, out } = await run([file]);
    assert.equal(status, 1);
    const [header, row, message] = out.split('\n');
    assert.match(header!, /^SEVERITY\s+CODE\s+SIZE\s+ELEMENT$/);
    assert.match(row!, /^ERROR\s+TEXT_OVERFLOW\s+fixture\s+headline$/);
    assert.match(message!, /^ {4}Medium Rectangle \(300x250\), headline: the text overflows its box/);
    assert.match(out, /preflight: 1 error, 0 warnings, 0 info\n$/);
  });

  test('--json prints the API shape; only warnings exit 0', async () => {
    const file = write('truncated.json', FIXTURES.TEXT_TRUNCATED.trigger);
    const { status, out } = await run([file, '--json']);
    assert.equal(status, 0);
    const body = JSON.parse(out) as { findings: { code: string }[]; summary: Record<string, number> };
    assert.deepEqual(
      body.findings.map((f) => f.code),
      ['TEXT_TRUNCATED'],
    );
    assert.deepEqual(body.summary, { error: 0, warning: 1, info: 0 });
  });

  test('a clean design exits 0 with no findings', async () => {
    const { status, out } = await run([write('clean.json', FIXTURES.TEXT_OVERFLOW.pass)]);
    assert.equal(status, 0);
    assert.equal(out, 'preflight: no findings\n');
  });

  test('--changes are applied as the API applies them, and --scale counts', async () => {
    const file = write('clean2.json', FIXTURES.TEXT_OVERFLOW.pass);
    const changes = write('changes.json', {
      elementsChanges: [{ elementName: 'headline', changes: [{ attribute: 'LABEL', value: 'x '.repeat(200) }] }],
    });
    const { status, out } = await run([file, '--changes', changes]);
    assert.equal(status, 1);
    assert.match(out, /TEXT_OVERFLOW/);
    const photo = write('photo.json', FIXTURES.LOW_RESOLUTION_IMAGE.pass);
    assert.doesNotMatch((await run([photo, '--type', 'png'])).out, /LOW_RESOLUTION_IMAGE/);
    assert.match((await run([photo, '--type', 'png', '--scale', '4'])).out, /LOW_RESOLUTION_IMAGE/);
    // scale applies to raster types only.
    assert.doesNotMatch((await run([photo, '--type', 'pdf', '--scale', '4'])).out, /LOW_RESOLUTION_IMAGE/);
  });

  test('invalid input exits 2 with the API code', async () => {
    const file = write('c.json', FIXTURES.TEXT_OVERFLOW.pass);
    const unknown = write('unknown.json', {
      elementsChanges: [{ elementName: 'nope', changes: [{ attribute: 'LABEL', value: 'x' }] }],
    });
    const bad = await run([file, '--changes', unknown]);
    assert.equal(bad.status, 2);
    assert.match(bad.err, /^error UNKNOWN_ELEMENT: /);
    const size = await run([file, '--size', '728x90']);
    assert.equal(size.status, 2);
    assert.match(size.err, /UNKNOWN_SIZE_HASH/);
    const type = await run([file, '--type', 'tiff']);
    assert.equal(type.status, 2);
    assert.match(type.err, /VALIDATION_FAILED/);
    assert.equal((await run([])).status, 2);
  });

  test('the command line exits 1 on errors and 0 without', () => {
    const env: NodeJS.ProcessEnv = { ...process.env, PLACARD_ALLOW_PRIVATE_URLS: 'true' };
    delete env.NODE_TEST_CONTEXT;
    const tsx = path.resolve('node_modules/.bin/tsx');
    const entry = path.resolve('src/main.ts');
    const failing = spawnSync(tsx, [entry, 'preflight', write('f.json', FIXTURES.MISSING_GLYPHS.trigger)], {
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(failing.status, 1, failing.stderr);
    assert.match(failing.stdout, /MISSING_GLYPHS/);
    const passing = spawnSync(tsx, [entry, 'preflight', write('p.json', FIXTURES.MISSING_GLYPHS.pass), '--json'], {
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(passing.status, 0, passing.stderr);
    assert.equal(JSON.parse(passing.stdout).summary.error, 0);
  });
});
