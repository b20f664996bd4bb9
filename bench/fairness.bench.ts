// Fairness (issue 14): p50/p95 of a second team's 300x250 exports (POST → complete, polled) on an idle service, and
// again while a first team's backlog of BENCH_BACKLOG files (default 10 000) drains, against one `placard serve`
// (dist/, SQLite, render threads = cores). The aim is loaded within 2× of idle: the second team waits its turn behind
// a render or two, not behind the backlog.
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { startService } from './service.js';
import { printTable } from './table.js';

const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 10_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 20);
/** Files per backlog export: 4 sizes × 50 slides (the limits of a design allow 100 × 50). */
const FILES_PER_EXPORT = 200;

// biome-ignore lint/suspicious/noExplicitAny: API answers are read field by field.
type Json = any;

function design(name: string, sizes: number, slides: number) {
  return {
    name,
    sizes: Array.from({ length: sizes }, (_, s) => ({
      name: `S${s}`,
      width: 300,
      height: 250,
      backgroundColor: '#0F172A',
      slides: Array.from({ length: slides }, (_, i) => ({
        duration: 1,
        elements: [
          {
            name: `headline${i + 1}`,
            type: 'text',
            x: 16,
            y: 100,
            width: 268,
            height: 48,
            text: `Slide ${i + 1}`,
            fontFamily: 'Inter',
            fontSize: 24,
            color: '#FFFFFF',
          },
        ],
      })),
    })),
  };
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

export async function benchFairness(): Promise<void> {
  // The backlog is the point here: the expected-wait refusal (PLACARD_MAX_QUEUE_WAIT_SECONDS, 900 s) would turn part
  // of it away on a slow or loaded machine, so it is lifted to a week.
  const service = await startService({ PLACARD_DEMO: 'true', PLACARD_MAX_QUEUE_WAIT_SECONDS: String(7 * 24 * 3600) });
  try {
    const client = (token: string) => async (method: string, route: string, body?: unknown) => {
      const res = await fetch(`${service.url}${route}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const json = (await res.json()) as Json;
      if (res.status !== 200) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(json)}`);
      return json.response;
    };
    const busy = client(await service.token());
    const second = JSON.parse(
      execFileSync(
        process.execPath,
        ['bin/placard.js', 'admin', 'create-team', '--name', 'Second', '--owner-email', 'owner@second.local'],
        { env: { ...process.env, PLACARD_DATA_DIR: service.dataDir, LOG_LEVEL: 'warn' }, encoding: 'utf8' },
      ),
    ) as { clientId: string; clientSecret: string };
    const tokenRes = await fetch(`${service.url}/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId: second.clientId, clientSecret: second.clientSecret }),
    });
    const other = client(((await tokenRes.json()) as { token: string }).token);

    const importInto = async (api: typeof busy, doc: ReturnType<typeof design>) => {
      const kit = (await api('POST', '/v1/brandkits/create', { name: 'K' })).brandKit.id;
      const project = (await api('POST', '/v1/projects', { name: 'P', brandKitId: kit })).project.id;
      return (await api('POST', '/v1/templates/import', { projectId: project, name: doc.name, document: doc })).template
        .id as string;
    };
    const heavy = await importInto(busy, design('Backlog', 4, 50));
    const small = await importInto(other, design('Small', 1, 1));

    let sample = 0;
    /** One export of the second team, POST to complete; each with its own scale so the cache never answers. */
    const timedExport = async () => {
      const started = performance.now();
      const scale = 1 + ++sample / 100_000;
      const created = await other('POST', '/v1/export', {
        creativeHash: small,
        type: 'png',
        exportSettings: { scale },
      });
      for (;;) {
        const state = await other('GET', `/v1/export/${created.export.id}`);
        if (state.status !== 'pending' && state.status !== 'inProgress') {
          if (state.status !== 'complete') throw new Error(`export ${created.export.id} ended ${state.status}`);
          return performance.now() - started;
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    const run = async () => {
      const times: number[] = [];
      for (let i = 0; i < SAMPLES; i++) times.push(await timedExport());
      return times;
    };

    await run(); // warm the threads
    const idle = await run();
    const idleLoad = os.loadavg()[0];

    const exports = Math.ceil(BACKLOG / FILES_PER_EXPORT);
    for (let i = 0; i < exports; i++) {
      await busy('POST', '/v1/export', {
        creativeHash: heavy,
        type: 'jpg',
        exportSettings: { scale: 1 + i / 100_000 },
      });
    }
    const loaded = await run();
    const loadedLoad = os.loadavg()[0];
    // How much of the backlog was still waiting when the last sample finished.
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    const depth = Number(/placard_queue_depth\{kind="export.creative"\} (\d+)/.exec(metrics)?.[1] ?? Number.NaN);

    const row = (name: string, times: number[], load: number) => ({
      'second team, 300x250 PNG': name,
      samples: times.length,
      'p50 ms': quantile(times, 0.5),
      'p95 ms': quantile(times, 0.95),
      'load avg (1 min)': load,
    });
    printTable(`Fairness: a second team's exports, idle and behind a ${BACKLOG}-file backlog`, [
      row('idle service', idle, idleLoad),
      row(`first team's ${exports * FILES_PER_EXPORT} files queued`, loaded, loadedLoad),
    ]);
    console.log(
      `\nloaded/idle: p50 ${(quantile(loaded, 0.5) / quantile(idle, 0.5)).toFixed(2)}×, p95 ${(quantile(loaded, 0.95) / quantile(idle, 0.95)).toFixed(2)}×; ` +
        `${depth} of the backlog's files still waiting or rendering after the last sample; ${os.cpus().length} cores`,
    );
  } finally {
    await service.stop();
  }
}
