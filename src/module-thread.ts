// Starts a thread on a module of this project, from the compiled service (dist/*.js) or from its sources under tsx
// (tests, benchmarks), where a thread's own entry module is not transpiled: the thread's first script loads the
// module through tsx's require hook then. Used by the threads that are not piscina pools (one connection, one
// long-lived event loop of their own): SQLite's and the webhook calls'.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

const BOOT = `const { workerData } = require('node:worker_threads');
if (workerData.entry.endsWith('.ts')) { require('tsx/cjs'); require(workerData.entry); }
else import(require('node:url').pathToFileURL(workerData.entry).href);`;

/** A thread running `name` (no extension), the module beside `besideUrl` (the caller's import.meta.url). */
export function startModuleThread(besideUrl: string, name: string, workerData: object): Worker {
  const here = fileURLToPath(besideUrl);
  const entry = path.join(path.dirname(here), `${name}${path.extname(here)}`);
  return new Worker(BOOT, { eval: true, workerData: { ...workerData, entry } });
}
