// The benches' scratch directories, and the speed of making a file on the disk they are on.
//
// On ext4 without a journal (this machine's root filesystem), making a file skips every inode of its block group that
// was freed in the last one to six minutes, one buffer-cache lookup each (the kernel's recently_deleted()). Right
// after thousands of files were removed (a bench's data directory, a test run, an npm install), a new file took
// 400–620 µs instead of 55–75 µs, and an export of a 300x250 JPG spent 0.65 ms of render-thread CPU more (issue 21,
// stop 28: 330 against 404 exports/s at c=16). So a bench removes its directories when the whole run ends, not
// between sections, and every section prints what a new file costs beside the load average. A section also waits, up to
// BENCH_QUIET_DISK_S seconds (default 420: the kernel's window is one minute, six while the inode table's block is
// dirty), for a new file to cost no more than QUIET_MICROS: a bench run right after another paid for the first one's
// removals (issue 21, stop 35: 354 µs per new file, 35 % of the pool's rate at c=16 against 43 % minutes before).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const dirs: string[] = [];
let hooked = false;

function removeAll() {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** A new directory under the OS's temporary directory, removed when the bench process ends. */
export function scratchDir(prefix = 'placard-bench-'): string {
  if (!hooked) {
    hooked = true;
    process.on('exit', removeAll);
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => process.exit(signal === 'SIGINT' ? 130 : 143));
    }
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** What a new file costs here on a quiet disk is 30–75 µs; after thousands of removals, 350–620. */
const QUIET_MICROS = 150;
const QUIET_PROBE_EVERY_MS = 20_000;

/**
 * What a new file costs on the bench's disk, after waiting up to `maxWaitS` seconds for it to be quiet: the first probe,
 * the last one, and the seconds waited.
 */
export async function quietDisk(maxWaitS: number): Promise<{ first: number; micros: number; waitedS: number }> {
  const first = newFileMicros();
  const started = performance.now();
  let micros = first;
  while (micros > QUIET_MICROS && performance.now() - started + QUIET_PROBE_EVERY_MS <= maxWaitS * 1000) {
    await new Promise((resolve) => setTimeout(resolve, QUIET_PROBE_EVERY_MS));
    // Fewer files than the first probe: each probe's files are removed with the bench's other directories, at its end.
    micros = newFileMicros(100);
  }
  return { first, micros, waitedS: Math.round((performance.now() - started) / 1000) };
}

/**
 * Microseconds to make one file as the local blob store does (write into a temporary directory, rename into place),
 * median of `count`, in a scratch directory of its own, or in a new directory under `parent`: the kernel's skipping
 * is per block group, and a new directory of its own may land in another group than a service's blob store.
 */
export function newFileMicros(count = 200, parent?: string): number {
  const dir = parent ? fs.mkdtempSync(path.join(parent, 'new-file-probe-')) : scratchDir('placard-bench-files-');
  const tmp = path.join(dir, '.tmp');
  fs.mkdirSync(tmp);
  const body = Buffer.alloc(9_000, 1);
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = process.hrtime.bigint();
    fs.writeFileSync(path.join(tmp, String(i)), body, { flag: 'wx' });
    fs.renameSync(path.join(tmp, String(i)), path.join(dir, String(i)));
    times.push(Number(process.hrtime.bigint() - started) / 1000);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}
