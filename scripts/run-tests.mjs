#!/usr/bin/env node
// Runs every test/**/*.test.ts with Node's own test runner (TypeScript through tsx). Node 20's --test takes no globs,
// so the files are found here. `--pg` runs the suite on PostgreSQL (DATABASE_URL, or the machine's default).
// Extra arguments that are paths narrow the run: `npm test -- test/http/routes/users.test.ts`.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const args = process.argv.slice(2);
const env = { ...process.env };
if (args.includes('--pg')) env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/test';

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
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files],
  { stdio: 'inherit', env },
);
process.exit(result.status ?? 1);
