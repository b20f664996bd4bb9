#!/usr/bin/env node
// Runs every test/**/*.test.ts with Node's own test runner (TypeScript through tsx). Node 20's --test takes no globs,
// so the files are found here. `--pg` runs the suite on PostgreSQL (DATABASE_URL, or the machine's default).
// Extra arguments that are paths narrow the run: `npm test -- test/http/routes/users.test.ts`.
// Each file runs in a process of its own with a time limit (PLACARD_TEST_FILE_TIMEOUT seconds, default 600): a file
// whose cleanup never ran (a server left listening) used to keep `npm test` waiting forever. Node 20's
// --test-timeout bounds tests, not a file's process that stays alive after them, so the limit is kept here.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const args = process.argv.slice(2);
const env = { ...process.env };
if (args.includes('--pg')) env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/test';
const fileTimeoutMs = Number(env.PLACARD_TEST_FILE_TIMEOUT ?? 600) * 1000;

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : walk(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

const chosen = args.filter((a) => !a.startsWith('--'));
const files = (chosen.length ? chosen : walk('test')).sort();
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const concurrency = Math.max(2, os.availableParallelism());
const shape = env.REDIS_URL ? ' scaled out (Redis, BullMQ, files on s3rver)' : '';
console.log(`running ${files.length} test files on ${env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'}${shape}`);

/** pid → the file and its output so far: printed if the runner is interrupted, so a hang shows where it stopped. */
const running = new Map();

/** One file in its own process group (so a timeout ends its children too); its output is printed when it ends. */
function runFile(file) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', file], {
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks = [];
    running.set(child.pid, { file, chunks });
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    }, fileTimeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child.pid);
      const output = Buffer.concat(chunks).toString();
      process.stdout.write(`\n# ${file}\n${output}`);
      // Node 20 exits 0 when a failed top-level `before` cancels every test: cancelled tests are failures here.
      const cancelled = /^ℹ (fail|cancelled) [1-9]/m.test(output);
      if (timedOut) {
        console.log(`✖ ${file} did not finish within ${fileTimeoutMs / 1000} s and was stopped (a hang, not a pass)`);
      }
      resolve({ file, ok: !timedOut && !cancelled && code === 0, timedOut, code: code ?? signal, output });
    });
  });
}

// Stop every running file if the runner itself is interrupted, so nothing outlives it.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const [pid, { file, chunks }] of running) {
      process.stdout.write(`\n# ${file} (interrupted)\n${Buffer.concat(chunks).toString()}`);
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {}
    }
    process.exit(130);
  });
}

/** The spec reporter's closing list of failing tests, with their errors; the output's last lines when it has none. */
function failures(output) {
  const at = output.search(/^✖ failing tests:/m);
  const lines = (at === -1 ? output : output.slice(at)).trimEnd().split('\n');
  return lines.slice(at === -1 ? -80 : 0, at === -1 ? undefined : 200).join('\n');
}

const queue = [...files];
const results = [];
async function worker() {
  while (queue.length) {
    const file = queue.shift();
    const promise = runFile(file);
    results.push(await promise);
  }
}
await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, worker));
const failed = results.filter((r) => !r.ok);
console.log(`\n${results.length - failed.length} of ${results.length} test files passed`);
// The failures again, last: CI logs are often read from their end, and the file's own output may be far above.
for (const r of failed) console.log(`\n## ${r.file}: what failed\n${failures(r.output)}`);
for (const r of failed) console.log(`✖ ${r.file}${r.timedOut ? ' (timed out)' : ` (exit ${r.code})`}`);
process.exit(failed.length ? 1 : 0);
