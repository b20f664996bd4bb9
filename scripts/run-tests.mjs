#!/usr/bin/env node
// Runs every test/**/*.test.ts with Node's own test runner (TypeScript through tsx). Node 20's --test takes no globs,
// so the files are found here. `--pg` runs the suite on PostgreSQL (DATABASE_URL, or the machine's default).
// Extra arguments that are paths narrow the run: `npm test -- test/http/routes/users.test.ts`.
// Each file runs in a process of its own with a time limit (PLACARD_TEST_FILE_TIMEOUT seconds, default 600): a file
// whose cleanup never ran (a server left listening) used to keep `npm test` waiting forever. Node 20's
// --test-timeout bounds tests, not a file's process that stays alive after them, so the limit is kept here.
// On PostgreSQL (the scaled-out run of CI) only the files that can see the deployment shape run again (readsShape),
// and not the browser tests (inBrowser); `--all` runs every file.
// Files start longest first (test/durations.json, seconds per file as last recorded; `--record-durations` writes it
// from this run): with two at a time, a slow file started last used to run alone for minutes at the end of a run.
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

const DURATIONS = 'test/durations.json';
const chosen = args.filter((a) => !a.startsWith('--'));
const known = fs.existsSync(DURATIONS) ? JSON.parse(fs.readFileSync(DURATIONS, 'utf8')) : {};
// A file never timed goes first: it may be slow, and it is new.
const expected = (file) => known[file] ?? Number.POSITIVE_INFINITY;

/** Modules through which a test reaches the database, Redis, the object store or a whole service. */
const SHAPE = new Set([
  'src/storage/db/database.ts',
  'src/storage/db/invalidation.ts',
  'src/storage/redis.ts',
  'src/jobs/bullmq-queue.ts',
  'src/runtime.ts',
  'src/main.ts',
  'test/helpers/app.ts',
  'test/helpers/postgres.ts',
  'test/helpers/s3-server.ts',
]);
/**
 * A test that reads the shape's variables itself, or starts Node (a CLI, a service, a fixture), whose child inherits
 * them.
 */
const SEES_SHAPE = /DATABASE_URL|REDIS_URL|process\.execPath|['"]tsx['"]|bin\/placard/;
const importsOf = new Map();
const texts = new Map();
/** A module's text, read once however many closures pass through it. */
function textOf(file) {
  let text = texts.get(file);
  if (text === undefined) {
    text = fs.readFileSync(file, 'utf8');
    texts.set(file, text);
  }
  return text;
}
/**
 * The files a module imports, by their specifiers (`.js` names the `.ts` source). Read by hand rather than with madge
 * (a dev dependency): its TypeScript parse of the tree takes about 10 s, and a specifier is all this needs. A
 * specifier in a comment only makes a file count as reading the shape, which runs it: the safe side.
 */
function importsOfFile(file) {
  let found = importsOf.get(file);
  if (found) return found;
  found = [];
  importsOf.set(file, found);
  for (const [, spec] of textOf(file).matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const base = path.join(path.dirname(file), spec);
    const candidates = [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), base, `${base}.ts`];
    const hit = candidates.find((c) => fs.existsSync(c) && fs.statSync(c).isFile());
    if (hit) found.push(hit);
  }
  return found;
}
/** Whether a test file can behave differently on PostgreSQL, Redis and S3 than on SQLite and the local disk. */
function readsShape(file) {
  const seen = new Set();
  const pending = [file];
  while (pending.length) {
    const next = pending.pop();
    if (seen.has(next)) continue;
    seen.add(next);
    if (SHAPE.has(next)) return true;
    if (next.startsWith('test/') && SEES_SHAPE.test(textOf(next))) return true;
    pending.push(...importsOfFile(next));
  }
  return false;
}

/**
 * The studio's tests in a real browser (test/browser) test what the page does with the answers of the /v1 routes; the
 * routes themselves run on PostgreSQL, Redis and S3 in their own tests. Their services started on the scaled-out
 * shape would repeat the SQLite run's browser work (about a quarter of the suite's time) without a route of their own.
 */
const inBrowser = (file) => file.startsWith('test/browser/');

const everyFile = chosen.length ? chosen : walk('test');
// Chosen files always run; a whole run on PostgreSQL leaves out what it would only repeat.
const sameEverywhere = new Set(
  !chosen.length && env.DATABASE_URL && !args.includes('--all')
    ? everyFile.filter((f) => inBrowser(f) || !readsShape(f))
    : [],
);
const files = everyFile
  .filter((f) => !sameEverywhere.has(f))
  .sort()
  .sort((a, b) => expected(b) - expected(a));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const concurrency = Math.max(2, os.availableParallelism());
const shape = env.REDIS_URL ? ' scaled out (Redis, BullMQ, files on s3rver)' : '';
console.log(`running ${files.length} test files on ${env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'}${shape}`);
if (sameEverywhere.size) {
  console.log(
    `left out, as they never touch the database, Redis or the object store, or drive the studio in a browser (--all runs them): ${sameEverywhere.size} files (${[...sameEverywhere].join(', ')})`,
  );
}

// `--list`: the files this run would start, in their order, and nothing run.
if (args.includes('--list')) {
  console.log(files.join('\n'));
  process.exit(0);
}

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
    const startedAt = performance.now();
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
      const seconds = Math.round((performance.now() - startedAt) / 100) / 10;
      resolve({ file, ok: !timedOut && !cancelled && code === 0, timedOut, code: code ?? signal, output, seconds });
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
  if (at === -1) return output.trimEnd().split('\n').slice(-80).join('\n');
  return output.slice(at).trimEnd().split('\n').slice(0, 200).join('\n');
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
const slowest = [...results].sort((a, b) => b.seconds - a.seconds).slice(0, 10);
console.log(`\nslowest files: ${slowest.map((r) => `${r.file} ${r.seconds} s`).join(', ')}`);
if (args.includes('--record-durations')) {
  // A whole run replaces the record (files since removed drop out); a narrowed one updates its files.
  const all = { ...(chosen.length ? known : {}), ...Object.fromEntries(results.map((r) => [r.file, r.seconds])) };
  const sorted = Object.fromEntries(Object.entries(all).sort(([a], [b]) => a.localeCompare(b)));
  fs.writeFileSync(DURATIONS, `${JSON.stringify(sorted, null, 2)}\n`);
}
console.log(`\n${results.length - failed.length} of ${results.length} test files passed`);
// The failures again, last: CI logs are often read from their end, and the file's own output may be far above.
for (const r of failed) console.log(`\n## ${r.file}: what failed\n${failures(r.output)}`);
for (const r of failed) console.log(`✖ ${r.file}${r.timedOut ? ' (timed out)' : ` (exit ${r.code})`}`);
process.exit(failed.length ? 1 : 0);
