// The scaled-out shape (dist/): one `placard serve` with PLACARD_ROLE=api and 1, then 2 `placard worker` processes
// (one render thread each) over PostgreSQL, Redis (BullMQ) and an S3-protocol server (s3rver, started here). Each
// run submits export-with-changes PNG exports, 16 in flight, each with a headline of its own (no cache hits), and
// waits for every webhook: exports per second = exports ÷ (first POST → last webhook).
// Needs PostgreSQL and Redis: DATABASE_URL and REDIS_URL, or the machine's defaults (127.0.0.1:5432 user postgres,
// 127.0.0.1:6379). A database and a Redis key prefix of its own, removed afterwards (bench/service.ts).
import { once } from 'node:events';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import { DESIGN_DOCUMENT_EXAMPLE } from '../src/domain/design-document-doc.js';
import { scaledOutUnavailable, startScaledOut } from './service.js';
import { printTable } from './table.js';

const EXPORTS = Number(process.env.BENCH_EXPORTS ?? 100);
const CONCURRENCY = 16;
const WORKER_COUNTS = [1, 2];

// biome-ignore lint/suspicious/noExplicitAny: API answers are read field by field.
type Json = any;

/** Resolves each export's webhook arrival time (performance.now()). */
async function webhookReceiver() {
  const arrived = new Map<string, number>();
  const waiting = new Map<string, (at: number) => void>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      res.writeHead(204).end();
      const id = JSON.parse(Buffer.concat(chunks).toString('utf8')).data?.export?.id as string;
      if (arrived.has(id)) return;
      arrived.set(id, at);
      waiting.get(id)?.(at);
      waiting.delete(id);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`,
    wait(id: string): Promise<number> {
      const at = arrived.get(id);
      if (at !== undefined) return Promise.resolve(at);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no webhook for export ${id} within 120 s`)), 120_000);
        waiting.set(id, (t) => {
          clearTimeout(timer);
          resolve(t);
        });
      });
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export async function benchScale() {
  const unavailable = await scaledOutUnavailable();
  if (unavailable) {
    console.log(`\n### Scaled out: skipped — ${unavailable}`);
    return;
  }
  const hooks = await webhookReceiver();
  const service = await startScaledOut(0, {}, { team: true });
  try {
    const call = async (method: string, route: string, body?: unknown): Promise<Json> =>
      (await service.api.api(method, route, body)).json;
    const kit = await call('POST', '/v1/brandkits/create', { name: 'Bench kit' });
    const project = await call('POST', '/v1/projects', { name: 'Bench', brandKitId: kit.response.brandKit.id });
    const banner = structuredClone(DESIGN_DOCUMENT_EXAMPLE) as Json;
    // No remote photo: the bench measures rendering and the pipeline, not a media server.
    const elements = banner.sizes[0].slides[0].elements as Json[];
    elements.splice(0, elements.length, ...elements.filter((e) => e.type !== 'image'));
    const template = (
      await call('POST', '/v1/templates/import', {
        projectId: project.response.project.id,
        name: 'Bench banner',
        document: banner,
      })
    ).response.template.id as string;

    let labels = 0;
    async function run(count: number, exportSettings?: object) {
      const latencies: number[] = [];
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: Math.min(CONCURRENCY, count) }, async () => {
          while (next < count) {
            next += 1;
            const submitted = performance.now();
            const accepted = await call('POST', '/v1/export-with-changes', {
              templateHash: template,
              type: 'png',
              webhookUrl: hooks.url,
              elementsChanges: [
                { elementName: 'headline', changes: [{ attribute: 'LABEL', value: `Scale ${++labels}` }] },
              ],
              ...(exportSettings ? { exportSettings } : {}),
            });
            latencies.push((await hooks.wait(accepted.response.export.id)) - submitted);
          }
        }),
      );
      return { wallMs: performance.now() - started, latencies: latencies.sort((a, b) => a - b) };
    }

    // The plain banner is cheap to draw, so the shared pipeline dominates; at scale 4 (1200x1000) the render does.
    const scenarios = [
      { name: 'PNG 300x250', settings: undefined },
      { name: 'PNG 300x250 at scale 4 (1200x1000)', settings: { scale: 4 } },
    ];
    const rows = [];
    for (const workers of WORKER_COUNTS) {
      await service.addWorkers(workers);
      await run(4 * workers); // warm-up: render threads started, fonts loaded
      for (const scenario of scenarios) {
        const result = await run(EXPORTS, scenario.settings);
        rows.push({
          export: scenario.name,
          'worker processes': workers,
          'render threads': workers,
          exports: EXPORTS,
          'wall s': result.wallMs / 1000,
          'exports/s': EXPORTS / (result.wallMs / 1000),
          'p50 submit → webhook ms': Math.round(result.latencies[Math.floor(result.latencies.length / 2)]),
        });
      }
      await service.stopWorkers();
    }
    rows.sort((a, b) => a.export.localeCompare(b.export) || a['worker processes'] - b['worker processes']);
    printTable(
      `Scaled out: 1 API + N workers (PostgreSQL, Redis/BullMQ, s3rver) on this machine, ${os.availableParallelism()} cores, export-with-changes, ${CONCURRENCY} in flight`,
      rows,
    );
    console.log(
      [
        '',
        '- every process runs on this one machine: the API, the workers, PostgreSQL, Redis and s3rver share its cores,',
        '  so the second worker adds a render thread but competes with the rest for CPU; the load average at the end',
        `  of this run was ${os.loadavg()[0].toFixed(1)} (other work on the machine skews the figures).`,
      ].join('\n'),
    );
  } finally {
    await service.stop();
    await hooks.close();
  }
}
