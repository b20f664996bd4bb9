// `BENCH_VS=<checkout> npm run bench -- paired`: this build against another, on the same machine at the same moments.
// The machine's own speed moved by up to twice within an hour (issue 21: the render threads' time per file went from 3
// to 7 ms between runs of the same build), so runs of two builds minutes apart said more about the machine than about
// the code. Here both services run at once, warmed up alike, and take turns in short rounds of the exports bench's
// export (a 300x250 JPG with a webhook), the order flipped every round: a slow minute falls on both. Each round's
// main-thread CPU is read from /proc for its own service only.
//
// The other checkout must be built (`npm install && npm run build` there); it is started with its own `bin/placard.js`.
import fs from 'node:fs';
import path from 'node:path';
import {
  benchBanner,
  importBanner,
  jpgExport,
  percentile,
  run,
  serveMedia,
  WARM_UP,
  webhookReceiver,
} from './exports.bench.js';
import { type RunningService, startService } from './service.js';
import { printTable } from './table.js';

const ROUNDS = Number(process.env.BENCH_PAIRED_ROUNDS ?? 6);
/** Exports per round and side, by concurrency: a round lasts a few seconds. */
const PER_ROUND: Record<number, number> = { 1: 200, 16: 800 };

interface Side {
  name: string;
  service: RunningService;
  request: ReturnType<typeof jpgExport>;
}

interface Tally {
  exports: number;
  wallMs: number;
  cpuMs: number;
  serviceCpuMs: number;
  statements: number;
  latencies: number[];
  /** Rounds in which this side used less main-thread CPU per export than the other. */
  leaner: number;
}

export async function benchPaired() {
  const other = process.env.BENCH_VS;
  if (!other) {
    console.log(
      '\n### Paired (skipped)\n\nSet BENCH_VS to another checkout of Placard, built there (`npm install && npm run build`), to compare it with this one.',
    );
    return;
  }
  const checkout = path.resolve(other);
  if (!fs.existsSync(path.join(checkout, 'dist', 'main.js'))) {
    throw new Error(`BENCH_VS=${other}: no dist/main.js there; run \`npm install && npm run build\` in it first`);
  }
  const media = await serveMedia();
  const hooks = await webhookReceiver();
  const banner = benchBanner(media.url);
  const sides: Side[] = [];
  try {
    for (const [name, dir] of [
      ['this checkout', undefined],
      [path.basename(checkout), checkout],
    ] as const) {
      const service = await startService({}, { team: true, checkout: dir });
      const { single } = await importBanner(service, banner);
      sides.push({ name, service, request: jpgExport(single, hooks.url) });
    }
    for (const side of sides) await run(side.service, hooks, side.request, WARM_UP, 4);
    const rows = [];
    for (const concurrency of [1, 16]) {
      const tallies = sides.map(
        (): Tally => ({ exports: 0, wallMs: 0, cpuMs: 0, serviceCpuMs: 0, statements: 0, latencies: [], leaner: 0 }),
      );
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? [0, 1] : [1, 0];
        const cpu: number[] = [];
        for (const i of order) {
          const result = await run(sides[i].service, hooks, sides[i].request, PER_ROUND[concurrency], concurrency);
          const tally = tallies[i];
          tally.exports += result.exports;
          tally.wallMs += result.wallMs;
          tally.cpuMs += result.mainCpuMs;
          tally.serviceCpuMs += result.serviceCpuMs;
          tally.statements += result.statements;
          tally.latencies.push(...result.latencies);
          cpu[i] = result.mainCpuMs;
        }
        if (cpu[0] !== cpu[1]) tallies[cpu[0] < cpu[1] ? 0 : 1].leaner += 1;
      }
      for (const [i, tally] of tallies.entries()) {
        tally.latencies.sort((a, b) => a - b);
        rows.push({
          build: sides[i].name,
          concurrency,
          exports: tally.exports,
          'exports/s': tally.exports / (tally.wallMs / 1000),
          'p50 ms': percentile(tally.latencies, 50),
          'main thread CPU ms/export': tally.cpuMs / tally.exports,
          'service CPU ms/export (all threads)': tally.serviceCpuMs / tally.exports,
          'SQL statements/export': tally.statements / tally.exports,
          'rounds with less CPU': `${tally.leaner} of ${ROUNDS}`,
        });
      }
    }
    printTable(
      `Paired: this checkout against ${checkout} (300x250 JPG exports with a webhook, ${ROUNDS} rounds each way, warmed up with ${WARM_UP})`,
      rows,
    );
  } finally {
    await Promise.all(sides.map((side) => side.service.stop()));
    await Promise.all([hooks.close(), media.close()]);
  }
}
