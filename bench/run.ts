// `npm run bench [-- section…]`: runs the benchmark sections and prints one table each.
// Benchmarks, not tests: figures vary with the machine; nothing here asserts on time.
import { execSync } from 'node:child_process';
import os from 'node:os';
import { benchApi } from './api.bench.js';
import { benchBatch } from './batch.bench.js';
import { benchCli } from './cli.bench.js';
import { benchClient } from './client.bench.js';
import { benchEditor } from './editor.bench.js';
import { benchExports } from './exports.bench.js';
import { benchFairness } from './fairness.bench.js';
import { benchFonts } from './fonts.bench.js';
import { benchHtml5 } from './html5.bench.js';
import { benchMotion } from './motion.bench.js';
import { benchPaired } from './paired.bench.js';
import { benchPreflight } from './preflight.bench.js';
import { benchRender } from './render.bench.js';
import { benchRenderUrl } from './render-url.bench.js';
import { benchScale } from './scale.bench.js';
import { quietDisk } from './scratch.js';
import { benchStudio } from './studio.bench.js';

const SECTIONS: Record<string, () => Promise<void>> = {
  api: benchApi,
  batch: benchBatch,
  cli: benchCli,
  client: benchClient,
  exports: benchExports,
  fairness: benchFairness,
  fonts: benchFonts,
  html5: benchHtml5,
  motion: benchMotion,
  paired: benchPaired,
  preflight: benchPreflight,
  render: benchRender,
  'render-url': benchRenderUrl,
  scale: benchScale,
  studio: benchStudio,
  editor: benchEditor,
};

const HELP = `npm run bench [-- section…]: runs the named sections, or every section when none is named.
sections: ${Object.keys(SECTIONS).join(', ')}
environment: BENCH_EXPORTS (exports per run, exports section), BENCH_SCALE_WARM_UP (exports before each shape of the
scale section, default 400), BENCH_SCALE_ROUNDS (runs of each shape, in turn, scale section, default 3),
BENCH_SCALE_WORKERS (worker counts, scale section, default "1,2"), BENCH_WARM_UP (exports before the exports and paired sections measure, default 3000),
BENCH_VS (another built checkout, paired section), BENCH_PAIRED_ROUNDS (default 6), BENCH_QUIET_DISK_S (how long a
section waits for a new file to cost at most 150 µs, default 420; 0: no wait), BENCH_BATCH_ROWS (rows per batch, batch section), BENCH_BATCH_ROUNDS (rounds per type, batch section), BENCH_SERVICE_ARGS (node flags of the service,
e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").`;
if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(HELP);
  process.exit(0);
}

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const unknown = wanted.filter((w) => !SECTIONS[w]);
if (unknown.length) {
  console.error(`unknown section(s): ${unknown.join(', ')}; known: ${Object.keys(SECTIONS).join(', ')}`);
  process.exit(2);
}

// The service under test runs from dist/, so build it first.
execSync('npm run build --silent', { stdio: 'inherit' });
console.log(`# Placard benchmarks — ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`);
for (const name of wanted.length ? wanted : Object.keys(SECTIONS)) {
  // Beside the load average: what a new file costs on this disk now (bench/scratch.ts says why it varies tenfold, and
  // why a section waits for a quiet disk first).
  const disk = await quietDisk(Number(process.env.BENCH_QUIET_DISK_S ?? 420));
  const waited =
    disk.waitedS > 0 ? `, after waiting ${disk.waitedS} s for a quiet disk (${disk.first.toFixed(0)} µs at first)` : '';
  console.log(
    `\n## ${name} — a new file on the bench's disk: ${disk.micros.toFixed(0)} µs (write + rename, median of 200; 30–75 µs on a quiet disk here${waited})`,
  );
  await SECTIONS[name]();
}
