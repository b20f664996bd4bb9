// The test runner (scripts/run-tests.mjs) never hangs: a file that leaves a server listening is stopped at its time
// limit and counted as a failure; a browser test without Chromium fails at once naming the install command.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
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
