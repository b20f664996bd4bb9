// Batches end to end (issue 22): one POST /v1/batches of N rows (CSV, a 300x250 template, each row its own headline
// and colour so no row is served from the cache) against `placard serve` (dist/, SQLite, render threads = cores);
// timed from just before the POST until GET /v1/batches/{id} shows the batch finished with its zip stored. Beside
// it, the same variants rendered in a loop on a render pool without the API (the changes applied, preflight on as
// the batch runs it, two renders per thread in flight as the processor runs them, nothing stored). The scaled-out
// shape is not measured here (see the notes printed under the table).
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { applyChanges } from '../src/domain/changes.js';
import { type DesignDocument, readDocument } from '../src/domain/design.schema.js';
import { DESIGN_DOCUMENT_EXAMPLE } from '../src/domain/design-document-doc.js';
import { createRenderPool, type RenderJob } from '../src/formats/pool.js';
import { formatOf } from '../src/formats/registry.js';
import { catalogueFonts } from '../src/render/text/fonts.js';
import { freePort } from '../test/helpers/ports.js';
import { printTable } from './table.js';

const ROWS = Number(process.env.BENCH_BATCH_ROWS ?? 500);

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

async function startService() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-bench-batch-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    PLACARD_PUBLIC_URL: url,
    PLACARD_DATA_DIR: dataDir,
    PLACARD_DEMO: 'false',
    PLACARD_RATE_LIMIT: 'false',
    PLACARD_ALLOW_PRIVATE_URLS: 'true',
    LOG_LEVEL: 'warn',
  };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  delete env.S3_ENDPOINT;
  delete env.PLACARD_RENDER_THREADS;
  const credential = JSON.parse(
    execFileSync(
      process.execPath,
      ['bin/placard.js', 'admin', 'create-team', '--name', 'Bench', '--owner-email', 'owner@bench.local'],
      { env, encoding: 'utf8' },
    ),
  ) as { clientId: string; clientSecret: string };
  const child = spawn(process.execPath, ['bin/placard.js', 'serve'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  for (let i = 0; !(await fetch(`${url}/readyz`).catch(() => null))?.ok; i++) {
    if (child.exitCode !== null || i > 1200) throw new Error('the service did not start within a minute');
    await new Promise((r) => setTimeout(r, 50));
  }
  const res = await fetch(`${url}/v1/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ clientId: credential.clientId, clientSecret: credential.clientSecret }),
  });
  const { token } = (await res.json()) as { token: string };
  return {
    async api(method: string, route: string, body?: unknown): Promise<Json> {
      const answer = await fetch(`${url}${route}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const json = await answer.json();
      if (answer.status !== 200) throw new Error(`${method} ${route}: ${answer.status} ${JSON.stringify(json)}`);
      return json;
    },
    async stop() {
      const done = once(child, 'exit');
      child.kill('SIGTERM');
      await done;
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
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
async function loopSeconds(doc: DesignDocument, type: 'png' | 'jpg', offset: number): Promise<number> {
  const threads = os.availableParallelism();
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
    await Promise.all(
      Array.from({ length: threads * 2 }, async () => {
        while (next < ROWS) {
          const i = next++;
          await pool.renderFiles(jobOf(offset + i));
        }
      }),
    );
    return (performance.now() - started) / 1000;
  } finally {
    await pool.close();
  }
}

export async function benchBatch() {
  const media = await serveMedia();
  const doc = structuredClone(DESIGN_DOCUMENT_EXAMPLE) as Json;
  doc.sizes[0].slides[0].elements.find((e: Json) => e.name === 'photo').src = media.url;
  const rows: Array<Record<string, string | number>> = [];
  const service = await startService();
  try {
    const kit = await service.api('POST', '/v1/brandkits/create', { name: 'Bench kit' });
    const project = await service.api('POST', '/v1/projects', { name: 'Bench', brandKitId: kit.response.brandKit.id });
    const template = await service.api('POST', '/v1/templates/import', {
      projectId: project.response.project.id,
      name: 'Bench banner',
      document: doc,
    });
    const hash = template.response.template.id as string;
    // The document as stored (with its size hashes), so the loop renders exactly what the batch renders.
    const stored = readDocument((await service.api('GET', `/v1/templates/${hash}/document`)).response);
    // Warm-up: threads started, fonts and the photo cached.
    await runBatch(service, hash, 'png', 50, 900_000);
    let offset = 0;
    for (const type of ['png', 'jpg'] as const) {
      offset += ROWS;
      const api = await runBatch(service, hash, type, ROWS, offset);
      const loop = await loopSeconds(stored, type, offset);
      rows.push({
        shape: 'embedded (SQLite, 1 process)',
        type,
        rows: ROWS,
        'submit answered (s)': api.submitSeconds,
        'submit → zip ready (s)': api.seconds,
        'rows/s': ROWS / api.seconds,
        'loop without API (s)': loop,
        'loop rows/s': ROWS / loop,
        'API / loop': api.seconds / loop,
      });
    }
  } finally {
    await service.stop();
    await media.close();
  }
  printTable(`Batches: ${ROWS} rows of a 300x250 template, ${os.availableParallelism()} render threads`, rows);
  console.log(
    [
      '',
      '- submit → zip ready: from before the POST until GET /v1/batches/{id} shows finishedAt (every row stored,',
      '  the zip and results CSV written); polled every 100 ms. The loop renders the same variants on a pool alone.',
      '- scaled-out shape (API + 2 workers) not measured by this section; see `npm run bench -- scale` for exports.',
    ].join('\n'),
  );
}

async function runBatch(
  service: Awaited<ReturnType<typeof startService>>,
  hash: string,
  type: 'png' | 'jpg',
  count: number,
  offset: number,
) {
  const csv = [
    'sku,title,color',
    ...Array.from({ length: count }, (_, i) => Object.values(rowOf(offset + i)).join(',')),
  ].join('\n');
  const started = performance.now();
  const answer = await service.api('POST', '/v1/batches', {
    templateHash: hash,
    type,
    mapping: MAPPING,
    csv,
    rowKey: 'sku',
  });
  const submitSeconds = (performance.now() - started) / 1000;
  const id = answer.response.batch.id;
  for (;;) {
    const batch = (await service.api('GET', `/v1/batches/${id}`)).response;
    if (batch.finishedAt) {
      if (batch.status !== 'complete') throw new Error(`batch ${id}: ${batch.status} ${JSON.stringify(batch.counts)}`);
      break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { seconds: (performance.now() - started) / 1000, submitSeconds };
}
