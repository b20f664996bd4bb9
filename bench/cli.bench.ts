// `placard render` cold (issue 21): wall and CPU time of the real command (dist/, a new process each run) making one
// 300x250 JPG, beside `node -e 0`, medians of 7 runs. CPU (user + system, from the child's rusage) says more than wall
// on a shared machine: the table prints the load average under it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { printTable } from './table.js';

const RUNS = 7;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

// Preloaded into the child: its own CPU time (all threads), written to stderr as it exits.
const CPU_REPORT = `data:text/javascript,${encodeURIComponent(
  'process.on("exit",()=>{const u=process.cpuUsage();process.stderr.write("CPU_MS "+(u.user+u.system)/1000+"\\n")})',
)}`;

/** Wall and CPU ms of one process run to its end. */
function time(args: string[]): { wall: number; cpu: number } {
  const started = performance.now();
  const run = spawnSync(process.execPath, ['--import', CPU_REPORT, ...args], { encoding: 'utf8' });
  const wall = performance.now() - started;
  if (run.status !== 0) throw new Error(`${args.join(' ')} failed: ${run.stderr}`);
  const cpu = Number(/CPU_MS ([\d.]+)/.exec(run.stderr)?.[1]);
  return { wall, cpu };
}

export async function benchCli() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-bench-cli-'));
  try {
    const document = JSON.parse(fs.readFileSync('test/render/fixtures/cli-set.json', 'utf8'));
    document.sizes = document.sizes.slice(0, 1); // the 300x250
    const input = path.join(dir, 'banner.json');
    fs.writeFileSync(input, JSON.stringify(document));
    const render = ['bin/placard.js', 'render', input, '--format', 'jpg', '--out', path.join(dir, 'banner.jpg')];
    const rows = [
      { command: 'node -e 0', args: ['-e', '0'] },
      { command: 'placard render banner.json --format jpg (300x250)', args: render },
    ].map(({ command, args }) => {
      time(args); // warm the file cache
      const runs = Array.from({ length: RUNS }, () => time(args));
      return {
        command,
        'wall ms (median of 7)': median(runs.map((r) => r.wall)),
        'CPU ms (median of 7)': median(runs.map((r) => r.cpu)),
      };
    });
    printTable('placard render, cold process (dist/)', rows);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
