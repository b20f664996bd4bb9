import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { DEMO_DESIGNS } from '../src/cli/demo-designs.js';
import { readDocument } from '../src/domain/design.schema.js';
import { DESIGN_DOCUMENT_EXAMPLE } from '../src/domain/design-document-doc.js';
import { createRenderPool, type RenderJob } from '../src/formats/pool.js';
import { renderJobsPerThread } from '../src/jobs/job-queue.js';
import { newFileMicros } from './scratch.js';
import { type RunningService, startService } from './service.js';
import { printTable } from './table.js';

/** Exports per loaded run; the unloaded runs (concurrency 1) make a fifth as many. */
const EXPORTS = Number(process.env.BENCH_EXPORTS ?? 150);
/**
 * Exports made before anything is measured, at concurrency 4. The first measured row (c=1) came after ten, while V8
 * was still compiling the export path: its main-thread CPU fell from 3.6 to 2.9 and 2.6 ms per export over three runs
 * of 1,000 back to back on one service (issue 21, stop 23). A service that makes thousands of exports a day is warm.
 */
export const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 3000);
const CONCURRENCY = 16;

// biome-ignore lint/suspicious/noExplicitAny: API answers are read field by field.
type Json = any;

async function listen(server: http.Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

function close(server: http.Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

type Service = RunningService;

/** The photo of the 300x250 fixture. */
export async function serveMedia() {
  const photo = await sharp({
    create: { width: 600, height: 280, channels: 3, background: '#0EA5E9' },
  })
    .jpeg({ quality: 85 })
    .toBuffer();
  const server = http.createServer((req, res) => {
    if (req.url !== '/photo.jpg') res.writeHead(404).end();
    else res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': photo.length }).end(photo);
  });
  const origin = await listen(server);
  return { url: `${origin}/photo.jpg`, close: () => close(server) };
}

interface Arrival {
  /** performance.now() at arrival. */
  at: number;
  /** Date.now() at arrival, to compare with the service's timestamps (same machine, same clock). */
  wallAt: number;
  status: string;
  createdAt: string;
  completedAt: string;
}

/** Times webhook arrivals by export id; wait(id) resolves once that export's webhook has come. */
export async function webhookReceiver() {
  const arrivals = new Map<string, Arrival>();
  const waiting = new Map<string, (arrival: Arrival) => void>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      const wallAt = Date.now();
      res.writeHead(204).end();
      const payload = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const id = payload.data?.export?.id as string;
      if (arrivals.has(id)) return; // at least once: a second delivery does not count
      const { status, createdAt, completedAt } = payload.data.export;
      const arrival = { at, wallAt, status, createdAt, completedAt };
      arrivals.set(id, arrival);
      waiting.get(id)?.(arrival);
      waiting.delete(id);
    });
  });
  const url = `${await listen(server)}/hook`;
  return {
    url,
    wait(id: string): Promise<Arrival> {
      const arrival = arrivals.get(id);
      if (arrival) return Promise.resolve(arrival);
      // A lost webhook stops the bench rather than hanging it.
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no webhook for export ${id} within 60 s`)), 60_000);
        waiting.set(id, (arrival) => {
          clearTimeout(timer);
          resolve(arrival);
        });
      });
    },
    close: () => close(server),
  };
}

/** Sums of the service's counters that the bench reads: render seconds and files by format, jobs waiting. */
async function scrape(service: Service) {
  const text = await (await fetch(`${service.url}/metrics`)).text();
  const value = (name: string, labels: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
    return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
  };
  const depth = text
    .split('\n')
    // Thumbnails of export-with-changes wait a minute on purpose (the export's own file may become the thumbnail):
    // waiting for them made every run sit idle for a minute (issue 21).
    .filter((l) => l.startsWith('placard_queue_depth{') && !l.includes('kind="design.thumbnail"'))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  const total = (name: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
  };
  return {
    renderSeconds:
      value('placard_render_seconds_sum', 'format="png"') + value('placard_render_seconds_sum', 'format="jpg"'),
    renders:
      value('placard_render_seconds_count', 'format="png"') + value('placard_render_seconds_count', 'format="jpg"'),
    statements: total('placard_sql_statements_total'),
    depth,
  };
}

/** Waits until no job is queued or running (thumbnails of the previous run included). */
async function drained(service: Service) {
  while ((await scrape(service)).depth > 0) await new Promise((r) => setTimeout(r, 50));
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

let labels = 0;

interface Run {
  exports: number;
  wallMs: number;
  /** Submit → webhook, sorted; and its parts, each sorted on its own. */
  latencies: number[];
  answers: number[];
  working: number[];
  delivering: number[];
  renders: number;
  renderSeconds: number;
  /** SQL statements the service sent during the run (placard_sql_statements_total), and main-thread CPU ms. */
  statements: number;
  mainCpuMs: number;
  /** CPU of every thread of the service process, ms. */
  serviceCpuMs: number;
  /** CPU of this process over the run: the HTTP client and the webhook receiver, on the same cores as the service. */
  clientCpuMs: number;
  notComplete: number;
  cacheHits: number;
}

/**
 * CPU time of the service's main thread (the event loop: HTTP, SQL, queue, webhooks), in ms: utime + stime of the
 * task whose id is the process id, in clock ticks (10 ms on Linux). Render threads are other tasks and do not count.
 */
function mainThreadCpuMs(pid: number): number {
  return cpuMsOf(`/proc/${pid}/task/${pid}/stat`);
}

/**
 * CPU time of the whole service process in ms: every thread (the event loop, the SQLite and webhook threads, the
 * render threads and the encoders' libuv pool, V8's helpers). At c=16 the two cores are full, so this, not the main
 * thread alone, is what leaves the renders their share.
 */
function processCpuMs(pid: number): number {
  return cpuMsOf(`/proc/${pid}/stat`);
}

/** utime + stime of a /proc stat file, in clock ticks of 10 ms. */
function cpuMsOf(file: string): number {
  const stat = fs.readFileSync(file, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export type Request = (label: string) => { route: string; body: object };

/** `count` requests, `concurrency` at a time, each waiting for its export's webhook. */
export async function run(
  service: Service,
  hooks: Awaited<ReturnType<typeof webhookReceiver>>,
  request: Request,
  count: number,
  concurrency: number,
): Promise<Run> {
  await drained(service);
  const before = await scrape(service);
  const cpuBefore = mainThreadCpuMs(service.pid);
  const processBefore = processCpuMs(service.pid);
  const clientBefore = process.cpuUsage();
  const latencies: number[] = [];
  const answers: number[] = [];
  const working: number[] = [];
  const delivering: number[] = [];
  let notComplete = 0;
  let cacheHits = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        next += 1;
        const { route, body } = request(`Bench ${++labels} ${process.pid}`);
        const submitted = performance.now();
        const answer = await service.api('POST', route, body);
        answers.push(performance.now() - submitted);
        if (answer.cache === 'HIT') cacheHits += 1;
        const arrival = await hooks.wait(answer.json.response.export.id);
        latencies.push(arrival.at - submitted);
        working.push(Date.parse(arrival.completedAt) - Date.parse(arrival.createdAt));
        delivering.push(arrival.wallAt - Date.parse(arrival.completedAt));
        if (arrival.status !== 'complete') notComplete += 1;
      }
    }),
  );
  const wallMs = performance.now() - started;
  const cpuAfter = mainThreadCpuMs(service.pid);
  const processAfter = processCpuMs(service.pid);
  const client = process.cpuUsage(clientBefore);
  const after = await scrape(service);
  return {
    exports: count,
    wallMs,
    latencies: latencies.sort((a, b) => a - b),
    answers: answers.sort((a, b) => a - b),
    working: working.sort((a, b) => a - b),
    delivering: delivering.sort((a, b) => a - b),
    renders: after.renders - before.renders,
    renderSeconds: after.renderSeconds - before.renderSeconds,
    // The scrape itself is not an export's statement; nothing else runs on an idle service between runs.
    statements: after.statements - before.statements,
    mainCpuMs: cpuAfter - cpuBefore,
    serviceCpuMs: processAfter - processBefore,
    clientCpuMs: (client.user + client.system) / 1000,
    notComplete,
    cacheHits,
  };
}

/**
 * Renders before the pool alone is timed. Its rate rose from about 1,340 to 1,800 renders/s over its first 8,000
 * renders (1,000 at a time, issue 21, stop 29), while the service's render threads have made thousands by the time
 * its loaded rows run: timed after a few renders, the pool's rate was too low, and the API's share of it too high.
 */
const POOL_WARM_UP = 8000;

/**
 * The render pool alone, no API, as many renders in flight per thread as the export processor runs
 * (renderJobsPerThread): warmed up once, then timed over `count` renders of `job` by each call of `rate`. The bench
 * times it before and after the service's runs: this machine's speed moved by a sixth within minutes (issue 21, stop
 * 35: 1,108 and 964 renders/s in two runs a few minutes apart), and the share of the pool's rate is read against the
 * pool's rate of the same minutes.
 */
async function alonePool(job: RenderJob) {
  const threads = os.availableParallelism();
  const pool = createRenderPool({ threads, allowPrivateUrls: true });
  const inFlight = threads * renderJobsPerThread({ localRoot: '.' });
  const renders = async (count: number) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < count) {
          next += 1;
          await pool.render(job);
        }
      }),
    );
  };
  try {
    await renders(POOL_WARM_UP);
  } catch (error) {
    await pool.close();
    throw error;
  }
  return {
    async rate(count: number): Promise<number> {
      const started = performance.now();
      await renders(count);
      return count / ((performance.now() - started) / 1000);
    },
    close: () => pool.close(),
  };
}

/** The bench's 300x250 banner, its photo served by `mediaUrl`. */
export function benchBanner(mediaUrl: string): Json {
  const banner = structuredClone(DESIGN_DOCUMENT_EXAMPLE) as Json;
  banner.sizes[0].slides[0].elements.find((e: Json) => e.name === 'photo').src = mediaUrl;
  return banner;
}

/** `banner` imported as a template into a project of its own: the project and the template's hash. */
export async function importBanner(service: Service, banner: Json) {
  const brandKit = await service.api('POST', '/v1/brandkits/create', { name: 'Bench kit' });
  const project = await service.api('POST', '/v1/projects', {
    name: 'Bench',
    brandKitId: brandKit.json.response.brandKit.id,
  });
  const projectId = project.json.response.project.id;
  const single = (
    await service.api('POST', '/v1/templates/import', { projectId, name: 'Bench banner', document: banner })
  ).json.response.template.id as string;
  return { projectId, single };
}

/**
 * A plain JPG export of the banner; the webhook URL is part of the cache key, so a query of its own per export makes
 * every request a miss (a real render) without creating a design per export.
 */
export function jpgExport(templateHash: string, hookUrl: string): Request {
  return (label) => ({
    route: '/v1/export',
    body: { creativeHash: templateHash, type: 'jpg', webhookUrl: `${hookUrl}?n=${encodeURIComponent(label)}` },
  });
}

export async function benchExports() {
  const threads = os.availableParallelism();
  const media = await serveMedia();
  const hooks = await webhookReceiver();
  const banner = benchBanner(media.url);
  const jpgSettings = { scale: 1, quality: 90 };
  const poolRenders = Math.max(200, EXPORTS * 4);
  const pool = await alonePool({
    document: readDocument(banner),
    sizeIndex: 0,
    slideIndex: 0,
    format: 'jpg',
    settings: jpgSettings,
  });
  let service: Service | null = null;
  try {
    const poolBefore = await pool.rate(poolRenders);
    service = await startService({}, { team: true });
    const { projectId, single } = await importBanner(service, banner);
    const iab = DEMO_DESIGNS.find((d) => d.document.sizes.length === 4);
    if (!iab) throw new Error('the demo designs have no 4-size set');
    const set = (
      await service.api('POST', '/v1/templates/import', { projectId, name: 'Bench set', document: iab.document })
    ).json.response.template.id as string;

    const jpg = jpgExport(single, hooks.url);
    const pngSet: Request = (label) => ({
      route: '/v1/export',
      body: { creativeHash: set, type: 'png', webhookUrl: `${hooks.url}?n=${encodeURIComponent(label)}` },
    });
    // Warm-up (threads started, fonts and the photo loaded, statements prepared, the export path compiled by V8):
    // not measured.
    await run(service, hooks, jpg, Math.max(4 * threads, WARM_UP), 4);
    await run(service, hooks, pngSet, threads, threads);

    const unloaded = Math.max(20, Math.round(EXPORTS / 2));
    const scenarios = [
      { design: 'JPG 300x250', request: jpg, count: unloaded, concurrency: 1 },
      { design: 'JPG 300x250', request: jpg, count: EXPORTS * 2, concurrency: 4 },
      { design: 'JPG 300x250', request: jpg, count: EXPORTS * 4, concurrency: CONCURRENCY },
      { design: 'PNG set of 4 sizes', request: pngSet, count: EXPORTS, concurrency: CONCURRENCY },
    ];
    const results: Array<{ scenario: (typeof scenarios)[number]; result: Run }> = [];
    for (const scenario of scenarios) {
      results.push({
        scenario,
        result: await run(service, hooks, scenario.request, scenario.count, scenario.concurrency),
      });
    }
    // Where the service's files went (bench/scratch.ts): its own disk's state, not the state of the bench's directory.
    const blobsNewFile = newFileMicros(200, path.join(service.dataDir, 'blobs'));
    await service.stop();
    const poolAfter = await pool.rate(poolRenders);
    const poolPerSecond = (poolBefore + poolAfter) / 2;
    const rows = results.map(({ scenario, result }) => {
      const perSecond = result.exports / (result.wallMs / 1000);
      return {
        exports: `${scenario.design} × ${result.exports}`,
        concurrency: scenario.concurrency,
        'exports/s': perSecond,
        'of pool rate': scenario.design.startsWith('JPG') ? `${Math.round((perSecond / poolPerSecond) * 100)} %` : '–',
        'p50 ms': percentile(result.latencies, 50),
        'p95 ms': percentile(result.latencies, 95),
        'main thread CPU ms/export': result.mainCpuMs / result.exports,
        'service CPU ms/export (all threads)': result.serviceCpuMs / result.exports,
        'bench client CPU ms/export': result.clientCpuMs / result.exports,
        'SQL statements/export': result.statements / result.exports,
        'render ms/file (service)': (result.renderSeconds / result.renders) * 1000,
        'not complete / cache hits': `${result.notComplete} / ${result.cacheHits}`,
      };
    });
    const parts = results.map(({ scenario, result }) => ({
      exports: `${scenario.design} × ${result.exports}`,
      concurrency: scenario.concurrency,
      'POST answered': Math.round(percentile(result.answers, 50)),
      'createdAt → completedAt': Math.round(percentile(result.working, 50)),
      'completedAt → webhook received': Math.round(percentile(result.delivering, 50)),
      'submit → webhook': Math.round(percentile(result.latencies, 50)),
    }));
    printTable(
      `Render pool alone (no API): 300x250 JPG, ${threads} threads, ${renderJobsPerThread({ localRoot: '.' })} renders per thread in flight as the export processor runs them, after ${POOL_WARM_UP} renders of warm-up`,
      [{ 'before the runs, renders/s': poolBefore, 'after the runs': poolAfter, mean: poolPerSecond }],
    );
    printTable(
      `Exports end to end (POST /v1/export, webhook timing; one process, SQLite, ${threads} render threads)`,
      rows,
    );
    printTable('Where the time goes (p50 of each part on its own, ms; service timestamps have 1 ms resolution)', parts);
    console.log(
      `\na new file in the service's blob store after the runs: ${blobsNewFile.toFixed(0)} µs (write + rename, median of 200)`,
    );
    console.log(
      [
        '',
        '- latency: just before the POST → the webhook at a receiver on 127.0.0.1 (render, store, finish, delivery).',
        "- main thread CPU: utime + stime of the service's main thread (/proc, 10 ms ticks) over the run ÷ exports;",
        '  the render threads are not in it.',
        '- service CPU: utime + stime of the whole service process (every thread: the event loop, SQLite, webhooks,',
        "  the render threads and their encoders' libuv pool, V8's helpers) over the run ÷ exports.",
        '- bench client CPU: this process (the HTTP client on kept-alive node:http sockets, the webhook receiver),',
        '  which shares the two cores with the service, over the run ÷ exports.',
        '- SQL statements: `placard_sql_statements_total` (every statement Kysely sends, begin/commit included, and',
        "  the begin/commit of SQLite's group commits) over the run ÷ exports: counted, not estimated.",
        "- of pool rate: API exports/s ÷ the render pool's own renders/s of the same file, the mean of its rate before",
        "  and after the service's runs (the pool's threads wait idle meanwhile; the service is stopped before the",
        '  second timing).',
      ].join('\n'),
    );
  } finally {
    await service?.stop();
    await Promise.all([pool.close(), hooks.close(), media.close()]);
  }
}
