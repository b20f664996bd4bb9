// The test runner (scripts/run-tests.mjs) never hangs: a file that leaves a server listening is stopped at its time
// limit and counted as a failure; a browser test without Chromium fails at once naming the install command. It starts
// the slowest files first, and on PostgreSQL runs again only the files that can see the storage.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { test } from 'node:test';

function run(files: string[], env: Record<string, string>) {
  // Without NODE_TEST_CONTEXT: set by the runner this test runs in, it would make the nested run report to us.
  const { NODE_TEST_CONTEXT: _, ...outer } = process.env;
  const result = spawnSync(process.execPath, ['scripts/run-tests.mjs', ...files], {
    env: { ...outer, ...env },
    encoding: 'utf8',
    // Far above the limits under test: if the runner itself hangs, this test fails instead of hanging the suite.
    timeout: 240_000,
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}`, error: result.error };
}

test('a file that never ends is stopped at the per-file limit and fails the run', () => {
  const { status, output, error } = run(['test/fixtures/hangs.fixture.ts'], { PLACARD_TEST_FILE_TIMEOUT: '3' });
  assert.equal(error, undefined, 'the runner itself hung');
  assert.equal(status, 1);
  assert.match(output, /hangs\.fixture\.ts did not finish within 3 s and was stopped/);
  assert.match(output, /0 of 1 test files passed/);
});

test('a browser test without Chromium fails at once with the install command, leaving nothing running', () => {
  const { status, output, error } = run(['test/browser/share-page.test.ts'], {
    PLACARD_CHROMIUM: '/nonexistent/chromium',
    // A failure must come from the missing tool, not from the limit: the limit is generous and must not be reached.
    PLACARD_TEST_FILE_TIMEOUT: '180',
  });
  assert.equal(error, undefined, 'the runner itself hung');
  assert.equal(status, 1);
  assert.match(
    output,
    /Chromium is missing at \/nonexistent\/chromium: install it with `sudo apt-get install -y chromium`/,
  );
  assert.doesNotMatch(output, /did not finish within/);
});

test('a whole run starts the slowest files first, and on PostgreSQL leaves out the files that never touch storage', () => {
  const durations = JSON.parse(fs.readFileSync('test/durations.json', 'utf8')) as Record<string, number>;
  const sqlite = run(['--list'], { DATABASE_URL: '', REDIS_URL: '' });
  assert.equal(sqlite.status, 0, sqlite.output);
  const order = sqlite.output.split('\n').filter((line) => line.endsWith('.test.ts'));
  assert.ok(order.length > 100, sqlite.output);
  const timed = order.filter((file) => file in durations).map((file) => durations[file]);
  assert.deepEqual(
    timed,
    [...timed].sort((a, b) => b - a),
    'files start longest first',
  );

  const pg = run(['--list'], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', REDIS_URL: '' });
  assert.equal(pg.status, 0, pg.output);
  const leftOut = /left out[^:]*: (\d+) files \(([^)]*)\)/.exec(pg.output);
  assert.ok(leftOut, pg.output);
  const skipped = leftOut[2].split(', ');
  // A renderer unit test sees no storage; a route test (the harness), a queue test and a CLI that starts the service
  // all do. A browser test starts the harness too, but drives only the studio's page: it runs on SQLite alone.
  assert.ok(skipped.includes('test/render/fit.test.ts'));
  assert.ok(skipped.includes('test/browser/editor.test.ts'));
  const all = run(['--list', '--all'], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', REDIS_URL: '' });
  assert.ok(all.output.includes('\ntest/browser/editor.test.ts\n'), '--all runs the browser tests on PostgreSQL too');
  for (const file of ['test/http/routes/exports.test.ts', 'test/jobs/local-queue.test.ts', 'test/cli/main.test.ts']) {
    assert.ok(!skipped.includes(file), `${file} must run on PostgreSQL`);
    assert.ok(pg.output.includes(`\n${file}\n`), `${file} is listed to run`);
  }
  const listed = pg.output.split('\n').filter((line) => line.endsWith('.test.ts'));
  assert.equal(listed.length + skipped.length, order.length);
});
