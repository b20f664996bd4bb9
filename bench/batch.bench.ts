import { once } from 'node:events';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import sharp from 'sharp';
import { applyChanges } from '../src/domain/changes.js';
import { type DesignDocument, readDocument } from '../src/domain/design.schema.js';
import { DESIGN_DOCUMENT_EXAMPLE } from '../src/domain/design-document-doc.js';
import { createRenderPool, type RenderJob } from '../src/formats/pool.js';
import { formatOf } from '../src/formats/registry.js';
import { catalogueFonts } from '../src/render/text/fonts.js';
import { cpuSecondsOf, scaledOutUnavailable, startScaledOut, startService } from './service.js';
import { printTable } from './table.js';

const ROWS = Number(process.env.BENCH_BATCH_ROWS ?? 500);
const WORKERS = 2;
/** Batch-then-loop rounds per type: the best of them is reported (BENCH_BATCH_ROUNDS). */
const ROUNDS = Number(process.env.BENCH_BATCH_ROUNDS ?? 2);

// biome-ignore lint/suspicious/noExplicitAny: API answers are read field by field.
type Json = any;

async function listen(server: http.Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

async function serveMedia() {
  const photo = await sharp({ create: { width: 600, height: 280, channels: 3, background: '#0EA5E9' } })
    .jpeg({ quality: 85 })
    .toBuffer();
  const server = http.createServer((req, res) => {
    if (req.url !== '/photo.jpg') res.writeHead(404).end();
    else res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': photo.length }).end(photo);
  });
  const origin = await listen(server);
  return {
    url: `${origin}/photo.jpg`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const hex = (n: number) => n.toString(16).padStart(2, '0');
/** Row i's values: a headline and a colour of its own (no two rows are the same variant). */
const rowOf = (i: number) => ({ sku: `r${i}`, title: `Offer ${i}`, color: `#${hex(i % 256)}${hex((i * 7) % 256)}80` });
const MAPPING = [
  { elementName: 'headline', attribute: 'LABEL', value: '{title}' },
  { elementName: 'headline', attribute: 'TEXTCOLOR', value: '{color}' },
];

/** The same variants rendered in a loop on a pool of its own: no API, no storage. */
async function loopSeconds(
  doc: DesignDocument,
  type: 'png' | 'jpg',
  offset: number,
  threads: number,
): Promise<{ seconds: number; cpu: number }> {
  const pool = createRenderPool({ threads, allowPrivateUrls: true });
  const format = formatOf(type);
  const settings = format.defaults({} as never);
  const jobOf = (i: number): RenderJob =>
    ({
      document: applyChanges(
        doc,
        [
          {
            elementName: 'headline',
            changes: [
              { attribute: 'LABEL', value: rowOf(i).title },
              { attribute: 'TEXTCOLOR', value: rowOf(i).color },
            ],
          },
        ],
        undefined,
        catalogueFonts,
      ),
      sizeIndex: 0,
      slideIndex: 0,
      format: format.type,
      settings,
      preflight: { mode: 'warn', sizeHash: doc.sizes[0].hash ?? 'x' },
    }) as RenderJob;
  try {
    await Promise.all(Array.from({ length: threads * 2 }, (_, i) => pool.renderFiles(jobOf(offset + 100_000 + i))));
    let next = 0;
    const started = performance.now();
    const cpu = process.cpuUsage();
    await Promise.all(
      Array.from({ length: threads * 2 }, async () => {
        while (next < ROWS) {
          const i = next++;
          await pool.renderFiles(jobOf(offset + i));
        }
      }),
    );
    const used = process.cpuUsage(cpu);
    return { seconds: (performance.now() - started) / 1000, cpu: (used.user + used.system) / 1e6 };
  } finally {
    await pool.close();
  }
}

type Api = (method: string, route: string, body?: unknown) => Promise<Json>;

/** The bench's template (the photo from the local media server) imported into a new project; its hash and document. */
async function importTemplate(api: Api, photoUrl: string) {
  const doc = structuredClone(DESIGN_DOCUMENT_EXAMPLE) as Json;
  doc.sizes[0].slides[0].elements.find((e: Json) => e.name === 'photo').src = photoUrl;
  const kit = await api('POST', '/v1/brandkits/create', { name: 'Bench kit' });
  const project = await api('POST', '/v1/projects', { name: 'Bench', brandKitId: kit.response.brandKit.id });
  const template = await api('POST', '/v1/templates/import', {
    projectId: project.response.project.id,
    name: 'Bench banner',
    document: doc,
  });
  const hash = template.response.template.id as string;
  // The document as stored (with its size hashes), so the loop renders exactly what the batch renders.
  return { hash, stored: readDocument((await api('GET', `/v1/templates/${hash}/document`)).response) };
}

/**
 * PNG then JPG batches against one running shape, each beside the loop of the same variants on `threads` threads,
 * ROUNDS times in turn (batch, loop, batch, loop…): the best wall time of each, and the CPU seconds the service's
 * processes (`cpu()`) and the loop's process used per row, which another process's load skews far less.
 */
async function measureShape(
  shape: string,
  api: Api,
  photoUrl: string,
  threads: number,
  offset: number,
  cpu: () => number,
) {
  const { hash, stored } = await importTemplate(api, photoUrl);
  // Warm-up: threads started, fonts and the photo cached.
  await runBatch(api, hash, 'png', 50, 900_000 + offset);
  const rows: Array<Record<string, string | number>> = [];
  for (const type of ['png', 'jpg'] as const) {
    const batch = { seconds: Number.POSITIVE_INFINITY, submit: 0, cpu: Number.POSITIVE_INFINITY };
    const loop = { seconds: Number.POSITIVE_INFINITY, cpu: Number.POSITIVE_INFINITY };
    const loads: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      offset += ROWS;
      const cpuBefore = cpu();
      const measured = await runBatch(api, hash, type, ROWS, offset);
      const used = cpu() - cpuBefore;
      loads.push(os.loadavg()[0]);
      if (measured.seconds < batch.seconds)
        Object.assign(batch, { seconds: measured.seconds, submit: measured.submitSeconds });
      batch.cpu = Math.min(batch.cpu, used);
      const looped = await loopSeconds(stored, type, offset, threads);
      loop.seconds = Math.min(loop.seconds, looped.seconds);
      loop.cpu = Math.min(loop.cpu, looped.cpu);
    }
    rows.push({
      shape,
      type,
      rows: ROWS,
      'submit answered (s)': batch.submit,
      'submit → zip ready (s)': batch.seconds,
      'rows/s': ROWS / batch.seconds,
      'loop (s)': loop.seconds,
      'loop rows/s': ROWS / loop.seconds,
      'wall: batch / loop': batch.seconds / loop.seconds,
      'CPU ms/row batch': (batch.cpu * 1000) / ROWS,
      'CPU ms/row loop': (loop.cpu * 1000) / ROWS,
      'CPU: batch / loop': batch.cpu / loop.cpu,
      'load (1 min)': loads.map((l) => l.toFixed(1)).join(', '),
    });
  }
  return rows;
}

export async function benchBatch() {
  const media = await serveMedia();
  const rows: Array<Record<string, string | number>> = [];
  try {
    const embedded = await startService({}, { team: true });
    try {
      const api: Api = async (method, route, body) => (await embedded.api(method, route, body)).json;
      const threads = os.availableParallelism();
      const shape = `embedded (SQLite, 1 process, ${threads} threads)`;
      rows.push(...(await measureShape(shape, api, media.url, threads, 0, () => cpuSecondsOf(embedded.pid))));
    } finally {
      await embedded.stop();
    }
    const unavailable = await scaledOutUnavailable();
    if (unavailable) {
      console.log(`\n(scaled-out shape skipped — ${unavailable})`);
    } else {
      const scaled = await startScaledOut(WORKERS, {}, { team: true });
      try {
        const api: Api = async (method, route, body) => (await scaled.api.api(method, route, body)).json;
        const shape = `scaled out (PostgreSQL, Redis, s3rver; API + ${WORKERS} workers × 1 thread)`;
        const cpu = () => scaled.pids().reduce((sum, pid) => sum + cpuSecondsOf(pid), 0);
        rows.push(...(await measureShape(shape, api, media.url, WORKERS, 100 * ROWS, cpu)));
      } finally {
        await scaled.stop();
      }
    }
  } finally {
    await media.close();
  }
  printTable(`Batches: ${ROWS} rows of a 300x250 template`, rows);
  console.log(
    [
      '',
      '- submit → zip ready: from before the POST until GET /v1/batches/{id} shows finishedAt (every row stored,',
      '  the zip and results CSV written); polled every 100 ms. The loop renders the same variants on a pool alone,',
      '  with as many render threads as the shape has (cores; one per worker scaled out).',
      '- every process runs on this one machine with whatever else runs on it: the load column is the 1-minute load',
      '  average at the end of each round; best of the rounds (batch, loop, batch, loop…) for wall and CPU alike.',
      "- CPU: user + system seconds of the service's processes (scaled out: the API and the workers, not PostgreSQL,",
      "  Redis or s3rver) while the batch ran, and of the loop's process (its render threads included), per row.",
    ].join('\n'),
  );
}

async function runBatch(api: Api, hash: string, type: 'png' | 'jpg', count: number, offset: number) {
  const csv = [
    'sku,title,color',
    ...Array.from({ length: count }, (_, i) => Object.values(rowOf(offset + i)).join(',')),
  ].join('\n');
  const started = performance.now();
  const answer = await api('POST', '/v1/batches', { templateHash: hash, type, mapping: MAPPING, csv, rowKey: 'sku' });
  const submitSeconds = (performance.now() - started) / 1000;
  const id = answer.response.batch.id;
  for (;;) {
    const batch = (await api('GET', `/v1/batches/${id}`)).response;
    if (batch.finishedAt) {
      if (batch.status !== 'complete') throw new Error(`batch ${id}: ${batch.status} ${JSON.stringify(batch.counts)}`);
      break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { seconds: (performance.now() - started) / 1000, submitSeconds };
}
